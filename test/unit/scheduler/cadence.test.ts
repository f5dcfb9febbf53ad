/**
 * The scheduler and the delay policy together, as a task's poll loop uses them: each poll reads the server's
 * latest `pollIntervalMs` and schedules the next one from it.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { DEFAULT_POLL_TIMING, PollScheduler, pollDelay, type PollJob } from "../../../src/scheduler/index.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A poll loop against a fake server whose suggested interval the test changes at will. */
function pollLoop(scheduler: PollScheduler, random: () => number) {
  const server = { pollIntervalMs: undefined as unknown, polls: [] as number[] };
  const start = performance.now();
  const job: PollJob = {
    run: (done) => {
      server.polls.push(performance.now() - start);
      scheduler.schedule(job, pollDelay(server.pollIntervalMs, DEFAULT_POLL_TIMING, random));
      done();
    },
  };
  scheduler.schedule(job, pollDelay(server.pollIntervalMs, DEFAULT_POLL_TIMING, random));
  return server;
}

it("polls at the server's interval and follows it when it changes", async () => {
  const scheduler = new PollScheduler();
  const server = pollLoop(scheduler, () => 0);
  server.pollIntervalMs = 200;
  // The first delay was chosen before the server said anything: the 1000 ms default.
  await vi.advanceTimersByTimeAsync(1400);
  expect(server.polls).toEqual([1000, 1200, 1400]);
  server.pollIntervalMs = 3000;
  await vi.advanceTimersByTimeAsync(7000);
  expect(server.polls).toEqual([1000, 1200, 1400, 1600, 4600, 7600]);
  scheduler.close();
});

it("polls at the floor when the server asks for 0 ms, and at the ceiling for a huge interval", async () => {
  const scheduler = new PollScheduler();
  const server = pollLoop(scheduler, () => 0);
  server.pollIntervalMs = 0;
  await vi.advanceTimersByTimeAsync(1300);
  expect(server.polls).toEqual([1000, 1100, 1200, 1300]);
  server.pollIntervalMs = 10 ** 12;
  await vi.advanceTimersByTimeAsync(120_000);
  expect(server.polls.slice(4)).toEqual([1400, 61_400]);
  scheduler.close();
  expect(vi.getTimerCount()).toBe(0);
});

it("spreads polls of tasks created together across the jitter window, never before the interval", async () => {
  const scheduler = new PollScheduler();
  const randoms = [0, 0.25, 0.5, 0.75, 1];
  const servers = randoms.map((r) => pollLoop(scheduler, () => r));
  await vi.advanceTimersByTimeAsync(1100);
  expect(servers.map((server) => server.polls[0])).toEqual([1000, 1025, 1050, 1075, 1100]);
  scheduler.close();
});
