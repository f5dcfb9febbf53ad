/**
 * Retrying transient faults (network errors, 5xx, 429, timeouts, -32603) of requests that are safe to repeat:
 * `tasks/get`, `tasks/update` with the same keys, `tasks/cancel` (requestor checklist §4.20). What counts as
 * transient is decided in one place, `isTransientError`; how long to wait, in one place, `retryDelay`; the loop
 * in `retryAfterFault` counts the attempts (a few lines of our own, not p-retry: its weight was in the main
 * entry's browser budget for options we never used).
 */
import { isTransientError, type TransportError } from "../protocol/errors.js";
import { DEFAULT_RETRY_TIMING, MAX_TIMER_DELAY_MS, unitRandom } from "./timing.js";
import type { RetryTiming } from "./types.js";

/** One retry about to happen. */
export interface RetryAttempt {
  /** The transient fault that caused it. */
  error: unknown;
  /** 1 for the first retry. */
  attempt: number;
  /** How long the retry waits, from {@link retryDelay}: jittered backoff, never less than `Retry-After`. */
  delayMs: number;
}

export interface TransientRetryOptions {
  /** Backoff policy. Default {@link DEFAULT_RETRY_TIMING}; use `resolveRetryTiming` to check user input. */
  timing?: RetryTiming;
  /** Stops retrying: the promise rejects with `signal.reason` at once, even mid-wait. */
  signal?: AbortSignal;
  /**
   * Called before each retry's wait. If it throws, retrying stops and the promise rejects with that error.
   */
  onRetry?: (attempt: RetryAttempt) => void;
  /** The jitter's random source, numbers in [0, 1]. Default `Math.random`. */
  random?: () => number;
}

/**
 * Runs `fn`, retrying it while it fails with a transient error. Resolves with the first success; rejects at
 * once with a non-transient error, with `signal.reason` when aborted, and with the last error when the retries
 * run out. Each wait is {@link retryDelay}: exponential backoff with equal jitter, never shorter than the
 * server's `Retry-After`.
 *
 * The first call runs outside the retry loop, so a request that succeeds (nearly all of them) pays for nothing
 * but one `await`.
 */
export async function withTransientRetry<T>(
  fn: () => Promise<T>,
  options: TransientRetryOptions = {},
): Promise<T> {
  options.signal?.throwIfAborted();
  try {
    return await fn();
  } catch (error) {
    if (!isTransientError(error)) throw error;
    return retryAfterFault(fn, error, options);
  }
}

/**
 * Retries `fn` after it already failed once with the transient `firstError` (for callers that made the first
 * attempt themselves), so `fn` runs at most `retries` more times. Before each retry: stop when aborted (reject
 * with `signal.reason`), when the last fault is not transient or the retries are used up (reject with it); else
 * announce the retry (`onRetry`) and wait {@link retryDelay}, the same policy a caller uses to schedule a retry
 * itself, so both paths back off alike. A success after the signal fired still rejects with `signal.reason`.
 */
export async function retryAfterFault<T>(
  fn: () => Promise<T>,
  firstError: unknown,
  options: TransientRetryOptions,
): Promise<T> {
  const timing = options.timing ?? DEFAULT_RETRY_TIMING;
  const { signal, onRetry, random = Math.random } = options;
  let error = firstError;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    if (!(attempt <= timing.retries) || !isTransientError(error)) throw error;
    const delayMs = retryDelay(attempt, timing, error, random);
    onRetry?.({ error, attempt, delayMs });
    await delay(delayMs, signal);
    try {
      const result = await fn();
      signal?.throwIfAborted();
      return result;
    } catch (fault) {
      error = fault;
    }
  }
}

/**
 * The wait before retry number `attempt` (1 for the first retry) after the transient `fault`, in whole
 * milliseconds. A pure function: callers that schedule retries themselves (the poll scheduler, so a backoff
 * does not hold an in-flight slot) and {@link retryAfterFault} share it.
 *
 * Equal jitter (not full jitter): with `b` the exponential backoff {@link backoffDelay} (`minTimeoutMs ×
 * factor^(attempt-1)`, at most `maxTimeoutMs`), the wait is drawn from `[b/2, b]`. Half of it is fixed, so a
 * retry never hammers a recovering server at once, and half is random, so many clients that failed together
 * (a server restart) do not retry in lockstep.
 *
 * `Retry-After` (a `TransportError`'s `retryAfterMs`) is a floor: the wait is never shorter. It is bounded by
 * `maxTimeoutMs` first, so a server cannot park a request for an hour. Jitter only lengthens it, by up to half
 * of the longer of `b` and `Retry-After`, so a crowd told to come back at the same moment does not; such a wait
 * can therefore exceed `maxTimeoutMs` by up to half of it. Formally, with `r` the bounded `Retry-After` (0 when
 * absent): `wait = max(r, ⌈b/2⌉) + random × max(b, r)/2`, truncated, at most {@link MAX_TIMER_DELAY_MS}.
 *
 * @param random a source of numbers in [0, 1] (outside values are clamped, NaN counts as 0); 0 gives the
 *   shortest wait, 1 the longest.
 */
export function retryDelay(
  attempt: number,
  timing: RetryTiming,
  fault?: unknown,
  random: () => number = Math.random,
): number {
  const backoff = backoffDelay(Math.max(Math.floor(attempt), 1) - 1, timing);
  const asked = retryAfterMs(fault, timing);
  const least = Math.max(asked, Math.ceil(backoff / 2));
  const spread = Math.max(backoff, asked) / 2;
  return Math.min(least + Math.trunc(spread * unitRandom(random)), MAX_TIMER_DELAY_MS);
}

/**
 * Whether to retry after `fault` ended attempt number `attempt` (1 for the first request), and after how long:
 * the {@link retryDelay} of the next retry, or `undefined` when the fault is not transient or the retries are
 * used up. For callers that schedule retries themselves.
 */
export function nextRetryDelay(
  attempt: number,
  timing: RetryTiming,
  fault: unknown,
  random: () => number = Math.random,
): number | undefined {
  if (!isTransientError(fault) || !(attempt >= 1 && attempt <= timing.retries)) return undefined;
  return retryDelay(attempt, timing, fault, random);
}

/**
 * The exponential backoff before retry number `retriesConsumed + 1`, before jitter: `minTimeoutMs ×
 * factor^retriesConsumed`, at most `maxTimeoutMs`. {@link retryDelay} jitters it.
 */
export function backoffDelay(retriesConsumed: number, timing: RetryTiming): number {
  return Math.min(Math.round(timing.minTimeoutMs * timing.factor ** retriesConsumed), timing.maxTimeoutMs);
}

/**
 * The server's `Retry-After` (a `TransportError`'s `retryAfterMs`), bounded by `maxTimeoutMs`; 0 when absent or
 * unusable. Read by shape, not `instanceof`: an entry bundled apart from the main one (`mcp-tasks/host`) retries
 * errors of the main entry's classes, which are not its own copy's.
 */
export function retryAfterMs(error: unknown, timing: RetryTiming): number {
  if (typeof error !== "object" || error === null) return 0;
  const asked = (error as Partial<Pick<TransportError, "retryAfterMs">>).retryAfterMs;
  if (typeof asked !== "number" || !(asked > 0)) return 0;
  return Math.min(Math.ceil(asked), timing.maxTimeoutMs);
}

/** Waits on the global timer (fake timers drive it); rejects with `signal.reason` when aborted. */
function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
