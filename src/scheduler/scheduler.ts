/**
 * One poll scheduler per client, shared by every task it watches (DESIGN decision 5). Due times live in a
 * binary min-heap behind a single timer, so 100,000 watched tasks cost one timer, not 100,000; the timer is
 * re-armed only when an earlier due time appears, and when it fires every due job starts in one batch.
 *
 * Hot-path budget: scheduling and running a job allocates nothing of ours. Each job gets one slot (with its
 * `done` callback) the first time it is scheduled, and that slot is reused for the job's whole life.
 */
import { DueHeap, type HeapEntry } from "./due-heap.js";
import { WakeTimer } from "./wake-timer.js";
import type { PollJob, PollQueue } from "./types.js";

/** The time source and timer functions the scheduler uses; injectable for tests and other runtimes. */
export interface SchedulerClock {
  /** Current time in milliseconds. Only differences matter, so a monotonic clock is best. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(timer: unknown): void;
}

export interface PollSchedulerOptions {
  /** Most jobs running at once; jobs due beyond it wait and start, in due order, as runs finish. Default 64. */
  maxInFlight?: number;
  /** Default: `performance.now()` and the global `setTimeout`/`clearTimeout` (all replaced by fake timers). */
  clock?: SchedulerClock;
  /** Told when a job's `run()` throws. Default: the error is dropped; other jobs are unaffected. */
  onJobError?: (error: unknown, job: PollJob) => void;
}

export const DEFAULT_MAX_IN_FLIGHT = 64;

/**
 * The default clock. Monotonic time (not `Date.now()`), so a wall-clock change cannot stall or burst polling.
 * Globals are looked up on each call so fake timers installed after construction still drive the scheduler.
 *
 * Timers are deliberately not `unref`'d: while a task is being watched, its next poll is the only thing that
 * keeps a script awaiting `handle` alive; an unref'd timer would let Node exit mid-await with the promise
 * never settled. The scheduler holds no timer when nothing is scheduled, so an idle client never blocks exit.
 */
