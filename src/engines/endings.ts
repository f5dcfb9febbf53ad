/**
 * The one owner of how a durable engine treats a tool call that did not end with a result (decision 21): whether
 * the engine may retry the step, and what the failure carries. The rule, in full:
 * - Retried: a transport fault the client deems transient (network errors, HTTP 5xx and 429, timeouts) once its
 *   own retries ran out, a refused credential (`AuthError`: the request failed, not the task, which a later
 *   attempt follows once authorization is back), a client that was closed, and a handle that was detached. The
 *   task may still run, and a retried step follows the same task through the ref the engine recorded; when the
 *   call itself failed (no task was named), the retry calls the tool again.
 * - Not retried: everything else. The task's own endings (failed, cancelled by the server, not found, expired)
 *   would end the same way on the next attempt, since a retry follows the same task, and calling the tool anew
 *   is what the engine integration exists to prevent. A protocol violation, a refused request, a bad ref, a
 *   caller's deadline and our own bugs are not fixed by waiting either.
 * Engine-neutral: each engine entry turns an {@link Ending} into its own failure type.
 */
import { AuthError, McpTasksError, TaskEndedError, TaskFailedError, TransportError } from "mcp-tasks";

/** How a step that ended without a result is reported to its engine. */
export interface Ending {
  /** Whether the engine may run the step again (it then follows the same task, never calls the tool again). */
  retryable: boolean;
  /** The error's class name (`TaskFailedError`, `TransportError`, …): what an engine failure's type says. */
  type: string;
  /** The error's message (task ids redacted, as in every mcp-tasks message). */
  message: string;
  /** Plain JSON for the engine's failure details: the task id, and a failed task's JSON-RPC error. */
  details: EndingDetails;
  /** The error itself, as the failure's cause. */
  cause: unknown;
}

/** What a failure carries besides its message: plain JSON, so every engine can store it. */
export interface EndingDetails {
  taskId?: string;
  /** A failed task's JSON-RPC error code. */
  code?: number;
  /** A failed task's JSON-RPC error message (untrusted server text). */
  rpcMessage?: string;
  /** A failed task's JSON-RPC error data (untrusted server JSON). */
  data?: unknown;
  /** How a `TaskEndedError` ended the handle (`not_found`, `expired`, `closed`, …). */
  kind?: string;
}

/**
 * Classifies why a step ended without a result: the handle's outcome error, or what a call threw. `taskId` is
 * the outcome's (errors that are not about a task, such as a transport fault, do not carry it).
 */
export function endingOf(error: unknown, taskId?: string): Ending {
  const retryable =
    (error instanceof TransportError && error.transient) ||
    error instanceof AuthError ||
    (error instanceof TaskEndedError && (error.kind === "closed" || error.kind === "detached"));
  const details: EndingDetails = {};
  const carried = error instanceof McpTasksError ? (error as { taskId?: unknown }).taskId : undefined;
  const id = taskId ?? carried;
  if (typeof id === "string") details.taskId = id;
  if (error instanceof TaskEndedError) details.kind = error.kind;
  if (error instanceof TaskFailedError) {
    details.code = error.code;
    details.rpcMessage = error.rpcMessage;
    if (error.data !== undefined) details.data = error.data;
  }
  return {
    retryable,
    type: error instanceof Error ? error.name : "Error",
    message: error instanceof Error ? error.message : String(error),
    details,
    cause: error,
  };
}
