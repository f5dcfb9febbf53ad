/**
 * What every bridge takes: which tools, under which names, where their live status and input go, and when a
 * call is handed off. Checked here once, so each bridge reports a caller's mistake the same way.
 */
import {
  McpTasksError,
  type InputContext,
  type InputHandlers,
  type TaskUpdate,
  type ToolInfo,
} from "mcp-tasks";
import { isBridgeTarget, sourceOf, type BridgeTarget, type SourceTool, type ToolSource } from "./source.js";

/** Where a bridged call's input request comes from: the client's context plus the framework's tool call id. */
export interface BridgeInputContext extends InputContext {
  /** The framework's id of the tool call that asks (undefined when the framework gave none). */
  toolCallId: string | undefined;
}

/** Handlers for the input requests of calls made through a bridge, used in place of the client's for the kinds given. */
export type BridgeInputHandlers = {
  [Kind in keyof InputHandlers]?: (
    params: Parameters<NonNullable<InputHandlers[Kind]>>[0],
    context: BridgeInputContext,
  ) => ReturnType<NonNullable<InputHandlers[Kind]>>;
};

/** A live status update of a bridged call, as `onUpdate` hears it. */
export interface BridgeUpdateEvent {
  /** The tool's name on its server (without the bridge's `prefix`, and without the host's server part). */
  toolName: string;
  /** Over a host: the name of the tool's server. Undefined over a client. */
  server?: string;
  /** The framework's id of the tool call (undefined when the framework gave none). */
  toolCallId: string | undefined;
  /** The update as the handle reports it (its `taskId` is the full id: keep it away from the model and logs). */
  update: TaskUpdate;
}

/** Options shared by the three bridges (`aiSdkTools`, `langchainTools`, `openaiAgentsTools`). */
export interface BridgeOptions {
  /**
   * Which tools to offer: their names (over a host, their qualified names), or a predicate (over a host, it gets
   * each tool with its `server` and `qualifiedName`). Default: every tool.
   */
  include?: readonly string[] | ((tool: ToolInfo & { server?: string; qualifiedName?: string }) => boolean);
  /** Put before every tool name the model sees (e.g. `"reports_"`), to keep several servers apart. Default none. */
  prefix?: string;
  /**
   * Where the input requests of these calls go (e.g. the host's chat UI), in place of the client's
   * `inputHandlers` for the kinds given; other kinds still go to the client's. The client must declare a kind
   * (have a handler for it) for a server to ask for it.
   */
  inputHandlers?: BridgeInputHandlers;
  /** Hears every status update of every call, whatever the framework streams. Server text is untrusted. */
  onUpdate?: (event: BridgeUpdateEvent) => void;
  /**
   * Hand-off for long work: a task still running `afterMs` after the call returns to the model at once with a
   * short note and a task ref, and the bridge adds the `task_status` and `task_cancel` tools that take that ref.
   */
  handoff?: { afterMs: number };
}

/** The options after checking, with the tools they select. */
export interface BridgeSetup {
  source: ToolSource;
  tools: SourceTool[];
  prefix: string;
  inputHandlers: BridgeInputHandlers | undefined;
  onUpdate: ((event: BridgeUpdateEvent) => void) | undefined;
  handoffAfterMs: number | undefined;
}

/** The names of the tools the hand-off mode adds (before the prefix). */
export const HANDOFF_TOOL_NAMES = ["task_status", "task_cancel"] as const;

/** Checks the options and lists the selected tools (`tools/list`, every page). */
export async function setUp(
  bridge: string,
  target: BridgeTarget,
  options: BridgeOptions = {},
): Promise<BridgeSetup> {
  const fail = (message: string) => new McpTasksError(`${bridge}: ${message}`);
  if (!isBridgeTarget(target)) throw fail("the first argument must be a connected TaskClient or a TaskHost");
  const source = sourceOf(target);
  const { include, prefix = "", inputHandlers, onUpdate, handoff } = options;
  if (typeof prefix !== "string") throw fail("`prefix` must be a string");
  if (onUpdate !== undefined && typeof onUpdate !== "function") throw fail("`onUpdate` must be a function");
  if (inputHandlers !== undefined) {
    if (typeof inputHandlers !== "object" || inputHandlers === null)
      throw fail("`inputHandlers` must be an object");
    for (const [kind, handler] of Object.entries(inputHandlers)) {
      if (handler !== undefined && typeof handler !== "function")
        throw fail(`\`inputHandlers.${kind}\` must be a function`);
    }
  }
  let handoffAfterMs: number | undefined;
  if (handoff !== undefined) {
    const afterMs = (handoff as { afterMs?: unknown } | null)?.afterMs;
    if (typeof afterMs !== "number" || !Number.isFinite(afterMs) || afterMs < 0)
      throw fail("`handoff.afterMs` must be a finite number of milliseconds ≥ 0");
    handoffAfterMs = afterMs;
  }
  const served = await source.listTools();
  let tools: SourceTool[];
  if (include === undefined) tools = served;
  else if (typeof include === "function") tools = served.filter(({ tool }) => include(tool));
  else if (Array.isArray(include) && include.every((name) => typeof name === "string")) {
    const missing = include.filter((name) => !served.some((tool) => tool.callName === name));
    if (missing.length > 0) {
      const whose = served.some((tool) => tool.server !== undefined)
        ? "no server of the host has"
        : "the server has no";
      throw fail(`${whose} tool ${missing.map((name) => JSON.stringify(name)).join(", ")}`);
    }
    tools = served.filter((tool) => include.includes(tool.callName));
  } else throw fail("`include` must be an array of tool names or a predicate");
  if (handoffAfterMs !== undefined) {
    const clash = tools.find((tool) => (HANDOFF_TOOL_NAMES as readonly string[]).includes(tool.callName));
    if (clash !== undefined)
      throw fail(
        `the server's tool "${clash.callName}" clashes with the hand-off tool of that name; leave it out with \`include\``,
      );
  }
  return { source, tools, prefix, inputHandlers, onUpdate, handoffAfterMs };
}

/** The call's input handlers: the bridge's, each told which framework tool call asks. */
export function callInputHandlers(
  handlers: BridgeInputHandlers | undefined,
  toolCallId: string | undefined,
): InputHandlers | undefined {
  if (handlers === undefined) return undefined;
  const own: InputHandlers = {};
  const { elicitation, sampling, roots } = handlers;
  if (elicitation) own.elicitation = (params, context) => elicitation(params, { ...context, toolCallId });
  if (sampling) own.sampling = (params, context) => sampling(params, { ...context, toolCallId });
  if (roots) own.roots = (params, context) => roots(params, { ...context, toolCallId });
  return own;
}

/** The tool's input schema as JSON Schema, as the server gave it (an object schema when it gave none). */
export function inputSchemaOf(tool: ToolInfo): Record<string, unknown> {
  const schema = tool.inputSchema;
  if (schema !== undefined && typeof schema === "object" && schema !== null) return schema;
  return { type: "object", properties: {} };
}