export const systemClock: SchedulerClock = {
  now: () => performance.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

/** The scheduler's record of one job, created once per job and reused for every schedule and run. */
export class JobSlot implements HeapEntry {
  due = 0;
  seq = 0;
  index = -1;
  running = false;
  /** Came due while its previous run was still going; starts as soon as that run ends. */
  deferred = false;
  /** The `done` every run of the job is given, made once here so starting a run creates no closure. */
  readonly done: () => void;

  constructor(
    readonly job: PollJob,
    onDone: (slot: never) => void,
  ) {
    this.done = () => onDone(this as never);
  }
}

/**
 * Runs each scheduled job once when it comes due, at most `maxInFlight` at a time and never the same job twice
 * at once. A job reschedules itself (typically from inside `run`) for its next poll.
 *
 * After {@link close}, `schedule` and `unschedule` are silently ignored rather than throwing: jobs
 * still in flight when the client closes call `schedule` as their response arrives, and that must not turn a
 * clean shutdown into errors.
 */
export class PollScheduler implements PollQueue {
  private readonly heap = new DueHeap<JobSlot>();
  private readonly slots = new WeakMap<PollJob, JobSlot>();
  private readonly clock: SchedulerClock;
  private readonly maxInFlight: number;
  private readonly onJobError: ((error: unknown, job: PollJob) => void) | undefined;
  private nextSeq = 0;
  private running = 0;
  private deferredCount = 0;
  private draining = false;
  private closed = false;
  private readonly slotDone = (slot: JobSlot): void => {
    if (slot.running) this.finish(slot); // else a second `done` of one run
  };
  private readonly timer: WakeTimer;

  constructor(options: PollSchedulerOptions = {}) {
    const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    if (typeof maxInFlight !== "number")
      throw new TypeError(`maxInFlight must be a number, got ${typeof maxInFlight}`);
    if (!(maxInFlight === Infinity || (Number.isInteger(maxInFlight) && maxInFlight >= 1))) {
      throw new RangeError(`maxInFlight must be a whole number ≥ 1 or Infinity, got ${maxInFlight}`);
    }
    this.maxInFlight = maxInFlight;
    this.clock = options.clock ?? systemClock;
    this.timer = new WakeTimer(this.clock, () => {
      this.drain();
      this.arm();
    });
    this.onJobError = options.onJobError;
  }

  /** Jobs waiting to run: scheduled for later, due but held back by the in-flight cap, or due while running. */
  get size(): number {
    return this.closed ? 0 : this.heap.size + this.deferredCount;
  }

  /** The scheduler's clock: the time line delays are measured on (the cadence owner's `now`). */
  now(): number {
    return this.clock.now();
  }

  /** Jobs whose `run()` has not settled yet. */
  get inFlight(): number {
    return this.running;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Runs `job` once, `delayMs` from now. A job that is already scheduled is moved to the new time (it still
   * runs once). Throws `RangeError` for a delay that is not a finite number ≥ 0.
   */
  schedule(job: PollJob, delayMs: number): void {
    if (this.closed) return;
    if (!(delayMs >= 0 && delayMs < Infinity)) {
      throw new RangeError(`delayMs must be a finite number ≥ 0, got ${String(delayMs)}`);
    }
    const slot = this.slotFor(job);
    slot.due = this.clock.now() + delayMs;
    slot.seq = this.nextSeq++;
    if (slot.deferred) this.undefer(slot);
    if (slot.index >= 0) this.heap.update(slot);
    else this.heap.push(slot);
    if (!this.draining) this.arm();
  }

  /** Forgets the job's pending run, if any. A run already in progress is not interrupted. */
  unschedule(job: PollJob): void {
    if (this.closed) return;
    const slot = this.slots.get(job);
    if (slot === undefined) return;
    if (slot.deferred) this.undefer(slot);
    if (slot.index >= 0) {
      this.heap.remove(slot);
      if (this.heap.size === 0) this.timer.clear();
    }
  }

  /** Drops every pending run and the timer. Runs in progress finish on their own; nothing new starts. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.timer.clear();
    this.heap.clear();
  }

  private slotFor(job: PollJob): JobSlot {
    let slot = this.slots.get(job);
    if (slot === undefined) {
      if (typeof job?.run !== "function") throw new TypeError("a poll job must have a run() method");
      slot = new JobSlot(job, this.slotDone);
      this.slots.set(job, slot);
    }
    return slot;
  }

  private undefer(slot: JobSlot): void {
    slot.deferred = false;
    this.deferredCount--;
  }

  /** Starts every due job the in-flight cap allows, earliest first. */
  private drain(): void {
    const heap = this.heap;
    const now = this.clock.now();
    this.draining = true;
    try {
      while (!this.closed && this.running < this.maxInFlight) {
        const top = heap.peek();
        if (top === undefined || top.due > now) break;
        heap.pop();
        if (top.running) {
          top.deferred = true;
          this.deferredCount++;
        } else {
          this.start(top);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private start(slot: JobSlot): void {
    slot.running = true;
    this.running++;
    try {
      slot.job.run(slot.done);
    } catch (error) {
      try {
        this.onJobError?.(error, slot.job);
      } catch {
        // A faulty error reporter must not stop the scheduler either.
      }
      slot.done();
    }
  }

  private finish(slot: JobSlot): void {
    slot.running = false;
    this.running--;
    if (slot.deferred) {
      this.undefer(slot);
      if (!this.closed) this.heap.push(slot);
    }
    if (this.closed || this.draining) return;
    this.drain();
    this.arm();
  }

  /**
   * Makes sure a timer fires by the time the earliest job is due. An existing timer that fires no later is
   * kept (if it fires early it finds nothing due and re-arms), so schedules after the first cost no timer
   * calls. While the in-flight cap is full no new timer is set: the next finished run starts waiting jobs.
   */
  private arm(): void {
    const top = this.heap.peek();
    if (top === undefined) this.timer.clear();
    else if (!this.closed && this.running < this.maxInFlight) this.timer.wakeBy(top.due);
  }
}
