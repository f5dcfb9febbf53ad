/**
 * `mcp-tasks/temporal`: call an MCP tool from inside a Temporal activity so that it runs once, however often the
 * activity is retried (decision 21: the engine holds the ref). The first attempt calls the tool and records the
 * task's ref in the activity's heartbeat details the moment the server names the task; a retry reads it back and
 * follows that task with `client.task(ref)`. Loads `@temporalio/activity` and `@temporalio/common` (optional peer
 * dependencies) and the core by the package's name.
 *
 * @module mcp-tasks/temporal
 */
import { Context } from "@temporalio/activity";
import { ApplicationFailure, CancelledFailure } from "@temporalio/common";
import type {
  CallToolOptions,
  CallToolResult,
  TaskClient,
  TaskHandle,
  TaskOutcome,
  TaskRef,
} from "mcp-tasks";
import { endingOf } from "./endings.js";
import { detailsOf, readPreviousAttempt } from "./temporal-details.js";
import { heartbeatEveryMs } from "./temporal-heartbeat.js";

export { ActivityDetailsError, type ToolActivityDetails } from "./temporal-details.js";
export type { EndingDetails } from "./endings.js";

/** The client to call through: a connected `TaskClient`, or a function that returns one (called once per attempt). */
export type ToolActivityClient = TaskClient | (() => TaskClient | Promise<TaskClient>);

/** Options of {@link callToolInActivity}. */
export interface ToolActivityOptions extends Pick<
  CallToolOptions,
  "meta" | "inputHandlers" | "legacyTasks" | "taskTtlMs"
> {
  /**
   * How often to heartbeat while the call is unanswered and while the task runs. Default: a third of the
   * activity's heartbeat timeout, or 10 s without one; always within [10 ms, 10 s].
   */
  heartbeatEveryMs?: number;
  /**
   * What a retry does when the previous attempt's `tools/call` had gone out but its answer had not come when
   * the attempt ended (the details record a call and no task): `"fail"` (the default) ends the activity with a
   * non-retryable `UnconfirmedToolCall` failure, since the server may have created a task nobody can name;
   * `"call-again"` calls the tool again, for tools that are safe to run twice.
   */
  unconfirmedCall?: "fail" | "call-again";
}

/** The `type` of the failure a retry ends with when a previous attempt's call may have created an unknown task. */
export const UNCONFIRMED_TOOL_CALL = "UnconfirmedToolCall";

/**
 * Calls the tool `name` from inside a Temporal activity and resolves with its result; on a retry of the
 * activity, follows the task the earlier attempt created instead of calling the tool again.
 *
 * - **Heartbeats**: the first heartbeat carries the task's ref (`ToolActivityDetails`), sent as soon as the
 *   server has named the task; then one every `heartbeatEveryMs` with the task's status. Give the activity a
 *   `heartbeatTimeout`, so that Temporal notices a dead worker and retries soon.
 * - **Retries**: an attempt whose heartbeat details hold a ref follows that task (`client.task(ref)`), never
 *   calling the tool again.
 * - **Cancellation** (delivered by Temporal in answer to a heartbeat): when the workflow asked for it, one
 *   `tasks/cancel`, then `CancelledFailure`; when the worker shuts down, the attempt timed out or the activity was
 *   paused or reset, the task is left running for the next attempt to follow, and the activity ends with the
 *   same `CancelledFailure`. A task that completes anyway returns its result.
 * - **Endings**: a completed task returns its `CallToolResult` (a tool error, `isError: true`, included). Other
 *   endings throw an `ApplicationFailure` whose `type` is the mcp-tasks error's name (`TaskFailedError`,
 *   `TransportError`, …) and whose first detail is `{ taskId, code?, rpcMessage?, data?, kind? }`: retryable for a
 *   transient transport fault, a closed client or a detached handle (the retry follows the same task), and
 *   non-retryable for the rest (a failed, cancelled, forgotten or expired task, a protocol violation).
 *
 * Needs a regular activity: a local activity has no heartbeat details, and is refused.
 */
