/**
 * One poll scheduler for every server of a host (architecture decision 19: a host shares, fairly). The fairness
 * rule, in full, and this file is its only owner:
 *
 * - The host has one in-flight limit, `maxInFlight`, and each server one share of it: a fixed number of polls
 *   it may have out at once (`TaskHost` gives each of its n servers `floor(maxInFlight / n)`, or less when the
 *   server asks for less). The shares never add up to more than the limit, so no server can take another's.
 * - A server whose polls do not come back (it hangs) holds at most its share: its due polls wait in its own
 *   queue, never in front of another server's, and every other server's polls go out when they are due.
 * - A server that is down (its connection dropped, and is being opened again: decision 22) has its share paused:
 *   its due polls wait in its queue and none goes out until it is back, so they are not spent on a dead
 *   connection; every other server's polls go on as before.
 * - Within a share, due polls start earliest first; a poll waiting for its share's slot starts as soon as one of
 *   that share's polls ends.
 * - When a poll is due is not decided here: each task's cadence owner (src/scheduler/cadence.ts, with the
 *   server's own `pollIntervalMs` and `Retry-After`) says so, and this scheduler only ever starts a poll at that
 *   time or later, never sooner.
 *
 * Like `PollScheduler`: one timer for every job of every server, and nothing of ours allocated per poll (a job
 * gets its slot the first time it is scheduled). A server's client gets a {@link PollLane} of its share; a client
 * made again for the same server (a reconnect) gets a new lane of the same share, so polls the old client still
 * has out count against that server's share, not the others'.
 */
import { DueHeap } from "./due-heap.js";
import { WakeTimer } from "./wake-timer.js";
import { JobSlot, systemClock, type SchedulerClock } from "./scheduler.js";
import type { PollJob, PollQueue } from "./types.js";

/** A job of one lane: the scheduler's slot, plus its lane and whether it waits in its share's queue. */
class LaneSlot extends JobSlot {
  /** Due, and waiting in its share's queue for a slot of the share (`index` is its place there). */
  parked = false;

  constructor(
    job: PollJob,
    readonly lane: PollLane,
    onDone: (slot: LaneSlot) => void,
  ) {
    super(job, onDone);
  }
}

/** One server's share of the host's in-flight limit. */
export class PollShare {
  /** Polls of this share out now (of every lane of it). */
  running = 0;
  /** Due polls waiting for a slot of this share. */
  readonly waiting = new DueHeap<LaneSlot>();

  constructor(
    readonly scheduler: FairPollScheduler,
    /** Most polls of this share out at once. */
    readonly size: number,
  ) {}

  /** Set while its server is down: its due polls wait in its queue, and none starts. */
  paused = false;

  /** Holds this share's polls until `resume()`: its server is down. */
  pause(): void {
    this.paused = true;
  }

  /** Its server is back: the polls due meanwhile start, earliest first, within the share. */
  resume(): void {
    this.paused = false;
    this.scheduler.resumed(this);
  }

  /** A new lane of this share, for one client of the server. */
  lane(onJobError?: (error: unknown, job: PollJob) => void): PollLane {
    return new PollLane(this, onJobError);
  }
}

/** What one client sees of the host's scheduler: a `PollQueue` whose polls count against its server's share. */
export class PollLane implements PollQueue {
  /** Set by `close()`: its pending runs are dropped as they come up, and `schedule` is ignored. */
  closed = false;
  readonly slots = new WeakMap<PollJob, LaneSlot>();

  constructor(
    readonly share: PollShare,
    readonly onJobError: ((error: unknown, job: PollJob) => void) | undefined,
  ) {}

  schedule(job: PollJob, delayMs: number): void {
    this.share.scheduler.schedule(this, job, delayMs);
  }

  unschedule(job: PollJob): void {
    this.share.scheduler.unschedule(this, job);
  }

  now(): number {
    return this.share.scheduler.now();
  }

  /** Drops this lane's pending runs (lazily: each is discarded when it comes up). Runs out now finish. */
  close(): void {
    this.closed = true;
  }
}

export interface FairPollSchedulerOptions {
  /** Default: `performance.now()` and the global timers (all replaced by fake timers). */
  clock?: SchedulerClock;
}

/** The host-wide scheduler: one heap and one timer for every server's polls, each server held to its share. */
export class FairPollScheduler {
  /** Scheduled jobs of every lane, by due time, until they start or wait in their share's queue. */
  private readonly heap = new DueHeap<LaneSlot>();
  private readonly clock: SchedulerClock;
  private readonly timer: WakeTimer;
  private nextSeq = 0;
  private draining = false;
  private closed = false;
  private readonly slotDone = (slot: LaneSlot): void => {
    if (slot.running) this.finish(slot); // else a second `done` of one run
  };

  constructor(options: FairPollSchedulerOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.timer = new WakeTimer(this.clock, () => {
      this.drain();
      this.arm();
    });
  }

