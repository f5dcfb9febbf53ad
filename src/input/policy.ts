/**
 * What happens to an input request the client cannot answer: no handler for its kind, a handler that threw or
 * returned nonsense, a request of an unknown method or with an unusable URL, or an answer the server would not
 * take. Whatever the policy, it is reported as an `inputUnanswered` event: a task never waits unnoticed.
 *
 * - `decline`: answer with `{ action: "decline" }`. Only an elicitation can be declined on the wire (there is no
 *   error variant in `InputResponses`), so for sampling, roots and unknown methods `decline` falls back to
 *   `cancel`, the next policy in line.
 * - `cancel`: cancel the task (`tasks/cancel`); the handle then reports the server's final state. Before a task
 *   exists (multi-round-trip input) the call is simply not retried, and the handle ends cancelled.
 * - `fail` (default): the handle rejects at once with `InputUnansweredError`, naming the key and the method.
 *
 * Why `fail` by default: an unanswerable request is a bug on one side (a server asking for a kind the client did
 * not declare, or an app handler that crashed). Declining would tell the server that the user refused, which the
 * user never did, and the tool would carry on as if that were their answer; cancelling hides the reason behind a
 * plain "cancelled". Failing loudly, with a typed error that carries the key, the method and the handler's error,
 * is the honest default; `decline` is one option away for hosts that prefer to degrade gracefully.
 */
import { InputUnansweredError } from "../protocol/errors.js";
import type { ElicitResult, InputRequest } from "../schema/index.js";
import type { UnansweredInputAction } from "../task/types.js";
import { INPUT_METHODS } from "./requests.js";
import type { InputUnansweredEvent } from "./types.js";

export const DEFAULT_UNANSWERED_INPUT_POLICY: UnansweredInputAction = "fail";
/** How many input requests of one task (or one round) are answered at once, by default. */
export const DEFAULT_INPUT_CONCURRENCY = 4;
/** Most multi-round-trip retries of one call before it fails, by default. */
export const DEFAULT_MAX_INPUT_ROUNDS = 10;
/** Failed `tasks/update` requests carrying the same key before the key is given up, by default. */
export const DEFAULT_MAX_UPDATE_FAILURES = 3;

/** Every policy there is. */
export const UNANSWERED_INPUT_ACTIONS: readonly UnansweredInputAction[] = ["decline", "cancel", "fail"];
const ACTIONS: ReadonlySet<string> = new Set(UNANSWERED_INPUT_ACTIONS);

/** The policy, checked: an unknown value is a caller error, not a silent default. */
export function checkPolicy(policy: UnansweredInputAction | undefined): UnansweredInputAction {
  if (policy === undefined) return DEFAULT_UNANSWERED_INPUT_POLICY;
  if (!ACTIONS.has(policy)) {
    throw new RangeError(
      `unanswered-input policy must be "decline", "cancel" or "fail", got ${String(policy)}`,
    );
  }
  return policy;
}

/**
 * The action actually taken for a request of `method`. `decline` applies to elicitations only, and only while
 * an answer can still be delivered (`canDecline` is false when the updates themselves keep failing).
 */
export function actionFor(
  policy: UnansweredInputAction,
  method: string,
  canDecline = true,
): UnansweredInputAction {
  if (policy !== "decline") return policy;
  return canDecline && method === INPUT_METHODS.elicitation ? "decline" : "cancel";
}

/** The answer sent for a declined elicitation. */
export function declined(): ElicitResult {
  return { action: "decline" };
}

/** Builds the `inputUnanswered` event, with its typed error. */
export function unansweredEvent(
  taskId: string | undefined,
  key: string,
  request: unknown,
  method: string,
  reason: string,
  action: UnansweredInputAction,
  cause?: unknown,
): InputUnansweredEvent {
  const error = new InputUnansweredError(
    taskId,
    key,
    method,
    reason,
    cause === undefined ? undefined : { cause },
  );
  return { taskId, key, request: request as InputRequest, reason, action, error };
}
