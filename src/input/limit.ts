/**
 * A concurrency limit for input handlers: several requests are answered at once, but never more than the app
 * allowed (each may open a dialog or call a model).
 */

/** Runs `task` when a slot is free; resolves or rejects as the task does. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function createLimiter(concurrency: number): Limiter {
  if (!(Number.isInteger(concurrency) && concurrency >= 1) && concurrency !== Infinity) {
    throw new RangeError(
      `input concurrency must be a positive integer or Infinity, got ${String(concurrency)}`,
    );
  }
  let running = 0;
  const waiting: Array<() => void> = [];

  const startNext = (): void => {
    while (running < concurrency && waiting.length > 0) {
      running += 1;
      waiting.shift()?.();
    }
  };

  return <T>(task: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      waiting.push(() => {
        Promise.resolve()
          .then(task)
          .then(resolve, reject)
          .finally(() => {
            running -= 1;
            startNext();
          });
      });
      startNext();
    });
}
