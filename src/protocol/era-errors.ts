/**
 * Errors about what a server's protocol generation can or cannot do. Kept apart from `errors.ts` (the task
 * outcomes) because they are refusals made before any task is followed.
 */
import { McpTasksError, OrphanedTaskError, brandErrorClass } from "./errors.js";

/**
 * The server lacks what the operation needs (no tasks support at all, no `tasks/list`). Thrown at once, before
 * anything is sent, instead of retrying a request the server can never answer. `missing` names what is missing.
 */
export class UnsupportedError extends McpTasksError {
  static {
    brandErrorClass(this, "UnsupportedError");
  }
  override name = "UnsupportedError";
  constructor(
    /** What was asked for, e.g. `TaskClient.task`. */
    readonly operation: string,
    /** What the server would need to offer, e.g. `tasks (capabilities.tasks)`. */
    readonly missing: string,
  ) {
    super(`${operation}: the server does not support ${missing}`);
  }
}

/**
 * A plain (not task-augmented) `tools/call` was answered with a result that carries a task: a placeholder
 * while the real work runs on the server. Such a result is never reported as completed; when the client cannot
 * follow that task, the handle ends with this error, which carries the task's id. No `tasks/cancel` is sent for
 * it: the task is the server's, and the caller may still follow it another way.
 */
export class UnrequestedTaskError extends OrphanedTaskError {
  static {
    brandErrorClass(this, "UnrequestedTaskError");
  }
  override name = "UnrequestedTaskError";
}
