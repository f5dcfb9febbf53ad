/**
 * The tools a bridge offers, framework-neutral: one per selected server tool, plus `task_status` and
 * `task_cancel` in hand-off mode. Each bridge turns these into its framework's tool objects.
 */
import { finalStep, runCall, statusStep, type CallSite, type Step } from "./call.js";
import { bookOf } from "./handed-off.js";
import { HANDOFF_TOOL_NAMES, inputSchemaOf, setUp, type BridgeOptions, type BridgeSetup } from "./options.js";
import type { BridgeTarget } from "./source.js";

export interface BridgedTool {
  /** The name the model sees (with the prefix). */
  name: string;
  /** The name its source calls it by (on a host, the qualified name), or the hand-off tool's own name. */
  toolName: string;
  description: string;
  /** JSON Schema of the arguments, as the server gave it. */
  inputSchema: Record<string, unknown>;
  /** Runs one call: status steps, then exactly one final step. */
  run(args: unknown, site: CallSite): AsyncGenerator<Step>;
}

/** Every tool of the bridge, in the server's (or the host's) order, the hand-off tools last. */
export async function bridgedTools(
  bridge: string,
  target: BridgeTarget,
  options?: BridgeOptions,
): Promise<BridgedTool[]> {
  const setup = await setUp(bridge, target, options);
  const tools: BridgedTool[] = setup.tools.map((sourced) => ({
    name: `${setup.prefix}${sourced.callName}`,
    toolName: sourced.callName,
    description: sourced.tool.description ?? `The MCP tool "${sourced.tool.name}".`,
    inputSchema: inputSchemaOf(sourced.tool),
    run: (args, site) => runCall(setup, sourced, args, site),
  }));
  return setup.handoffAfterMs === undefined ? tools : [...tools, ...handoffTools(setup)];
}

const REF_SCHEMA = {
  type: "object",
  properties: {
    ref: { type: "string", description: "The task ref from the note, e.g. task_0123456789abcdef." },
  },
  required: ["ref"],
  additionalProperties: false,
};

function refArgument(args: unknown): string {
  const ref = (args as { ref?: unknown } | null)?.ref;
  return typeof ref === "string" ? ref : "";
}

function unknownRef(ref: string): Step {
  return { type: "error", message: `No handed-off task ${JSON.stringify(ref)} is known to this client.` };
}

function handoffTools(setup: BridgeSetup): BridgedTool[] {
  const book = bookOf(setup.source.target);
  const [status, cancel] = HANDOFF_TOOL_NAMES;
  return [
    {
      name: `${setup.prefix}${status}`,
      toolName: status,
      description:
        "Checks on a task that was handed off (a tool answered that it is still running as task_…): " +
        "returns its result when it has ended, otherwise its current status.",
      inputSchema: REF_SCHEMA,
      async *run(args) {
        const ref = refArgument(args);
        const task = await book.get(ref);
        if (task === undefined) return yield unknownRef(ref);
        const { handle, toolName } = task;
        if (handle.isSettled) return yield finalStep(toolName, await handle.outcome());
        const { status, statusMessage } = statusStep({
          status: handle.status ?? "working",
          statusMessage: handle.snapshot?.statusMessage,
        });
        const detail = statusMessage === undefined ? "" : `: ${statusMessage}`;
        yield {
          type: "note",
          message: `Task ${ref} ("${toolName}") is still running (${status}${detail}).`,
          ref,
        };
      },
    },
    {
      name: `${setup.prefix}${cancel}`,
      toolName: cancel,
      description: "Cancels a task that was handed off (a tool answered that it is still running as task_…).",
      inputSchema: REF_SCHEMA,
      async *run(args) {
        const ref = refArgument(args);
        const task = await book.get(ref);
        if (task === undefined) return yield unknownRef(ref);
        const { outcome } = await task.handle.cancel();
        // Cancellation is cooperative: a task that completed anyway reports its result.
        if (outcome.kind === "cancelled" && outcome.error.confirmed)
          return yield { type: "note", message: `Task ${ref} ("${task.toolName}") was cancelled.`, ref };
        yield finalStep(task.toolName, outcome);
      },
    },
  ];
}
