/**
 * The requests of a session that await an answer. Every poll of every task passes through here, so an entry
 * costs one object and (only when the caller gave a signal) one abort listener: the entry itself is the listener
 * (`handleEvent`), requests with the same timeout share one timer (see `TimeoutLane`), and the caller hears the
 * outcome through a `ReplyTarget` it made (a poll's is made once per task), so no closure is made per request.
 * With telemetry on, the entry also tells the request's watch how it ended (again without a closure).
 * On a transport with one HTTP exchange per request the entry also owns that exchange's abort (`exchange`, a
 * line that makes an `AbortSignal` only when asked: ./abort-line.ts):
 * fetch keeps a listener on the signal it is given until the request is garbage-collected, so one signal shared
 * by every request (the transport's own) would gather thousands of them; and a request given up locally (timed
 * out, aborted) should close its exchange rather than leave it open.
 */
import { redactError, requestTimeout } from "../protocol/errors.js";
import type { ReplyTarget, RequestWatch } from "./types.js";
import type { AbortLine } from "./abort-line.js";
import { systemClock } from "../scheduler/scheduler.js";
import { WakeTimer } from "../scheduler/wake-timer.js";

/** One request in flight. */
export class PendingRequest {
  /** The lane whose timer ends this request (none for an infinite timeout), its deadline and neighbours there. */
  lane: TimeoutLane | undefined = undefined;
  deadline = 0;
  older: PendingRequest | undefined = undefined;
  newer: PendingRequest | undefined = undefined;
  /** Aborts this request's own HTTP exchange; set by the session on per-request-stream transports. */
  exchange: AbortLine | undefined;

  constructor(
    readonly table: PendingTable,
    readonly id: string,
    readonly method: string,
    private readonly reply: ReplyTarget,
    readonly signal: AbortSignal | undefined,
    /** The task a `tasks/*` request is about: its id is redacted from the text of every error this rejects with. */
    readonly taskId: string | undefined,
    /** Telemetry's watch of the request, told first how it ended. */
    private readonly watch: RequestWatch | undefined,
  ) {}

  /** Resolves with the answer's result. */
  answer(result: Record<string, unknown>): void {
    if (this.watch !== undefined) {
      try {
        this.watch.answered(result);
      } catch {
        // Telemetry must never keep an answer from its caller.
      }
    }
    try {
      this.reply.answered(result);
    } catch (error) {
      this.table.report(error); // a faulty target must not break the transport's message loop
    }
  }

  /** Rejects with an error this library made, with the task id (if any) redacted from its text. */
  fail(error: unknown): void {
    this.rejectWith(this.taskId === undefined ? error : redactError(error, this.taskId));
  }

  /** Rejects with `error` as it is (an abort reason is the caller's own). */
  rejectWith(error: unknown): void {
    if (this.watch !== undefined) {
      try {
        this.watch.failed(error);
      } catch {
        // As in `answer`.
      }
    }
    try {
      this.reply.failed(error);
    } catch (thrown) {
      this.table.report(thrown);
    }
  }

  /** The caller's signal fired: abandon the request locally. */
  handleEvent(): void {
    this.table.abort(this);
  }
}

/**
 * The waiting requests that have one timeout, oldest first. They were sent in that order on a clock that only
 * goes forward, so it is also the order they time out in, and one timer, set for the oldest, serves them all
 * (the scheduler's `WakeTimer`, whose rule it is: a timer set for an earlier time is kept). A timer per request (an
 * object, a timer list insert and a removal for every poll) cost a poll 3–5 % of its instructions and 0.2 KB of
 * allocation (docs/performance.md).
 */
class TimeoutLane {
  private oldest: PendingRequest | undefined = undefined;
  private newest: PendingRequest | undefined = undefined;
  /** Set for the oldest deadline; left set when that entry goes (firing early, it finds nothing due). */
  private readonly timer = new WakeTimer(systemClock, () => this.expireDue());

  constructor(
    private readonly table: PendingTable,
    readonly timeoutMs: number,
  ) {}

  add(entry: PendingRequest): void {
    entry.lane = this;
    entry.deadline = systemClock.now() + this.timeoutMs;
    entry.older = this.newest;
    if (this.newest === undefined) this.oldest = entry;
    else this.newest.newer = entry;
    this.newest = entry;
    if (this.oldest === entry) this.timer.wakeBy(entry.deadline);
  }

  /** Takes an entry out; no timer is left once none waits. */
  remove(entry: PendingRequest): void {
    const { older, newer } = entry;
    if (older === undefined) this.oldest = newer;
    else older.newer = newer;
    if (newer === undefined) this.newest = older;
    else newer.older = older;
    entry.lane = entry.older = entry.newer = undefined;
    if (this.oldest === undefined) this.timer.clear();
  }

  /** Fails every request whose deadline has passed; the timer is set again for the oldest one left. */
  private expireDue(): void {
    const now = systemClock.now();
    for (let entry = this.oldest; entry !== undefined && entry.deadline <= now; entry = this.oldest) {
      this.table.take(entry.id);
      entry.exchange?.abort();
      entry.fail(requestTimeout(entry.method, this.timeoutMs));
    }
    if (this.oldest !== undefined) this.timer.wakeBy(this.oldest.deadline);
  }
}

export class PendingTable {
  private readonly entries = new Map<string, PendingRequest>();
  private readonly lanes = new Map<number, TimeoutLane>();

  /** `report` hears what a reply target threw. */
  constructor(readonly report: (error: unknown) => void) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * Registers a request. Returns undefined (and rejects at once with the signal's reason) when the signal has
   * already fired: such a request is never sent.
   */
  add(
    id: string,
    method: string,
    reply: ReplyTarget,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    taskId?: string,
    watch?: RequestWatch,
  ): PendingRequest | undefined {
    const entry = new PendingRequest(this, id, method, reply, signal, taskId, watch);
    if (signal?.aborted) {
      entry.rejectWith(abortReason(signal));
      return undefined;
    }
    // A listen waits as long as its stream lasts: an infinite timeout sets no timer.
    if (Number.isFinite(timeoutMs)) this.laneFor(timeoutMs).add(entry);
    signal?.addEventListener("abort", entry, { once: true });
    this.entries.set(id, entry);
    return entry;
  }

  /** Removes and returns the entry for `id` (undefined if it was answered, timed out or abandoned already). */
  take(id: string): PendingRequest | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    this.entries.delete(id);
    entry.lane?.remove(entry);
    entry.signal?.removeEventListener("abort", entry);
    return entry;
  }

  private laneFor(timeoutMs: number): TimeoutLane {
    let lane = this.lanes.get(timeoutMs);
    if (lane === undefined) {
      lane = new TimeoutLane(this, timeoutMs);
      this.lanes.set(timeoutMs, lane);
    }
    return lane;
  }

  abort(entry: PendingRequest): void {
    if (this.take(entry.id) !== entry) return;
    entry.exchange?.abort(entry.signal?.reason);
    entry.rejectWith(abortReason(entry.signal));
  }

  /** Rejects every request still waiting, with the error `reason` builds for its method. */
  rejectAll(reason: (method: string) => unknown): void {
    for (const id of [...this.entries.keys()]) {
      const entry = this.take(id);
      entry?.fail(reason(entry.method));
    }
  }
}

function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException("The request was aborted", "AbortError");
}
