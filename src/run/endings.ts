/**
 * From a lifecycle `Ending` to the outcome the handle reports. The transition says *why* a handle ends; the
 * typed errors (with the task id, redacted messages and the cancel reason) are made here, in one place.
 */
import type { CallToolResult, DetailedTask } from "../schema/index.js";
import {
  AuthError,
  McpTasksError,
  ProtocolError,
  RpcError,
  TaskCancelledError,
  TaskEndedError,
  TaskFailedError,
  isTransientError,
  redactIn,
} from "../protocol/errors.js";
import type { CallState, Ending } from "../lifecycle/types.js";
import type { OutcomeMapper, TaskOutcome, TaskSink } from "../task/types.js";
import { parseCallToolResult } from "../protocol/codec.js";
import { ErrorCode, Method } from "../protocol/constants.js";
import type { OutputCheck } from "../tools/output-checks.js";

/**
 * The outcome for an ending; a terminal snapshot is handed back so the handle maps it (and shows it) itself. A
 * result goes through `check`, the tool's output schema check, when there is one.
 */
export function outcomeOf(
  ending: Ending,
  state: CallState,
  check?: OutputCheck,
): TaskOutcome<CallToolResult> | { snapshot: DetailedTask } {
  const taskId = state.taskId;
  const reason = state.cancel?.reason;
  switch (ending.kind) {
    case "result": {
      const error = check?.(ending.result, Method.toolsCall, undefined);
      if (error !== undefined) return { kind: "error", taskId: undefined, error };
      return { kind: "completed", taskId: undefined, result: ending.result };
    }
    case "snapshot":
      return { snapshot: ending.snapshot };
    case "local":
      switch (ending.reason) {
        case "detached":
          return { kind: "detached", taskId, error: new TaskEndedError("detached", taskId) };
        case "closed":
          return { kind: "closed", taskId, error: new TaskEndedError("closed", taskId) };
        case "deadline_exceeded":
          return {
            kind: "deadline_exceeded",
            taskId,
            error: new TaskEndedError("deadline_exceeded", taskId, {
              deadline: new Date(state.deadline ?? Date.now()),
            }),
          };
        case "expired":
          return {
            kind: "expired",
            taskId: taskId as string,
            error: new TaskEndedError("expired", taskId as string, {
              expiredAt: new Date(state.ttl?.lapsesAt ?? Number.NaN),
            }),
          };
        case "not_found": {
          const message = ending.error instanceof RpcError ? ending.error.rpcMessage : String(ending.error);
          const id = taskId as string;
          return {
            kind: "not_found",
            taskId: id,
            error: new TaskEndedError("not_found", id, { rpcMessage: redactIn(message, id) }),
          };
        }
        case "cancel_unconfirmed":
        case "cancelled_before_task":
          return { kind: "cancelled", taskId, error: new TaskCancelledError(taskId, false, reason) };
        case "error":
          return errorOutcome(ending.error, taskId);
      }
  }
}

/** Ends the handle: a terminal snapshot goes through the handle (which maps and shows it), anything else at once. */
export function settle(
  sink: TaskSink<CallToolResult>,
  ending: Ending,
  state: CallState,
  toOutcome: (state: CallState, check?: OutputCheck) => OutcomeMapper<CallToolResult>,
  check: OutputCheck | undefined,
): void {
  const outcome = outcomeOf(ending, state, check);
  if ("snapshot" in outcome) sink.accept(outcome.snapshot, toOutcome(state, check));
  else sink.settle(outcome);
}

function errorOutcome(error: unknown, taskId: string | undefined): TaskOutcome<CallToolResult> {
  if (error instanceof TaskCancelledError) return { kind: "cancelled", taskId, error };
  // The request failed on authorization, not the task: the error names the task, so it can be followed again.
  if (error instanceof AuthError && taskId !== undefined)
    return { kind: "error", taskId, error: error.forTask(taskId) };
  if (error instanceof McpTasksError) {
    if (taskId !== undefined) error.message = redactIn(error.message, taskId);
    return { kind: "error", taskId, error };
  }
  return { kind: "error", taskId, error: new McpTasksError(String(error), { cause: error }) };
}

/**
 * The outcome of a terminal snapshot of a `tools/call` task: the result is validated as a `CallToolResult`, then
 * against the tool's output schema when `check` is given (a mismatch ends the handle with `OutputSchemaError`).
 */
export function toolOutcome(state: CallState, check?: OutputCheck): OutcomeMapper<CallToolResult> {
  return (snapshot) => {
    switch (snapshot.status) {
      case "completed": {
        const result = parseCallToolResult(snapshot.result, Method.tasksGet);
        const error = check?.(result, Method.tasksGet, snapshot.taskId);
        if (error !== undefined) return { kind: "error", taskId: snapshot.taskId, error };
        return { kind: "completed", taskId: snapshot.taskId, result };
      }
      case "failed":
        return {
          kind: "failed",
          taskId: snapshot.taskId,
          error: new TaskFailedError(snapshot.taskId, snapshot.error, snapshot.statusMessage),
        };
      case "cancelled":
        return {
          kind: "cancelled",
          taskId: snapshot.taskId,
          error: new TaskCancelledError(snapshot.taskId, true, state.cancel?.reason),
        };
      default:
        throw new ProtocolError(`status "${String(snapshot)}" is not terminal`, Method.tasksGet, snapshot);
    }
  };
}

/** How a failed `tasks/get` counts: -32602 means the task is gone; transient faults are retried. */
export function pollFault(error: unknown): "not_found" | "transient" | "fatal" {
  if (error instanceof RpcError && error.code === ErrorCode.invalidParams) return "not_found";
  return isTransientError(error) ? "transient" : "fatal";
}