export async function callToolInActivity(
  client: ToolActivityClient,
  name: string,
  args: Record<string, unknown> = {},
  options: ToolActivityOptions = {},
): Promise<CallToolResult> {
  const context = Context.current();
  const { heartbeatEveryMs: chosenMs, unconfirmedCall = "fail", ...callOptions } = options;
  if (context.info.isLocal) {
    throw ApplicationFailure.nonRetryable(
      "callToolInActivity needs a regular activity: a local activity records no heartbeat details, so its " +
        "retry could not find the task and would call the tool again",
      "LocalActivityRefused",
    );
  }
  let handle: TaskHandle;
  try {
    const previous = readPreviousAttempt(context.info.heartbeatDetails, name);
    if (previous.kind === "unconfirmed-call" && unconfirmedCall === "fail") {
      throw ApplicationFailure.nonRetryable(
        `a previous attempt called "${name}" and ended before the server answered: the server may have ` +
          "created a task that nobody can name, so the tool is not called again (unconfirmedCall: " +
          '"call-again" allows it)',
        UNCONFIRMED_TOOL_CALL,
      );
    }
    const cancellation = context.cancellationSignal;
    if (cancellation.aborted) throw cancelledFailure(cancellation.reason, undefined);
    const taskClient = typeof client === "function" ? await client() : client;
    const { meta, ...taskOptions } = callOptions;
    handle =
      previous.kind === "task"
        ? taskClient.task(previous.ref, taskOptions)
        : taskClient.callTool(name, args, { ...taskOptions, meta });
  } catch (error) {
    throw failureOf(error);
  }
  const ending = await follow(
    context,
    handle,
    name,
    heartbeatEveryMs(context.info.heartbeatTimeoutMs, chosenMs),
  );
  if (ending.kind === "completed") return ending.result;
  if (ending.kind === "left" || context.cancellationSignal.aborted) {
    throw cancelledFailure(context.cancellationSignal.reason, ending);
  }
  throw failureOf(ending.error, ending.taskId);
}

/** How following ended: the handle's outcome, or `left` (the attempt ends while the task runs on). */
type FollowEnding = TaskOutcome | { kind: "left"; taskId: string | undefined };

/**
 * Follows the handle to its end: records the ref at once, heartbeats with its status, and turns the activity's
 * cancellation into one `tasks/cancel` (the workflow asked: the outcome says what the server made of it, within
 * the client's `cancelGraceMs`) or into leaving at once (anything else: the task runs on for the next attempt, and
 * a call still unanswered is not waited for).
 */
async function follow(
  context: Context,
  handle: TaskHandle,
  tool: string,
  everyMs: number,
): Promise<FollowEnding> {
  let ref: TaskRef | undefined;
  let ended = false;
  const beat = () => {
    if (ended) return;
    const snapshot = handle.snapshot;
    context.heartbeat(detailsOf(tool, ref, snapshot?.status, snapshot?.statusMessage));
  };
  // The ref's heartbeat is the attempt's first (unless the call outlived a heartbeat interval): the worker sends
  // a first heartbeat at once and throttles the ones after it.
  void handle.ref.then((created) => {
    if (created === undefined) return;
    ref = created;
    beat();
  });
  // The ref changes when input is answered (its answered keys): keep the latest for the next beat.
  const refresh = () => void handle.ref.then((latest) => (ref = latest ?? ref));
  handle.on("update", refresh);
  const timer = setInterval(beat, everyMs);
  const signal = context.cancellationSignal;
  let leave!: (ending: FollowEnding) => void;
  const left = new Promise<FollowEnding>((resolve) => (leave = resolve));
  const onCancel = () => {
    ended = true;
    clearInterval(timer);
    if (cancelRequested(context)) {
      void handle.cancel(signal.reason);
    } else {
      handle.detach();
      leave({ kind: "left", taskId: handle.taskId });
    }
  };
  signal.addEventListener("abort", onCancel, { once: true });
  if (signal.aborted) onCancel(); // while the client was being made
  try {
    return await Promise.race([handle.outcome(), left]);
  } finally {
    ended = true;
    clearInterval(timer);
    signal.removeEventListener("abort", onCancel);
    handle.off("update", refresh);
  }
}

/**
 * Whether the workflow (or a user) asked for the activity's cancellation, as opposed to the worker shutting
 * down, a timeout, a pause or a reset: only then is the task itself cancelled.
 */
function cancelRequested(context: Context): boolean {
  const details = context.cancellationDetails;
  if (details !== undefined) return details.cancelRequested;
  const reason: unknown = context.cancellationSignal.reason;
  return reason instanceof CancelledFailure && reason.message === "CANCELLED";
}

/** The activity's cancellation, with the task's id and how its handle ended as details. */
function cancelledFailure(reason: unknown, outcome: FollowEnding | undefined): CancelledFailure {
  const message = reason instanceof Error ? reason.message : "CANCELLED";
  const details =
    outcome === undefined
      ? []
      : [{ taskId: outcome.taskId, outcome: outcome.kind === "left" ? "detached" : outcome.kind }];
  return new CancelledFailure(message, details, reason instanceof Error ? reason : undefined);
}

/** A Temporal failure for an ending that is not a result (see src/engines/endings.ts for which are retried). */
function failureOf(error: unknown, taskId?: string): Error {
  if (error instanceof ApplicationFailure || error instanceof CancelledFailure) return error;
  const ending = endingOf(error, taskId);
  return ApplicationFailure.create({
    message: ending.message,
    type: ending.type,
    nonRetryable: !ending.retryable,
    details: [ending.details],
    cause: ending.cause instanceof Error ? ending.cause : undefined,
  });
}
