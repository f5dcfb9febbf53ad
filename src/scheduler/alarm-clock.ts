/**
 * The client's alarm clock: every handle's nearest time limit (deadline, TTL backstop, cancel grace) in one
 * min-heap behind one timer. Unlike the poll scheduler it has no in-flight cap and runs nothing asynchronous,
 * so an alarm is a bare heap entry that rings its owner: no slot, no settle callbacks, no per-alarm closure.
 * With a TTL on almost every task, that is one small object per handle instead of a scheduler job.
 *
 * Times are absolute, on the clock's own time line (epoch milliseconds by default, the same line the
 * lifecycle's limits are on), so setting an alarm to the time it already has costs nothing.
 */
import { DueHeap, type HeapEntry } from "./due-heap.js";
import type { SchedulerClock } from "./scheduler.js";
import { WakeTimer } from "./wake-timer.js";

/** What an alarm wakes. */
export interface AlarmTarget {
  ring(): void;
}

/** One owner's place on the clock, made once and reused for every time it is set to. */
export class Alarm implements HeapEntry {
  /** When it rings (clock time); meaningful while `index >= 0`. */
  due = 0;
  seq = 0;
  /** Owned by the heap: -1 while the alarm is not set. */
  index = -1;

  constructor(readonly target: AlarmTarget) {}
}

export interface AlarmClockOptions {
  /** Default: `Date.now()` and the global timer functions, looked up on each call (fake timers replace them). */
  clock?: SchedulerClock;
  /** Told when a target's `ring()` throws; the other alarms ring regardless. */
  onError?: (error: unknown) => void;
}

const epochClock: SchedulerClock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

export class AlarmClock {
  private readonly heap = new DueHeap<Alarm>();
  private readonly clock: SchedulerClock;
  private readonly onError: ((error: unknown) => void) | undefined;
  private nextSeq = 0;
  private ringing = false;
  private closed = false;
  private readonly timer: WakeTimer;

  constructor(options: AlarmClockOptions = {}) {
    this.clock = options.clock ?? epochClock;
    this.timer = new WakeTimer(this.clock, () => {
      this.ringDue();
      this.arm();
    });
    this.onError = options.onError;
  }

  /** Alarms set now. */
  get size(): number {
    return this.heap.size;
  }

  /** Rings `alarm` at time `at` (moving it if it was set); nothing happens when it is already set for `at`. */
  set(alarm: Alarm, at: number): void {
    if (this.closed || (alarm.index >= 0 && alarm.due === at)) return;
    alarm.due = at;
    alarm.seq = this.nextSeq++;
    if (alarm.index >= 0) this.heap.update(alarm);
    else this.heap.push(alarm);
    if (!this.ringing) this.arm();
  }

  /** Takes the alarm off the clock, if it is set. */
  clear(alarm: Alarm): void {
    if (this.closed || alarm.index < 0) return;
    this.heap.remove(alarm);
    if (this.heap.size === 0) this.timer.clear();
  }

  /** Drops every alarm and the timer; nothing rings after this. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.timer.clear();
    this.heap.clear();
  }

  /**
   * Rings every alarm that is due, earliest first. One set again while ringing waits for the next timer, so a
   * target that keeps setting itself for "now" cannot hold the event loop.
   */
  private ringDue(): void {
    const now = this.clock.now();
    const setBefore = this.nextSeq;
    this.ringing = true;
    try {
      for (
        let top = this.heap.peek();
        top !== undefined && top.due <= now && top.seq < setBefore;
        top = this.heap.peek()
      ) {
        this.heap.pop();
        try {
          top.target.ring();
        } catch (error) {
          try {
            this.onError?.(error);
          } catch {
            // A faulty error reporter must not stop the other alarms.
          }
        }
        if (this.closed) return;
      }
    } finally {
      this.ringing = false;
    }
  }

  /** Keeps one timer set for the earliest alarm; a timer that fires no later is kept. */
  private arm(): void {
    const top = this.heap.peek();
    if (top === undefined) this.timer.clear();
    else if (!this.closed) this.timer.wakeBy(top.due);
  }
}
