import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PollScheduler, type PollJob } from "../../../src/scheduler/index.js";
import { CountingClock, deferred, type Deferred } from "./helpers.js";

/** A job that records when it ran, relative to the test's start. */
function recordingJob(log: string[], name: string, start: number): PollJob & { times: number[] } {
  const times: number[] = [];
  return {
    times,
    run: (done) => {
      times.push(performance.now() - start);
      log.push(name);
      done();
    },
  };
}

/** A job whose runs stay in flight until the test settles them. */
function blockingJob(name: string, started: string[]) {
  const runs: Deferred[] = [];
  const job: PollJob = {
    run: (done) => {
      started.push(name);
      const run = deferred();
      runs.push(run);
      void run.promise.then(done, done);
    },
  };
  return { job, runs };
}

let start = 0;
beforeEach(() => {
  vi.useFakeTimers();
  start = performance.now();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("PollScheduler timing", () => {
  it("runs a job once its delay has passed, not before", async () => {
    const scheduler = new PollScheduler();
    const job = recordingJob([], "a", start);
    scheduler.schedule(job, 100);
    await vi.advanceTimersByTimeAsync(99);
    expect(job.times).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(job.times).toEqual([100]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(job.times).toEqual([100]);
  });

  it("moves an already scheduled job instead of running it twice", async () => {
    const scheduler = new PollScheduler();
    const later = recordingJob([], "later", start);
    const earlier = recordingJob([], "earlier", start);
    scheduler.schedule(later, 100);
    scheduler.schedule(later, 500);
    scheduler.schedule(earlier, 500);
    scheduler.schedule(earlier, 50);
    expect(scheduler.size).toBe(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(later.times).toEqual([500]);
    expect(earlier.times).toEqual([50]);
  });

  it("runs a job at once when scheduled again with no delay, ahead of its earlier time", async () => {
    const scheduler = new PollScheduler();
    const job = recordingJob([], "a", start);
    scheduler.schedule(job, 5000);
    await vi.advanceTimersByTimeAsync(10);
    scheduler.schedule(job, 0);
    await vi.advanceTimersByTimeAsync(0);
    expect(job.times).toEqual([10]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(job.times).toEqual([10]);
  });

  it("starts jobs due at the same moment in the order they were scheduled", async () => {
    const scheduler = new PollScheduler();
    const log: string[] = [];
    for (const name of ["c", "a", "d", "b"]) scheduler.schedule(recordingJob(log, name, start), 200);
    await vi.advanceTimersByTimeAsync(200);
    expect(log).toEqual(["c", "a", "d", "b"]);
  });

  it("does not run an unscheduled job and reports what is pending", async () => {
    const scheduler = new PollScheduler();
    const kept = recordingJob([], "kept", start);
    const dropped = recordingJob([], "dropped", start);
    scheduler.schedule(kept, 100);
    scheduler.schedule(dropped, 100);
    scheduler.unschedule(dropped);
    scheduler.unschedule(dropped);
    scheduler.unschedule(recordingJob([], "never scheduled", start));
    expect(scheduler.size).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(kept.times).toEqual([100]);
    expect(dropped.times).toEqual([]);
    expect(scheduler.size).toBe(0);
  });

  it("lets a job reschedule itself from inside its run", async () => {
    const scheduler = new PollScheduler();
    const times: number[] = [];
    const job: PollJob = {
      run: (done) => {
        times.push(performance.now() - start);
        void Promise.resolve().then(() => {
          if (times.length < 3) scheduler.schedule(job, 250);
          done();
        });
      },
    };
    scheduler.schedule(job, 250);
    await vi.advanceTimersByTimeAsync(5000);
    expect(times).toEqual([250, 500, 750]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("PollScheduler in-flight cap", () => {
  it("never runs more jobs at once than maxInFlight, and starts waiting jobs as runs finish", async () => {
    const scheduler = new PollScheduler({ maxInFlight: 3 });
    const started: string[] = [];
    const jobs = Array.from({ length: 10 }, (_, i) => blockingJob(`j${i}`, started));
    let peak = 0;
    const track = () => (peak = Math.max(peak, scheduler.inFlight));
    jobs.forEach(({ job }, i) => scheduler.schedule(job, 10 + i));
    await vi.advanceTimersByTimeAsync(100);
    track();
    expect(started).toEqual(["j0", "j1", "j2"]);
    expect(scheduler.inFlight).toBe(3);
    expect(scheduler.size).toBe(7);

    for (let finished = 0; finished < 10; finished++) {
      jobs[finished]?.runs[0]?.resolve();
      await vi.advanceTimersByTimeAsync(0);
      track();
    }
    expect(started).toEqual(jobs.map((_, i) => `j${i}`));
    expect(peak).toBe(3);
    expect(scheduler.inFlight).toBe(0);
    expect(scheduler.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("starts waiting jobs in due order, not in the order they were scheduled", async () => {
    const scheduler = new PollScheduler({ maxInFlight: 1 });
    const started: string[] = [];
    const blocker = blockingJob("blocker", started);
    const [late, early, middle] = [
      blockingJob("late", started),
      blockingJob("early", started),
      blockingJob("mid", started),
    ];
    scheduler.schedule(blocker.job, 0);
    await vi.advanceTimersByTimeAsync(0);
    scheduler.schedule(late.job, 30);
    scheduler.schedule(early.job, 10);
    scheduler.schedule(middle.job, 20);
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toEqual(["blocker"]);

    blocker.runs[0]?.resolve();
    await vi.advanceTimersByTimeAsync(0);
    early.runs[0]?.resolve();
    await vi.advanceTimersByTimeAsync(0);
    middle.runs[0]?.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual(["blocker", "early", "mid", "late"]);
  });

  it("never runs the same job twice at once: a run that comes due mid-run waits for it", async () => {
    const scheduler = new PollScheduler();
    const started: string[] = [];
    const { job, runs } = blockingJob("a", started);
    scheduler.schedule(job, 0);
    await vi.advanceTimersByTimeAsync(0);
    scheduler.schedule(job, 0);
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toEqual(["a"]);
    expect(scheduler.size).toBe(1);

    runs[0]?.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual(["a", "a"]);
    expect(scheduler.inFlight).toBe(1);
    expect(scheduler.size).toBe(0);
    runs[1]?.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(scheduler.inFlight).toBe(0);
  });

  it("drops a run that came due mid-run when the job is unscheduled before the first run ends", async () => {
    const scheduler = new PollScheduler();
    const started: string[] = [];
    const { job, runs } = blockingJob("a", started);
    scheduler.schedule(job, 0);
    await vi.advanceTimersByTimeAsync(0);
    scheduler.schedule(job, 10);
    await vi.advanceTimersByTimeAsync(20);
    scheduler.unschedule(job);
    expect(scheduler.size).toBe(0);
    runs[0]?.resolve();
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toEqual(["a"]);
  });

  it("rejects a maxInFlight that is not a whole number of at least 1", () => {
    expect(() => new PollScheduler({ maxInFlight: 0 })).toThrow(RangeError);
    expect(() => new PollScheduler({ maxInFlight: 2.5 })).toThrow(RangeError);
    expect(() => new PollScheduler({ maxInFlight: "4" as unknown as number })).toThrow(TypeError);
    expect(new PollScheduler({ maxInFlight: Infinity }).inFlight).toBe(0);
  });
});

describe("PollScheduler timers", () => {
  it("watches many jobs with at most one live timer", async () => {
    const clock = new CountingClock();
    const scheduler = new PollScheduler({ clock, maxInFlight: 16 });
    let runs = 0;
    const jobs: PollJob[] = Array.from({ length: 500 }, (_, i) => {
      let polls = 0;
      const job: PollJob = {
        run: (done) => {
          runs++;
          if (++polls < 5) scheduler.schedule(job, 100 + ((i * 37) % 50));
          done();
        },
      };
      return job;
    });
    jobs.forEach((job, i) => scheduler.schedule(job, (i * 13) % 200));
    for (let step = 0; step < 100; step++) {
      await vi.advanceTimersByTimeAsync(10);
      expect(clock.live).toBeLessThanOrEqual(1);
    }
    expect(runs).toBe(2500);
    expect(clock.maxLive).toBe(1);
    expect(clock.live).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("sets one timer for jobs scheduled in due order, and re-arms only for an earlier job", () => {
    const clock = new CountingClock();
    const scheduler = new PollScheduler({ clock });
    for (let i = 0; i < 1000; i++) scheduler.schedule({ run: (done: () => void) => done() }, 100 + i);
    expect(clock.created).toBe(1);
    scheduler.schedule({ run: (done: () => void) => done() }, 50);
    expect(clock.created).toBe(2);
    expect(clock.live).toBe(1);
    scheduler.close();
  });

  it("holds no timer while nothing is scheduled", async () => {
    const scheduler = new PollScheduler();
    expect(vi.getTimerCount()).toBe(0);
    scheduler.schedule({ run: (done: () => void) => done() }, 100);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(scheduler.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("leaves no timer after the last job is unscheduled", () => {
    const scheduler = new PollScheduler();
    const a = { run: (done: () => void) => done() };
    const b = { run: (done: () => void) => done() };
    scheduler.schedule(a, 100);
    scheduler.schedule(b, 200);
    scheduler.unschedule(a);
    expect(vi.getTimerCount()).toBe(1);
    scheduler.unschedule(b);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("leaves no timer after close, and ignores schedules that arrive later", async () => {
    const scheduler = new PollScheduler();
    const job = recordingJob([], "a", start);
    scheduler.schedule(job, 100);
    scheduler.schedule(recordingJob([], "b", start), 200);
    scheduler.close();
    expect(vi.getTimerCount()).toBe(0);
    expect(scheduler.size).toBe(0);
    scheduler.schedule(job, 10);
    scheduler.schedule(job, 0);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(job.times).toEqual([]);
    expect(scheduler.isClosed).toBe(true);
  });

  it("lets runs in flight at close finish without starting anything new", async () => {
    const scheduler = new PollScheduler({ maxInFlight: 1 });
    const started: string[] = [];
    const a = blockingJob("a", started);
    const b = blockingJob("b", started);
    scheduler.schedule(a.job, 0);
    scheduler.schedule(b.job, 0);
    await vi.advanceTimersByTimeAsync(0);
    scheduler.close();
    a.runs[0]?.resolve();
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toEqual(["a"]);
    expect(scheduler.inFlight).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("PollScheduler faults", () => {
  it("keeps running other jobs when one throws, and reports the error", async () => {
    const errors: Array<[unknown, PollJob]> = [];
    const scheduler = new PollScheduler({ onJobError: (error, job) => errors.push([error, job]) });
    const log: string[] = [];
    const throwing: PollJob = {
      run: () => {
        throw new Error("thrown");
      },
    };
    scheduler.schedule(throwing, 10);
    scheduler.schedule(recordingJob(log, "same batch", start), 10);
    scheduler.schedule(recordingJob(log, "later", start), 50);
    await vi.advanceTimersByTimeAsync(100);
    expect(log).toEqual(["same batch", "later"]);
    expect(errors).toEqual([[new Error("thrown"), throwing]]);
    expect(scheduler.inFlight).toBe(0);
  });

  it("survives a failing error reporter, and counts a run once when its job calls done twice", async () => {
    const scheduler = new PollScheduler({
      maxInFlight: 2,
      onJobError: () => {
        throw new Error("reporter broke");
      },
    });
    const log: string[] = [];
    const started: string[] = [];
    const held = blockingJob("held", started);
    scheduler.schedule(
      {
        run: () => {
          throw new Error("x");
        },
      },
      10,
    );
    scheduler.schedule(
      {
        run: (done) => {
          done();
          done();
        },
      },
      10,
    );
    scheduler.schedule(held.job, 10);
    scheduler.schedule(recordingJob(log, "after", start), 20);
    await vi.advanceTimersByTimeAsync(100);
    expect(log).toEqual(["after"]);
    // The held run still counts: a second done of another job did not free its slot.
    expect(scheduler.inFlight).toBe(1);
    held.runs[0]?.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(scheduler.inFlight).toBe(0);
  });

  it("rejects a delay that is negative, NaN or infinite, and a job without run()", () => {
    const scheduler = new PollScheduler();
    const job = { run: (done: () => void) => done() };
    for (const delay of [-1, Number.NaN, Infinity]) {
      expect(() => scheduler.schedule(job, delay)).toThrow(RangeError);
    }
    expect(() => scheduler.schedule({} as PollJob, 10)).toThrow(TypeError);
    expect(scheduler.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
