/**
 * Which scripting options the 2025-11-25 mode takes. Most carry over (tools, steps, delays, faults,
 * clock); the ones that only mean something in the 2026-07-28 extension are refused up front with an
 * error that names them, rather than silently ignored.
 */
import { ToolDefinitionError } from "../errors.js";
import type { ToolDefinition } from "../tool.js";

/** The options of either transport that a 2025-11-25 server cannot honour, by name. */
export const REFUSED_IN_2025 = {
  listen:
    "task listen streams (subscriptions/listen) are 2026-07-28 only; 2025 pushes notifications/tasks/status",
  taskShapedPrompt: "the task-shaped prompt misbehaves in the 2026-07-28 result envelope",
  allowOrigins: "CORS is served by the 2026-07-28 HTTP front only",
} as const;

/** Tool fields the 2025-11-25 mode refuses. */
const REFUSED_TOOL_FIELDS = {
  createTaskWhenUndeclared:
    "in 2025-11-25 the client asks for a task (params.task), the server never decides on its own",
} as const;

/** The error for options that do not apply to the chosen era. */
export class EraOptionError extends Error {
  override readonly name = "EraOptionError";
}

/** @throws {EraOptionError} naming every 2026-only option that is set. */
export function refuse2026Options(options: object): void {
  const set = Object.entries(REFUSED_IN_2025).filter(
    ([name]) =>
      (options as Record<string, unknown>)[name] !== undefined &&
      (options as Record<string, unknown>)[name] !== false,
  );
  if (set.length === 0) return;
  throw new EraOptionError(
    `era "2025-11-25" does not support ${set.map(([name, why]) => `${name} (${why})`).join("; ")}`,
  );
}

/** @throws {ToolDefinitionError} for a tool that uses a 2026-only field. */
export function refuse2026ToolFields(tools: readonly ToolDefinition[]): void {
  for (const tool of tools) {
    for (const [field, why] of Object.entries(REFUSED_TOOL_FIELDS)) {
      if ((tool as unknown as Record<string, unknown>)[field] !== undefined) {
        throw new ToolDefinitionError(
          `tool "${tool.name}": ${field} is not supported in era "2025-11-25": ${why}`,
        );
      }
    }
  }
}

/** @throws {EraOptionError} when a 2025-only option is given to a 2026-07-28 server. */
export function refuse2025Options(options: { taskListPageSize?: unknown }): void {
  if (options.taskListPageSize !== undefined) {
    throw new EraOptionError(
      'taskListPageSize applies only to era "2025-11-25" (2026-07-28 has no tasks/list)',
    );
  }
}

/** The page size of `tasks/list`: a positive integer, default 10 (as the v1 SDK's in-memory store). */
export function pageSizeOf(value: number | undefined): number {
  if (value === undefined) return 10;
  if (!Number.isInteger(value) || value < 1) {
    throw new EraOptionError(`taskListPageSize must be a positive integer, got ${String(value)}`);
  }
  return value;
}
