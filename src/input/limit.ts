/**
 * A concurrency limit for input handlers: several requests are answered at once, but never more than the app
 * allowed (each may open a dialog or call a model). The queue is p-limit's; this file only checks the option.
 */
import pLimit from "p-limit";

/** Runs `task` when a slot is free; resolves or rejects as the task does. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function createLimiter(concurrency: number): Limiter {
  if (!(Number.isInteger(concurrency) && concurrency >= 1) && concurrency !== Infinity) {
    throw new RangeError(
      `input concurrency must be a positive integer or Infinity, got ${String(concurrency)}`,
    );
  }
  const limit = pLimit(concurrency);
  return (task) => limit(task);
}
