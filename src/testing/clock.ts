/**
 * Time for the reference server comes from one injectable clock, so scripted tasks advance under
 * `vi.useFakeTimers()` (the default clock looks up `Date.now` and `setTimeout` at call time) or
 * under a clock a test drives by hand.
 */

/** An opaque handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

/** The time source and timer API the server uses for timestamps, TTLs and time-advanced scripts. */
export interface Clock {
  /** Milliseconds since the epoch, like `Date.now()`. */
  now(): number;
  /** Runs `callback` once after `ms` milliseconds. */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Cancels a timer from {@link Clock.setTimeout}; unknown handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock. Globals are read on every call so fake timers installed later still apply. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};
