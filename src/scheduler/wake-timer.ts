/**
 * The one timer behind the poll scheduler and behind the alarm clock: it makes sure a callback runs by a due
 * time. Asked for a time no earlier than the one it is set for, it keeps its timer (firing early finds nothing
 * due and is asked again), so setting a later time costs no timer calls.
 */
import type { SchedulerClock } from "./scheduler.js";
import { MAX_TIMER_DELAY_MS } from "./timing.js";

export class WakeTimer {
  private timer: unknown = undefined;
  /** The time the live timer was set for (it fires then or later); Infinity when there is none. */
  private armedFor = Infinity;
  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.armedFor = Infinity;
    this.wake();
  };

  constructor(
    private readonly clock: SchedulerClock,
    private readonly wake: () => void,
  ) {}

  /** Makes sure `wake` runs by `due` (clock time). */
  wakeBy(due: number): void {
    if (this.armedFor <= due) return;
    this.clear();
    const now = this.clock.now();
    // Whole milliseconds, rounded up, so the timer does not fire just before `due`.
    const delay = Math.min(Math.max(Math.ceil(due - now), 0), MAX_TIMER_DELAY_MS);
    this.armedFor = Math.min(due, now + delay);
    this.timer = this.clock.setTimeout(this.onTimer, delay);
  }

  /** Drops the timer, if any. */
  clear(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.armedFor = Infinity;
  }
}