  /** A share of `size` polls at once (a whole number ≥ 1, or Infinity). */
  share(size: number): PollShare {
    if (!(size === Infinity || (Number.isInteger(size) && size >= 1))) {
      throw new RangeError(`a poll share must be a whole number ≥ 1 or Infinity, got ${String(size)}`);
    }
    return new PollShare(this, size);
  }

  now(): number {
    return this.clock.now();
  }

  /** Drops every pending run of every lane, and the timer. Runs out now finish; nothing new starts. */
  close(): void {
    this.closed = true;
    this.timer.clear();
    this.heap.clear();
  }

  /** A paused share was resumed: its due polls start. */
  resumed(share: PollShare): void {
    if (this.closed) return;
    this.startWaiting(share);
    if (!this.draining) this.arm();
  }

  schedule(lane: PollLane, job: PollJob, delayMs: number): void {
    if (this.closed || lane.closed) return;
    if (!(delayMs >= 0 && delayMs < Infinity)) {
      throw new RangeError(`delayMs must be a finite number ≥ 0, got ${String(delayMs)}`);
    }
    const slot = this.slotFor(lane, job);
    this.takeOut(slot);
    slot.deferred = false;
    slot.due = this.clock.now() + delayMs;
    slot.seq = this.nextSeq++;
    this.heap.push(slot);
    if (!this.draining) this.arm();
  }

  unschedule(lane: PollLane, job: PollJob): void {
    const slot = lane.slots.get(job);
    if (slot === undefined) return;
    slot.deferred = false;
    this.takeOut(slot);
    if (this.heap.size === 0) this.timer.clear();
  }

  private slotFor(lane: PollLane, job: PollJob): LaneSlot {
    let slot = lane.slots.get(job);
    if (slot === undefined) {
      if (typeof job?.run !== "function") throw new TypeError("a poll job must have a run() method");
      slot = new LaneSlot(job, lane, this.slotDone);
      lane.slots.set(job, slot);
    }
    return slot;
  }

  /** Removes a slot from the heap or from its share's queue, wherever it is. */
  private takeOut(slot: LaneSlot): void {
    if (slot.index < 0) return;
    if (slot.parked) {
      slot.parked = false;
      slot.lane.share.waiting.remove(slot);
    } else {
      this.heap.remove(slot);
    }
  }

  /** Starts every due job whose share has a free slot, earliest first; parks the others in their share's queue. */
  private drain(): void {
    const heap = this.heap;
    const now = this.clock.now();
    this.draining = true;
    try {
      for (;;) {
        const top = heap.peek();
        if (this.closed || top === undefined || top.due > now) break;
        heap.pop();
        if (top.lane.closed) continue;
        if (top.running) top.deferred = true;
        else if (!top.lane.share.paused && top.lane.share.running < top.lane.share.size) this.start(top);
        else {
          top.parked = true;
          top.lane.share.waiting.push(top);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private start(slot: LaneSlot): void {
    slot.running = true;
    slot.lane.share.running++;
    try {
      slot.job.run(slot.done);
    } catch (error) {
      try {
        slot.lane.onJobError?.(error, slot.job);
      } catch {
        // A faulty error reporter must not stop the scheduler either.
      }
      slot.done();
    }
  }

  private finish(slot: LaneSlot): void {
    slot.running = false;
    const share = slot.lane.share;
    share.running--;
    if (slot.deferred && !this.closed && !slot.lane.closed) {
      // Due while it ran: it waits for a slot like any due job of its share.
      slot.deferred = false;
      slot.parked = true;
      share.waiting.push(slot);
    }
    if (this.closed) return;
    this.startWaiting(share);
    if (!this.draining) this.arm();
  }

  /** Starts due jobs of `share` while it has free slots. */
  private startWaiting(share: PollShare): void {
    while (!share.paused && share.running < share.size) {
      const next = share.waiting.pop();
      if (next === undefined) return;
      next.parked = false;
      if (!next.lane.closed && !next.running) this.start(next);
    }
  }

  /** Makes sure the timer fires by the time the earliest job in the heap is due. */
  private arm(): void {
    const top = this.heap.peek();
    if (top === undefined || this.closed) this.timer.clear();
    else this.timer.wakeBy(top.due);
  }
}

/**
 * Each server's share of a host-wide limit of `limit` polls at once over `servers` servers: `floor(limit /
 * servers)`. A limit below the number of servers would leave a server without a slot: a `RangeError`.
 */
export function fairShare(limit: number, servers: number): number {
  if (!(limit === Infinity || (Number.isInteger(limit) && limit >= servers))) {
    throw new RangeError(
      `maxInFlight must be a whole number at least the number of servers (${servers}), got ${String(limit)}`,
    );
  }
  return limit === Infinity ? Infinity : Math.floor(limit / servers);
}
