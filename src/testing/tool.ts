/**
 * A scripted tool: what `tools/list` shows, whether a call becomes a task, and the steps the task
 * goes through. {@link defineTool} checks a definition once, so the server can trust it afterwards.
 */
import { ToolDefinitionError } from "./errors.js";
import type { Step } from "./steps.js";

/**
 * Whether a call becomes a task. `"required"`: only as a task (`-32021` when the request did not
 * declare the extension). `"optional"`: a task when declared, otherwise the script runs synchronously.
 * `"never"`: always synchronous.
 */
export type TaskSupport = "required" | "optional" | "never";

/**
 * How a task's script advances: one step per `tasks/get` (`"poll"`, deterministic without any
 * timer), or one step every `everyMs` milliseconds on the server's clock (fake timers drive it).
 * Without a task, `"poll"` runs every step at once and `everyMs` waits between steps.
 */
export type Advance = "poll" | { readonly everyMs: number };

/** A value, or a function that computes it from the call's `arguments`. */
export type FromArguments<T> = T | ((args: Readonly<Record<string, unknown>>) => T);

/** What to do with `tasks/cancel`: end the task as `cancelled` at once, or acknowledge and carry on. */
export type CancelPolicy = "honour" | "ignore";

/** A scripted tool. See {@link defineTool}. */
export interface ToolDefinition {
  /** The tool name clients call. */
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** JSON Schema of the arguments, shown in `tools/list`. Default `{ type: "object" }`. Arguments are not validated. */
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  /**
   * JSON Schema of the tool's `structuredContent`, shown in `tools/list` (both protocol generations) as it is
   * written: clients check results against it (`validateOutput`), and `mcp-tasks types` makes the result type from
   * it. The server does not check its own results, so a script can send one that does not match on purpose.
   */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** Default `"optional"`. */
  readonly task?: TaskSupport;
  /** Default `"poll"`. */
  readonly advance?: FromArguments<Advance>;
  /**
   * Multi round-trip (MRTR) rounds resolved on the `tools/call` request itself before a task is
   * created: each `step.input` becomes an `input_required` result with `inputRequests` and a signed
   * `requestState`; the retry's `inputResponses` answer it. Other steps here run synchronously, so a
   * `step.complete` answers the call without creating a task.
   */
  readonly beforeTask?: FromArguments<readonly Step[]>;
  /** The task's script. A script that ends without a terminal step leaves the task where it is. */
  readonly steps: FromArguments<readonly Step[]>;
  /** `ttlMs` of new tasks; `null` = unlimited. Default 300 000. */
  readonly ttlMs?: number | null;
  /** `pollIntervalMs` of new tasks; `undefined` omits it. Default 100. */
  readonly pollIntervalMs?: number;
  /** Status message of new tasks. */
  readonly statusMessage?: string;
  /** Default `"honour"`. */
  readonly onCancel?: CancelPolicy;
  /** Misbehave: answer with a `CreateTaskResult` even when the request did not declare the extension. */
  readonly createTaskWhenUndeclared?: boolean;
}

/** The defaults {@link defineTool} fills in. */
export const TOOL_DEFAULTS = {
  task: "optional",
  advance: "poll",
  ttlMs: 300_000,
  pollIntervalMs: 100,
  onCancel: "honour",
} as const;

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function fail(name: string, problem: string): never {
  throw new ToolDefinitionError(`tool "${name}": ${problem}`);
}

function checkAdvance(name: string, advance: Advance): void {
  if (advance === "poll") return;
  if (typeof advance !== "object" || !Number.isFinite(advance.everyMs) || advance.everyMs < 0) {
    fail(name, `advance must be "poll" or { everyMs: a finite number >= 0 }, got ${JSON.stringify(advance)}`);
  }
}

/**
 * Define a scripted tool for {@link startTaskServer}.
 *
 * ```ts
 * const deploy = defineTool({
 *   name: "deploy",
 *   task: "required",
 *   steps: [
 *     step.working("Building"),
 *     step.input({ confirm: elicitForm("Ship it?", { ok: { type: "boolean" } }, ["ok"]) }),
 *     step.complete((call) => textResult(acceptedContent(call, "confirm")?.ok ? "shipped" : "held")),
 *   ],
 * });
 * ```
 *
 * @throws {ToolDefinitionError} when a field is malformed; the message names it.
 */
export function defineTool(definition: ToolDefinition): ToolDefinition {
  const { name } = definition;
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    fail(String(name), "name must be 1-128 characters of A-Z, a-z, 0-9, _, - or .");
  }
  if (definition.task !== undefined && !["required", "optional", "never"].includes(definition.task)) {
    fail(name, `task must be "required", "optional" or "never", got ${JSON.stringify(definition.task)}`);
  }
  for (const field of ["inputSchema", "outputSchema"] as const) {
    const schema: unknown = definition[field];
    if (schema !== undefined && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
      fail(name, `${field} must be a JSON Schema object`);
    }
  }
  if (typeof definition.steps !== "function" && !Array.isArray(definition.steps)) {
    fail(name, "steps must be an array of steps or a function returning one");
  }
  if (definition.advance !== undefined && typeof definition.advance !== "function") {
    checkAdvance(name, definition.advance);
  }
  const ttl = definition.ttlMs;
  if (ttl !== undefined && ttl !== null && (!Number.isInteger(ttl) || ttl <= 0)) {
    fail(name, `ttlMs must be a positive integer or null, got ${String(ttl)}`);
  }
  if (definition.onCancel !== undefined && !["honour", "ignore"].includes(definition.onCancel)) {
    fail(name, `onCancel must be "honour" or "ignore", got ${JSON.stringify(definition.onCancel)}`);
  }
  return Object.freeze({ ...definition });
}

/** Resolve a {@link FromArguments} value for one call, checking what a function returned. */
export function resolveAdvance(tool: ToolDefinition, args: Readonly<Record<string, unknown>>): Advance {
  const value = tool.advance ?? TOOL_DEFAULTS.advance;
  const advance = typeof value === "function" ? value(args) : value;
  checkAdvance(tool.name, advance);
  return advance;
}

/** The steps of one phase for one call. */
export function resolveSteps(
  tool: ToolDefinition,
  phase: "beforeTask" | "steps",
  args: Readonly<Record<string, unknown>>,
): readonly Step[] {
  const value = tool[phase] ?? [];
  const steps = typeof value === "function" ? value(args) : value;
  if (!Array.isArray(steps)) fail(tool.name, `${phase} must produce an array of steps`);
  return steps;
}
