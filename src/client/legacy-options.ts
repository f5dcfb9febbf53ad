/** Checks of the 2025-11-25 options (`legacyTasks`, `taskTtlMs`), kept beside options.ts so it stays short. */
import { Method } from "../protocol/constants.js";
import type { LegacyTasksMode } from "./dialect.js";
import type { CallToolOptions } from "./options.js";
import type { CallSpec } from "./run-context.js";

/** The mode, or undefined when not given; anything else is a caller mistake. */
export function legacyTasksMode(where: string, value: unknown): LegacyTasksMode | undefined {
  if (value === undefined || value === "auto" || value === "never") return value;
  throw new RangeError(`${where}: \`legacyTasks\` must be "auto" or "never"`);
}

export function checkLegacyCallOptions(options: { legacyTasks?: unknown; taskTtlMs?: unknown }): void {
  legacyTasksMode("callTool", options.legacyTasks);
  const ttl = options.taskTtlMs;
  if (ttl !== undefined && !(typeof ttl === "number" && Number.isSafeInteger(ttl) && ttl > 0)) {
    throw new TypeError("callTool: `taskTtlMs` must be a positive whole number of milliseconds");
  }
}

/** What `callTool` sends, with the 2025-11-25 options the dialect reads. */
export function callSpec(name: string, params: Record<string, unknown>, options: CallToolOptions): CallSpec {
  const call: CallSpec = { method: Method.toolsCall, params, toolName: name };
  if (options.legacyTasks !== undefined) call.legacyTasks = options.legacyTasks;
  if (options.taskTtlMs !== undefined) call.taskTtlMs = options.taskTtlMs;
  return call;
}
