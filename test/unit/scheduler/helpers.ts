/**
 * Small tools shared by the scheduler tests: promises settled by hand, and a clock that counts live timers.
 */
import type { SchedulerClock } from "../../../src/scheduler/index.js";

export interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

export function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * The default clock (fake timers replace its globals), instrumented: how many timers the scheduler holds right
 * now, the most it ever held at once, and how many it ever set.
 */
export class CountingClock implements SchedulerClock {
  live = 0;
  maxLive = 0;
  created = 0;
  private readonly pending = new Set<unknown>();

  now(): number {
    return performance.now();
  }

  setTimeout(callback: () => void, delayMs: number): unknown {
    const timer = setTimeout(() => {
      this.forget(timer);
      callback();
    }, delayMs);
    this.pending.add(timer);
    this.created++;
    this.live = this.pending.size;
    this.maxLive = Math.max(this.maxLive, this.live);
    return timer;
  }

  clearTimeout(timer: unknown): void {
    clearTimeout(timer as ReturnType<typeof setTimeout>);
    this.forget(timer);
  }

  private forget(timer: unknown): void {
    this.pending.delete(timer);
    this.live = this.pending.size;
  }
}
