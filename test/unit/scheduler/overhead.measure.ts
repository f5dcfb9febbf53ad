/**
 * A rough measurement of the scheduler's own cost, for the per-poll budget (≤ 20 µs CPU per poll in total).
 * Not a unit test (vitest does not pick it up): run `node --expose-gc --import tsx test/unit/scheduler/overhead.measure.ts`.
 *
 * 1. Simulated time: 100,000 jobs that reschedule themselves on every run, driven by a hand-cranked clock,
 *    so the figure is pure scheduler overhead with no real waiting.
 * 2. Real timers: 10,000 jobs every 100 ms and 100,000 jobs every 5 s, reporting CPU per poll and the mean
 *    gap between two polls of one job.
 * 3. Retained heap per scheduled job.
 */
import {
  DEFAULT_POLL_TIMING,
  PollScheduler,
  pollDelay,
  type SchedulerClock,
} from "../../../src/scheduler/index.js";

/** A clock the script moves by hand; it keeps the one pending timer the scheduler may hold. */
class ManualClock implements SchedulerClock {
  time = 0;
  pending: { callback: () => void; at: number } | undefined;
  fires = 0;
  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, delayMs: number): unknown {
    this.pending = { callback, at: this.time + delayMs };
    return this.pending;
  }
  clearTimeout(timer: unknown): void {
    if (this.pending === timer) this.pending = undefined;
  }
}

const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

async function simulated(jobs: number, polls: number, maxInFlight: number): Promise<void> {
  const clock = new ManualClock();
  const scheduler = new PollScheduler({ clock, maxInFlight });
  const timing = { ...DEFAULT_POLL_TIMING, minIntervalMs: 10 };
  let runs = 0;
  const list = Array.from({ length: jobs }, () => {
    const job = {
      run: (done: () => void) => {
        runs++;
        scheduler.schedule(job, pollDelay(100, timing));
        done();
      },
    };
    return job;
  });
  list.forEach((job, i) => scheduler.schedule(job, i % 100));
  const target = jobs * polls;
  const cpu = process.cpuUsage();
  const wall = performance.now();
  while (runs < target) {
    const pending = clock.pending;
    if (pending === undefined) {
      await macrotask();
      continue;
    }
    clock.time = Math.max(clock.time, pending.at);
    clock.pending = undefined;
    clock.fires++;
    pending.callback();
    await macrotask();
  }
  const used = process.cpuUsage(cpu);
  const micros = (used.user + used.system) / runs;
  console.log(
    `simulated: ${jobs} jobs × ${polls} polls (cap ${maxInFlight}): ${micros.toFixed(2)} µs CPU per schedule+run ` +
      `(${runs} runs, ${clock.fires} timer fires, ${(performance.now() - wall).toFixed(0)} ms wall)`,
  );
  scheduler.close();
}

/** The cost of the same job body without any scheduler: a call and its `done`. */
function baseline(count: number): void {
  let runs = 0;
  const run = (done: () => void) => {
    runs++;
    done();
  };
  const noop = () => {};
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) run(noop);
  const used = process.cpuUsage(cpu);
  console.log(
    `baseline: job call and done, no scheduler: ${((used.user + used.system) / count).toFixed(2)} µs`,
  );
  void runs;
}

async function realTimers(jobs: number, intervalMs: number, durationMs: number): Promise<void> {
  const scheduler = new PollScheduler({ maxInFlight: 64 });
  const timing = { ...DEFAULT_POLL_TIMING, minIntervalMs: 10 };
  let polls = 0;
  let gapSum = 0;
  let gapCount = 0;
  let stopped = false;
  for (let i = 0; i < jobs; i++) {
    let last = -1;
    const job = {
      run: (done: () => void) => {
        const now = performance.now();
        if (last >= 0) {
          gapSum += now - last;
          gapCount++;
        }
        last = now;
        polls++;
        if (!stopped) scheduler.schedule(job, pollDelay(intervalMs, timing));
        done();
      },
    };
    scheduler.schedule(job, Math.random() * intervalMs);
  }
  const cpu = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  stopped = true;
  const used = process.cpuUsage(cpu);
  scheduler.close();
  console.log(
    `real timers: ${jobs} jobs every ${intervalMs} ms for ${durationMs} ms: ${polls} polls, ` +
      `${((used.user + used.system) / polls).toFixed(2)} µs CPU per poll (whole process), ` +
      `mean gap ${(gapSum / gapCount).toFixed(1)} ms`,
  );
}

function heapPerJob(jobs: number): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    console.log("heap: run node with --expose-gc to measure");
    return;
  }
  const scheduler = new PollScheduler();
  const list = Array.from({ length: jobs }, () => ({ run: (done: () => void) => done() }));
  gc();
  const before = process.memoryUsage().heapUsed;
  for (const job of list) scheduler.schedule(job, 1000 + Math.random() * 1000);
  gc();
  const after = process.memoryUsage().heapUsed;
  console.log(
    `heap: ${((after - before) / jobs).toFixed(0)} bytes retained by the scheduler per scheduled job`,
  );
  scheduler.close();
}

baseline(1_000_000);
await simulated(100_000, 5, 64);
await simulated(100_000, 5, Infinity);
await simulated(10_000, 50, 64);
heapPerJob(100_000);
await realTimers(10_000, 100, 5000);
await realTimers(100_000, 5000, 15_000);
