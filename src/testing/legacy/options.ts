/**
 * Which scripting options the 2025-11-25 mode takes. Most carry over (tools, steps, delays, faults,
 * clock); the ones that only mean something in the 2026-07-28 extension are refused up front with an
 * error that names them, rather than silently ignored: task listen streams (`listen`; 2025 pushes
 * `notifications/tasks/status` instead), the task-shaped prompt (a 2026 result-envelope fault), CORS
 * (`allowOrigins`, served by the 2026 HTTP front only), and a tool's `createTaskWhenUndeclared` (in 2025 the
 * client asks for a task with `params.task`; the server never decides on its own).
 */
import { McpTasksError } from "../../protocol/errors.js";
import { ToolDefinitionError } from "../errors.js";
import type { ToolDefinition } from "../tool.js";

const REFUSED_OPTIONS = ["listen", "taskShapedPrompt", "allowOrigins"];

/** The error for options that do not apply to the chosen era. */
export class EraOptionError extends McpTasksError {
  static override readonly errorName: string = "EraOptionError";
}

/** @throws {EraOptionError} naming every 2026-only option that is set; {@link ToolDefinitionError} for a tool's. */
export function refuse2026Options(options: object, tools: readonly ToolDefinition[]): void {
  const given = options as Record<string, unknown>;
  const set = REFUSED_OPTIONS.filter((name) => given[name] !== undefined && given[name] !== false);
  if (set.length > 0)
    throw new EraOptionError(`era "2025-11-25" does not support ${set.join(", ")} (2026-07-28 only)`);
  refuse2026Tools(tools);
}

/** @throws {ToolDefinitionError} for a tool that uses a 2026-07-28 option (`createTaskWhenUndeclared`). */
export function refuse2026Tools(tools: readonly ToolDefinition[]): void {
  const eager = tools.find((tool) => tool.createTaskWhenUndeclared !== undefined);
  if (eager !== undefined) {
    throw new ToolDefinitionError(
      `tool "${eager.name}": createTaskWhenUndeclared is 2026-07-28 only; in 2025-11-25 the client asks for a task`,
    );
  }
}

/**
 * The page size of `tasks/list`: a positive integer, default 10 (as the v1 SDK's in-memory store).
 * @throws {EraOptionError} for anything else.
 */
export function pageSizeOf(value: number | undefined): number {
  if (value === undefined) return 10;
  if (!Number.isInteger(value) || value < 1) {
    throw new EraOptionError(`taskListPageSize must be a positive integer, got ${String(value)}`);
  }
  return value;
}
