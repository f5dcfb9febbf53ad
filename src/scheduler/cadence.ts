/**
 * The one owner of a task's polling cadence (DESIGN decision 14): {@link nextPollDelay} says when the next
 * `tasks/get` of a task may go out. Every path that wants a poll (an answered or failed poll, a creation seed, a
 * resume, a cancel's answer, an acknowledged `tasks/update`, a listen acknowledgement, a broken stream, a 2025
 * status notification, the end of a push) names its {@link PollCause} and asks this function; none schedules a
 * poll by itself. Pure: no timer, no clock (the time comes in as `now`), randomness only through `random`.
 *
 * The rule, in full:
 * - The regular wait is the server's latest `pollIntervalMs`, bounded and jittered by {@link pollDelay}; while a
 *   listen stream pushes the task, `max(safetyNetMs, 10 × that)`.
 * - After a failed `tasks/get`, the wait is `max(regular wait, backoff)`: a retry never polls sooner than the
 *   server's interval.
 * - Waits are measured from the end of the last `tasks/get` (its answer or its failure), so a change of plan (a
 *   push that starts or ends) never restarts the clock, and never polls before the interval since that poll.
 * - A {@link OneShotCause} may poll at once, sooner than the interval: each is one `tasks/get` for one event that
 *   happens a bounded number of times in a task's life (or, for a broken stream, at most once per
 *   `notificationSafetyNetMs`). A one-shot asked for while a `tasks/get` is in flight is owed, not dropped: the
 *   next poll goes out as soon as that one answers (its answer may predate the event).
 * - A one-shot (owed or not) skips the interval only, never a retry's backoff: while a failed `tasks/get` waits for
 *   its retry (the server's `Retry-After` included), the poll a one-shot brings forward still waits the backoff,
 *   measured from that failure (decision 5: errors honour `Retry-After`). Otherwise a listen acknowledged
 *   during a poll that then failed with `Retry-After: 5` would send the next `tasks/get` at once.
 */
import { MAX_TIMER_DELAY_MS, pollDelay } from "./timing.js";
import type { PollTiming } from "./types.js";

/**
 * The events that may bring a poll forward, sooner than the interval. This union is the complete list (the
 * "When a task is polled" in docs/cancellation-and-time-limits.md names the same cases):
 * - `seed`: a `CreateTaskResult` whose status is not `working` (its payload is only in `tasks/get`);
 * - `resume`: the first poll of a task followed by ref or id (`client.task()`, `resume()`, adoption);
 * - `cancelAnswered`: the handle's `tasks/cancel` was acknowledged, refused, or ran out of retries (once per
 *   handle; its retries bring nothing forward);
 * - `inputSubmitted`: a `tasks/update` carrying answers was acknowledged;
 * - `listenAcknowledged`: a listen acknowledged a task it did not push before (a task carried into a merged
 *   listen is pushed already and is not polled);
 * - `streamBroke`: the listen stream pushing the task ended after it had proved itself (it stayed open
 *   `notificationSafetyNetMs`): what it would have carried may be lost. A stream that ends sooner brings no poll
 *   forward (`replan`), so a server that closes every listen at once cannot make the client poll faster;
 * - `statusNotified`: a 2025-11-25 `notifications/tasks/status` announced a status the client does not show yet
 *   and only a poll can fetch (`input_required`, or a terminal one).
 */
export type OneShotCause =
  | "seed"
  | "resume"
  | "cancelAnswered"
  | "inputSubmitted"
  | "listenAcknowledged"
  | "streamBroke"
  | "statusNotified";

/**
 * Why the next poll is being planned: a {@link OneShotCause}, or
 * - `interval`: a `tasks/get` answered (or a `working` creation seed arrived): the regular next poll;
 * - `retry`: a `tasks/get` failed with a transient fault;
 * - `replan`: what the regular wait depends on changed, and the poll already planned moves to the new wait,
 *   measured from the last poll: a listen stopped pushing the task (the server left it out or refused, its stream
 *   ended before it proved itself, or the re-listen attempts ran out), a stream proved itself for a task that was
 *   polled at its interval all along, or a cancel began (a cancelling task is polled at the interval, pushed or
 *   not, for the server's final word).
 */
export type PollCause = OneShotCause | "interval" | "retry" | "replan";

/** What the cadence reads about one task. */
export interface CadenceState {
  /** The `pollIntervalMs` of the task's newest snapshot (undefined when none suggested; junk is bounded). */
  readonly serverIntervalMs: unknown;
  /** A listen stream pushes the task's changes (and the handle is not cancelling): polls are the safety net. */
  readonly pushed: boolean;
  /** When the last `tasks/get` of the task ended (answered or failed), on `now`'s time line; undefined before. */
  readonly lastPollAt: number | undefined;
  /**
   * The backoff of the retry now due (`retryDelay`: jittered, `Retry-After` a floor); 0 after an answer. A floor
   * for every poll, one-shots included, until a `tasks/get` answers.
   */
  readonly retryDelayMs: number;
  /** A one-shot was asked for and no `tasks/get` has gone out since. */
  readonly pollOwed: boolean;
}

/** The client's settings the cadence reads. */
export interface CadenceSettings {
  readonly polling: PollTiming;
  /** `notificationSafetyNetMs`: the least wait between polls of a pushed task. */
  readonly safetyNetMs: number;
}

/** Whether `cause` may bring a poll forward (see {@link OneShotCause}). */
export function isOneShot(cause: PollCause): cause is OneShotCause {
  return cause !== "interval" && cause !== "retry" && cause !== "replan";
}

/**
 * How long from `now` until the task's next `tasks/get` may go out, in whole milliseconds (0: as soon as a slot
 * is free). See the file comment for the rule.
 *
 * @param random numbers in [0, 1] for the interval's jitter (see {@link pollDelay}).
 */
export function nextPollDelay(
  cause: PollCause,
  state: CadenceState,
  settings: CadenceSettings,
  now: number,
  random: () => number = Math.random,
): number {
  let wait = state.retryDelayMs; // a one-shot skips the interval, never the backoff
  if (!state.pollOwed && !isOneShot(cause)) {
    const interval = pollDelay(state.serverIntervalMs, settings.polling, random);
    const regular = state.pushed ? Math.max(settings.safetyNetMs, 10 * interval) : interval;
    wait = Math.max(regular, wait);
  }
  if (wait === 0) return 0;
  const since = state.lastPollAt === undefined ? 0 : now - state.lastPollAt;
  // A clock that went backwards (since < 0) never stretches the wait beyond `wait` itself.
  const delay = since > 0 ? wait - since : wait;
  return delay <= 0 ? 0 : Math.min(Math.ceil(delay), MAX_TIMER_DELAY_MS);
}
