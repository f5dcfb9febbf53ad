/**
 * One handle's place on the client's alarm clock (an uncapped scheduler shared by every handle): it fires at
 * the nearest time limit, whatever requests are in flight. Re-arming for the same time costs nothing.
 */
import type { PollJob } from "../scheduler/types.js";
import type { RunContext } from "./run-context.js";

export class Alarm implements PollJob {
  private at: number | undefined;

  constructor(
    private readonly context: Pick<RunContext, "alarms" | "now">,
    private readonly fire: () => void,
  ) {}

  /** Rings at `at` (epoch ms), or never with undefined. */
  set(at: number | undefined): void {
    if (at === this.at) return;
    this.at = at;
    if (at === undefined) this.context.alarms.unschedule(this);
    else this.context.alarms.schedule(this, Math.max(0, at - this.context.now()));
  }

  run(): Promise<void> {
    this.at = undefined;
    this.fire();
    return Promise.resolve();
  }
}
