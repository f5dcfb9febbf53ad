/**
 * Small tools shared by the scheduler tests: promises settled by hand, and a clock that counts live timers.
 */
import type { PollJob, SchedulerClock } from "../../../src/scheduler/index.js";

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

/**
 * Jobs checked against a model of what is pending: `due[id]` is when job `id` may run next (undefined: it has no
 * pending run). Each run records a violation if it starts without a pending schedule, before its due time, or
 * while it is already running, then takes `latencies[id]` milliseconds of (fake) time. `afterStart` may check
 * more (a cap).
 */
export class ModelJobs {
  readonly due: Array<number | undefined>;
  readonly running = new Set<number>();
  readonly violations: string[] = [];
  runs = 0;
  readonly jobs: PollJob[];

  constructor(latencies: number[], afterStart: (running: Set<number>, id: number) => string | undefined) {
    this.due = new Array<number | undefined>(latencies.length).fill(undefined);
    this.jobs = latencies.map((latency, id) => ({
      run: (done) => {
        const now = performance.now();
        const expected = this.due[id];
        if (expected === undefined) this.violations.push(`job ${id} ran without a pending schedule`);
        else if (now < expected) this.violations.push(`job ${id} ran at ${now}, before ${expected}`);
        if (this.running.has(id)) this.violations.push(`job ${id} ran twice at once`);
        this.due[id] = undefined;
        this.running.add(id);
        this.runs++;
        const problem = afterStart(this.running, id);
        if (problem !== undefined) this.violations.push(problem);
        setTimeout(() => {
          this.running.delete(id);
          done();
        }, latency);
      },
    }));
  }

  /** Runs still pending in the model. */
  get pending(): number {
    return this.due.filter((at) => at !== undefined).length;
  }
}
