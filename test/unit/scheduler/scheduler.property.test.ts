/**
 * Random sequences of schedule (with a delay, or none) / unschedule / time passing, checked against a model of what
 * should be pending: every job runs at or after its due time, once per schedule, never twice at once, within the
 * in-flight cap, and the scheduler's own view (size, one timer at most) always matches the model.
 */
import fc from "fast-check";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { PollScheduler, type PollJob } from "../../../src/scheduler/index.js";
import { CountingClock, ModelJobs } from "./helpers.js";

type Op =
  | { kind: "schedule"; job: number; delay: number }
  | { kind: "now"; job: number }
  | { kind: "unschedule"; job: number }
  | { kind: "advance"; ms: number };

const JOBS = 6;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("schedule"), job: fc.nat(JOBS - 1), delay: fc.nat(300) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("now"), job: fc.nat(JOBS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("unschedule"), job: fc.nat(JOBS - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("advance"), ms: fc.nat(200) }) },
) as fc.Arbitrary<Op>;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it("runs every job at or after its due time, exactly once per schedule, within the cap (property)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(opArb, { maxLength: 80, size: "max" }),
      fc.array(fc.nat(300), { minLength: JOBS, maxLength: JOBS }),
      fc.constantFrom(1, 2, 3, Infinity),
      async (ops, latencies, maxInFlight) => {
        const clock = new CountingClock();
        const scheduler = new PollScheduler({ clock, maxInFlight });
        /** The model: when each job is due, or undefined when it has no pending run. */
        const model = new ModelJobs(latencies, (running) =>
          running.size > maxInFlight ? `${running.size} runs exceed the cap ${maxInFlight}` : undefined,
        );
        const { due, jobs, violations } = model;

        const checkAgreement = () => {
          expect(violations).toEqual([]);
          expect(clock.live).toBeLessThanOrEqual(1);
          expect(scheduler.size).toBe(due.filter((at) => at !== undefined).length);
        };

        for (const op of ops) {
          if (op.kind === "advance") {
            await vi.advanceTimersByTimeAsync(op.ms);
          } else if (op.kind === "unschedule") {
            scheduler.unschedule(jobs[op.job] as PollJob);
            due[op.job] = undefined;
          } else {
            const delay = op.kind === "schedule" ? op.delay : 0;
            scheduler.schedule(jobs[op.job] as PollJob, delay);
            due[op.job] = performance.now() + delay;
          }
          checkAgreement();
        }

        const expectedRuns = model.runs + model.pending;
        await vi.advanceTimersByTimeAsync(JOBS * 1000);
        checkAgreement();
        expect(model.runs).toBe(expectedRuns);
        expect(scheduler.inFlight).toBe(0);
        expect(clock.live).toBe(0);
        expect(vi.getTimerCount()).toBe(0);
      },
    ),
    { numRuns: 300 },
  );
});
