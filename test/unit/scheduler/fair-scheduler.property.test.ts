/**
 * Random sequences of schedule / unschedule / time passing over two shares of one `FairPollScheduler`, checked
 * against a model: every job runs at or after its due time, once per schedule, never twice at once, and no share
 * ever has more runs out than its size; whatever is pending runs in the end, and no timer is left behind.
 */
import fc from "fast-check";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { FairPollScheduler } from "../../../src/scheduler/fair-scheduler.js";
import type { PollJob } from "../../../src/scheduler/index.js";
import { CountingClock, ModelJobs } from "./helpers.js";

type Op =
  | { kind: "schedule"; job: number; delay: number }
  | { kind: "unschedule"; job: number }
  | { kind: "advance"; ms: number };

/** Jobs 0–3 on the first share, 4–7 on the second. */
const JOBS = 8;
const shareOf = (job: number): 0 | 1 => (job < JOBS / 2 ? 0 : 1);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("schedule"), job: fc.nat(JOBS - 1), delay: fc.nat(300) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("unschedule"), job: fc.nat(JOBS - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("advance"), ms: fc.nat(200) }) },
) as fc.Arbitrary<Op>;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it("runs every job at or after its due time, once per schedule, within its share (property)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(opArb, { maxLength: 80, size: "max" }),
      fc.array(fc.nat(300), { minLength: JOBS, maxLength: JOBS }),
      fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })),
      async (ops, latencies, sizes) => {
        const clock = new CountingClock();
        const scheduler = new FairPollScheduler({ clock });
        const lanes = sizes.map((size) => scheduler.share(size).lane());
        const model = new ModelJobs(latencies, (running, id) => {
          const share = shareOf(id);
          const out = [...running].filter((job) => shareOf(job) === share).length;
          return out > sizes[share] ? `share ${share} has ${out} runs out, over ${sizes[share]}` : undefined;
        });
        const { due, jobs, violations } = model;

        for (const op of ops) {
          const lane = lanes[shareOf(op.kind === "advance" ? 0 : op.job)];
          if (op.kind === "advance") await vi.advanceTimersByTimeAsync(op.ms);
          else if (op.kind === "unschedule") {
            lane?.unschedule(jobs[op.job] as PollJob);
            due[op.job] = undefined;
          } else {
            lane?.schedule(jobs[op.job] as PollJob, op.delay);
            due[op.job] = performance.now() + op.delay;
          }
          expect(violations).toEqual([]);
          expect(clock.live).toBeLessThanOrEqual(1);
        }

        const expectedRuns = model.runs + model.pending;
        await vi.advanceTimersByTimeAsync(JOBS * 1000);
        expect(violations).toEqual([]);
        expect(model.runs).toBe(expectedRuns);
        expect(clock.live).toBe(0);
        expect(vi.getTimerCount()).toBe(0);
      },
    ),
    { numRuns: 300 },
  );
});

it("drops a closed lane's pending runs, and counts its runs still out against its share", () => {
  vi.setSystemTime(0);
  const scheduler = new FairPollScheduler();
  const share = scheduler.share(1);
  const old = share.lane();
  const ran: string[] = [];
  let finishOld: () => void = () => undefined;
  old.schedule({ run: (done) => (ran.push("old out"), (finishOld = done)) }, 0);
  old.schedule({ run: () => ran.push("old pending") }, 10);
  vi.advanceTimersByTime(0);
  old.close();
  const fresh = share.lane();
  fresh.schedule({ run: (done) => (ran.push("new"), done()) }, 20);
  vi.advanceTimersByTime(50);
  // The old lane's run still out holds the share's one slot; its pending run never starts.
  expect(ran).toEqual(["old out"]);
  finishOld();
  expect(ran).toEqual(["old out", "new"]);
});

it("holds a paused share's due runs in its queue, the other shares untouched, and starts them on resume", () => {
  vi.setSystemTime(0);
  const scheduler = new FairPollScheduler();
  const down = scheduler.share(2);
  const up = scheduler.share(2).lane();
  const lane = down.lane();
  const ran: string[] = [];
  const job = (name: string): PollJob => ({ run: (done) => (ran.push(`${name}@${Date.now()}`), done()) });
  down.pause();
  lane.schedule(job("a"), 10);
  lane.schedule(job("b"), 20);
  lane.schedule(job("c"), 30);
  up.schedule(job("other"), 15);
  vi.advanceTimersByTime(1_000);
  // Nothing of the paused share went out, however long it was due; the other share ran on time.
  expect(ran).toEqual(["other@15"]);
  down.resume();
  // Back: its due runs start at once, earliest first, within its size (each ends at once here, freeing its slot).
  expect(ran).toEqual(["other@15", "a@1000", "b@1000", "c@1000"]);
  lane.schedule(job("d"), 5);
  vi.advanceTimersByTime(5);
  expect(ran.at(-1)).toBe("d@1005");
  expect(vi.getTimerCount()).toBe(0);
});
