/**
 * Retrying transient faults (network errors, 5xx, 429, timeouts, -32603) of requests that are safe to repeat:
 * `tasks/get`, `tasks/update` with the same keys, `tasks/cancel` (requestor checklist §4.20). What counts as
 * transient is decided in one place, `isTransientError`; when and how often to retry is p-retry's job.
 */
import pRetry, { type RetryContext } from "p-retry";
import { TransportError, isTransientError } from "../protocol/errors.js";
import { DEFAULT_RETRY_TIMING } from "./timing.js";
import type { RetryTiming } from "./types.js";

/** One retry about to happen. */
export interface RetryAttempt {
  /** The transient fault that caused it. */
  error: unknown;
  /** 1 for the first retry. */
  attempt: number;
  /** How long the retry waits: the backoff, or the server's `Retry-After` when that is longer. */
  delayMs: number;
}

export interface TransientRetryOptions {
  /** Backoff policy. Default {@link DEFAULT_RETRY_TIMING}; use `resolveRetryTiming` to check user input. */
  timing?: RetryTiming;
  /** Stops retrying: the promise rejects with `signal.reason` at once, even mid-wait. */
  signal?: AbortSignal;
  /**
   * Called before each retry's wait. If it throws, retrying stops and the promise rejects with that error
   * (p-retry's rule for its `onFailedAttempt`).
   */
  onRetry?: (attempt: RetryAttempt) => void;
}

/**
 * Runs `fn`, retrying it while it fails with a transient error. Resolves with the first success; rejects at
 * once with a non-transient error, with `signal.reason` when aborted, and with the last error when the retries
 * run out. Delays grow from `minTimeoutMs` by `factor` up to `maxTimeoutMs`; a `TransportError` carrying
 * `retryAfterMs` (HTTP `Retry-After`) makes the next attempt wait at least that long, but never more than
 * `maxTimeoutMs`, so a server cannot park a poll for an hour.
 *
 * The first call runs without p-retry, so a request that succeeds (nearly all of them) pays for nothing but
 * one `await`.
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
 * attempt themselves). Hands the rest of the work to p-retry. Its first "attempt" re-raises the fault the fast path already saw,
 * so p-retry's own counting (retries left, backoff from `minTimeoutMs`, abort) starts exactly where the fast
 * path stopped and `fn` runs at most `retries + 1` times in total.
 */
export function retryAfterFault<T>(
  fn: () => Promise<T>,
  firstError: unknown,
  options: TransientRetryOptions,
): Promise<T> {
  const timing = options.timing ?? DEFAULT_RETRY_TIMING;
  const { signal, onRetry } = options;
  return pRetry((attemptNumber) => (attemptNumber === 1 ? Promise.reject(firstError) : fn()), {
    retries: timing.retries,
    minTimeout: timing.minTimeoutMs,
    maxTimeout: timing.maxTimeoutMs,
    factor: timing.factor,
    randomize: false,
    signal,
    shouldRetry: ({ error }) => isTransientError(error),
    onFailedAttempt: async (context: RetryContext) => {
      if (context.retriesLeft <= 0 || !isTransientError(context.error)) return;
      const backoff = backoffDelay(context.retriesConsumed, timing);
      const asked = retryAfterMs(context.error, timing);
      onRetry?.({
        error: context.error,
        attempt: context.retriesConsumed + 1,
        delayMs: Math.max(backoff, asked),
      });
      // p-retry waits `backoff` after this returns; wait only what the server asked for beyond that.
      if (asked > backoff) await delay(asked - backoff, signal);
    },
  });
}

/**
 * The wait p-retry applies before retry number `retriesConsumed + 1` (its `calculateDelay` without
 * randomisation). Needed to top it up to a server's `Retry-After`, never to replace it.
 */
export function backoffDelay(retriesConsumed: number, timing: RetryTiming): number {
  return Math.min(Math.round(timing.minTimeoutMs * timing.factor ** retriesConsumed), timing.maxTimeoutMs);
}

/** The server's `Retry-After`, bounded by `maxTimeoutMs`; 0 when absent or unusable. */
export function retryAfterMs(error: unknown, timing: RetryTiming): number {
  if (!(error instanceof TransportError)) return 0;
  const asked = error.retryAfterMs;
  if (typeof asked !== "number" || !(asked > 0)) return 0;
  return Math.min(Math.ceil(asked), timing.maxTimeoutMs);
}

/** Waits on the same global timer p-retry uses, so fake timers drive both waits alike. */
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
