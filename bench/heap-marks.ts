/**
 * Heap measurements in the middle of a run. At each mark (a server-wide poll count) the process is stopped
 * for a forced full GC and the live heap is read. The stop is the harness's doing, not the library's, so it
 * is kept out of every other figure: its CPU time is counted separately, the event-loop delay monitor is
 * paused across it, and its span is subtracted from any poll gap or latency that contains it.
 */
import type { LoopDelay } from "./loop-delay.js";

export function forceGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("the benchmark needs node --expose-gc");
  gc();
}

export class HeapMarks {
  /** Live heap above the baseline at each mark reached, in bytes. */
  readonly heapAboveBaseline: number[] = [];
  /** CPU time the forced GCs took, in microseconds. */
  cpuUs = 0;
  private readonly pauses: Array<[number, number]> = [];
  private readonly baseline: number;
  private next = 0;

  /** Takes the baseline now (after a forced GC): call it once the library is connected and idle. */
  constructor(
    private readonly marks: readonly number[],
    private readonly loopDelay: LoopDelay,
  ) {
    forceGc();
    this.baseline = process.memoryUsage().heapUsed;
  }

  /** Call on every poll with the running count; measures when a mark is reached. */
  onPoll(polls: number): void {
    if (polls !== this.marks[this.next]) return;
    this.next++;
    this.loopDelay.pause();
    const start = performance.now();
    const cpu = process.cpuUsage();
    forceGc();
    this.heapAboveBaseline.push(process.memoryUsage().heapUsed - this.baseline);
    const spent = process.cpuUsage(cpu);
    this.cpuUs += spent.user + spent.system;
    this.pauses.push([start, performance.now()]);
    this.loopDelay.resume();
  }

  get allReached(): boolean {
    return this.next === this.marks.length;
  }

  /** Milliseconds of forced pauses inside [from, to]. */
  pausedWithin(from: number, to: number): number {
    let total = 0;
    for (const [start, end] of this.pauses) total += Math.max(0, Math.min(end, to) - Math.max(start, from));
    return total;
  }
}
