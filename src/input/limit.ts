/**
 * A concurrency limit for input handlers: several requests are answered at once, but never more than the app
 * allowed (each may open a dialog or call a model). A first-in, first-out queue of our own (p-limit's weight was
 * in the main entry's browser budget).
 */

/** Runs `task` when a slot is free; resolves or rejects as the task does. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function createLimiter(concurrency: number): Limiter {
  if (!(Number.isInteger(concurrency) && concurrency >= 1) && concurrency !== Infinity) {
    throw new RangeError(
      `input concurrency must be a positive integer or Infinity, got ${String(concurrency)}`,
    );
  }
  let active = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    active--;
    waiting.shift()?.();
  };
  return <T>(task: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const start = () => {
        active++;
        // A task that throws synchronously rejects its own promise, like one that rejects.
        void Promise.resolve().then(task).then(resolve, reject).finally(release);
      };
      if (active < concurrency) start();
      else waiting.push(start);
    });
}
