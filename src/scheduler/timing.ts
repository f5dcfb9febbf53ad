/**
 * The polling cadence as pure functions: how long to wait before the next `tasks/get`, and the validated
 * timing options behind it. Kept apart from the scheduler so the policy is tested without any timer.
 */
import type { PollTiming, RetryTiming } from "./types.js";

/** The longest delay `setTimeout` accepts; larger values overflow and fire at once. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export const DEFAULT_POLL_TIMING: Readonly<PollTiming> = Object.freeze({
  defaultIntervalMs: 1000,
  minIntervalMs: 100,
  maxIntervalMs: 60_000,
  jitter: 0.1,
});

export const DEFAULT_RETRY_TIMING: Readonly<RetryTiming> = Object.freeze({
  retries: 8,
  minTimeoutMs: 250,
  maxTimeoutMs: 30_000,
  factor: 2,
});

/**
 * The delay before the next poll, in whole milliseconds.
 *
 * `serverIntervalMs` is the latest `pollIntervalMs` the server sent (requestor checklist §4.1): absent
 * (`undefined` or `null`) means "no suggestion" and uses the default; anything that is not a positive number
 * (0, negative, NaN, a string) uses the floor; fractions are rounded up, so a poll never goes out before the
 * interval the server asked for.
 *
 * Which bound wins: the interval is clamped to `[minIntervalMs, maxIntervalMs]`. The server's interval is a
 * floor for the delay unless it exceeds `maxIntervalMs`: then the caller's ceiling wins, so a server cannot
 * park a task's polling for an hour. `minIntervalMs` only ever raises the delay.
 *
 * Jitter only lengthens: the delay is the clamped interval plus up to `jitter` of it, so tasks created together
 * drift apart without any of them polling before the server's interval. The lengthening never crosses
 * `maxIntervalMs` (it shrinks to fit, and is 0 at the ceiling), and the result never exceeds
 * {@link MAX_TIMER_DELAY_MS}.
 *
 * @param random a source of numbers in [0, 1]; 0 (or anything unusable, like NaN) gives the clamped interval
 *   itself, 1 the longest delay. Values outside [0, 1] are clamped into it.
 */
export function pollDelay(
  serverIntervalMs: unknown,
  timing: PollTiming,
  random: () => number = Math.random,
): number {
  const { minIntervalMs, maxIntervalMs } = timing;
  const interval = clamp(suggestedInterval(serverIntervalMs, timing), minIntervalMs, maxIntervalMs);
  const headroom = Math.max(Math.min(interval * timing.jitter, maxIntervalMs - interval), 0);
  // Truncating the lengthening keeps the sum an integer within the headroom; no draw when there is no room.
  const lengthening = headroom > 0 ? Math.trunc(headroom * unitRandom(random)) : 0;
  return Math.min(interval + lengthening, MAX_TIMER_DELAY_MS);
}

function suggestedInterval(value: unknown, timing: PollTiming): number {
  if (value === undefined || value === null) return timing.defaultIntervalMs;
  if (typeof value !== "number" || !(value > 0)) return timing.minIntervalMs;
  return Math.ceil(value);
}

/** A draw from `random`, forced into [0, 1]; NaN and other junk count as 0 (no jitter). */
export function unitRandom(random: () => number): number {
  const value = random();
  return value > 0 ? (value < 1 ? value : 1) : 0;
}

function clamp(value: number, min: number, max: number): number {
  return value < min ? min : value > max ? max : value;
}

/**
 * Fills in and checks the caller's polling options. Throws `TypeError` for a value of the wrong type and
 * `RangeError` for one out of range, naming the option, so a bad configuration fails when the client is made
 * rather than as a strange cadence later.
 */
export function resolvePollTiming(options: Partial<PollTiming> | undefined = {}): PollTiming {
  requireObject("poll timing", options);
  const timing: PollTiming = {
    defaultIntervalMs: wholeMs("defaultIntervalMs", options.defaultIntervalMs, DEFAULT_POLL_TIMING),
    minIntervalMs: wholeMs("minIntervalMs", options.minIntervalMs, DEFAULT_POLL_TIMING),
    maxIntervalMs: wholeMs("maxIntervalMs", options.maxIntervalMs, DEFAULT_POLL_TIMING),
    jitter: fraction("jitter", options.jitter ?? DEFAULT_POLL_TIMING.jitter),
  };
  const { minIntervalMs: min, defaultIntervalMs: dflt, maxIntervalMs: max } = timing;
  if (!(min <= dflt && dflt <= max)) {
    throw new RangeError(
      `poll timing: expected minIntervalMs ≤ defaultIntervalMs ≤ maxIntervalMs, got ${min} ≤ ${dflt} ≤ ${max}`,
    );
  }
  return timing;
}

/** Fills in and checks the caller's retry options, like {@link resolvePollTiming}. */
export function resolveRetryTiming(options: Partial<RetryTiming> | undefined = {}): RetryTiming {
  requireObject("retry timing", options);
  const retries = options.retries ?? DEFAULT_RETRY_TIMING.retries;
  requireNumber("retries", retries);
  if (!Number.isInteger(retries) || retries < 0) {
    throw new RangeError(`retry timing: retries must be a whole number ≥ 0, got ${retries}`);
  }
  const timing: RetryTiming = {
    retries,
    minTimeoutMs: wholeMs("minTimeoutMs", options.minTimeoutMs, DEFAULT_RETRY_TIMING),
    maxTimeoutMs: wholeMs("maxTimeoutMs", options.maxTimeoutMs, DEFAULT_RETRY_TIMING),
    factor: options.factor ?? DEFAULT_RETRY_TIMING.factor,
  };
  requireNumber("factor", timing.factor);
  if (!Number.isFinite(timing.factor) || timing.factor < 1) {
    throw new RangeError(`retry timing: factor must be a finite number ≥ 1, got ${timing.factor}`);
  }
  if (timing.minTimeoutMs > timing.maxTimeoutMs) {
    throw new RangeError(
      `retry timing: expected minTimeoutMs ≤ maxTimeoutMs, got ${timing.minTimeoutMs} > ${timing.maxTimeoutMs}`,
    );
  }
  return timing;
}

function requireObject(what: string, value: unknown): void {
  if (typeof value !== "object" || value === null) {
    throw new TypeError(`${what}: expected an options object, got ${value === null ? "null" : typeof value}`);
  }
}

function requireNumber(name: string, value: unknown): asserts value is number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number, got ${typeof value}`);
}

/** A delay option: a whole number of milliseconds a timer can hold. */
function wholeMs<K extends string>(
  name: K,
  value: number | undefined,
  defaults: Readonly<Record<K, number>>,
): number {
  const ms = value ?? defaults[name];
  requireNumber(name, ms);
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_TIMER_DELAY_MS) {
    throw new RangeError(
      `${name} must be a whole number of milliseconds in [0, ${MAX_TIMER_DELAY_MS}], got ${ms}`,
    );
  }
  return ms;
}

function fraction(name: string, value: unknown): number {
  requireNumber(name, value);
  if (!(value >= 0 && value <= 1)) throw new RangeError(`${name} must be a fraction in [0, 1], got ${value}`);
  return value;
}
