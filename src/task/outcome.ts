/**
 * From a terminal snapshot to an outcome, and from an outcome to what awaiting a handle gives. Kept apart from
 * the handle so the rule "a tool result with `isError: true` is a completed task; `failed` means a JSON-RPC
 * error" lives in one place.
 */
import type { DetailedTask, FailedTask } from "../schema/index.js";
import { Method, isTerminalStatus } from "../protocol/constants.js";
import { McpTasksError, ProtocolError, TaskCancelledError, TaskFailedError } from "../protocol/errors.js";
import type { OutcomeMapper, TaskOutcome, TerminalTask } from "./types.js";

/**
 * The mapping used when the driver gives none: `completed` → the result as is, `failed` → `TaskFailedError`
 * with the JSON-RPC error, `cancelled` → a confirmed `TaskCancelledError`. A status without its payload
 * (`completed` without `result`, `failed` without a readable `error`) is a protocol violation.
 */
export function outcomeOfSnapshot<T>(snapshot: TerminalTask): TaskOutcome<T> {
  const taskId = snapshot.taskId;
  switch (snapshot.status) {
    case "completed":
      if (typeof snapshot.result !== "object" || snapshot.result === null) {
        return violation(taskId, "a completed task carries no result", snapshot);
      }
      return { kind: "completed", taskId, result: snapshot.result as T };
    case "failed": {
      const error = snapshot.error as Partial<FailedTask["error"]> | undefined;
      if (typeof error?.code !== "number" || typeof error.message !== "string") {
        return violation(taskId, "a failed task carries no JSON-RPC error", snapshot);
      }
      return {
        kind: "failed",
        taskId,
        error: new TaskFailedError(taskId, snapshot.error, snapshot.statusMessage),
      };
    }
    case "cancelled":
      return { kind: "cancelled", taskId, error: new TaskCancelledError(taskId, true) };
  }
}

/** Calls the mapper; a mapper that throws ends the handle with kind `error` instead of breaking the driver. */
export function mapTerminal<T>(snapshot: TerminalTask, mapper: OutcomeMapper<T>): TaskOutcome<T> {
  try {
    return mapper(snapshot);
  } catch (error) {
    if (error instanceof McpTasksError) return { kind: "error", taskId: snapshot.taskId, error };
    return violation(snapshot.taskId, "the final task state could not be read", snapshot, error);
  }
}

/** Whether a snapshot is terminal, narrowing its type. */
export function isTerminalTask(snapshot: DetailedTask): snapshot is TerminalTask {
  return isTerminalStatus(snapshot.status);
}

/** The value awaiting a handle resolves with, or the error it rejects with. */
export function resultOf<T>(outcome: TaskOutcome<T>): T {
  if (outcome.kind === "completed") return outcome.result;
  throw outcome.error;
}

function violation<T>(
  taskId: string,
  message: string,
  snapshot: TerminalTask,
  cause?: unknown,
): TaskOutcome<T> {
  return { kind: "error", taskId, error: new ProtocolError(message, Method.tasksGet, snapshot, { cause }) };
}
