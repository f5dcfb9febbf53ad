import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RpcError, TransportError } from "../../../src/protocol/errors.js";
import fc from "fast-check";
import {
  nextRetryDelay,
  retryDelay,
  withTransientRetry,
  type RetryAttempt,
  type RetryTiming,
} from "../../../src/scheduler/index.js";

const timing: RetryTiming = { retries: 8, minTimeoutMs: 250, maxTimeoutMs: 2000, factor: 2 };
/** The documented default timing, written out (timing.test.ts pins the module's defaults to it). */
const documented: RetryTiming = { retries: 8, minTimeoutMs: 250, maxTimeoutMs: 30_000, factor: 2 };
/** The jitter's extremes: 1 gives the full backoff (the old fixed wait), 0 the shortest wait. */
const longest = () => 1;
const shortest = () => 0;
const transient = (retryAfterMs?: number) =>
  new TransportError("HTTP 503", { status: 503, transient: true, retryAfterMs });

/** Settles into a value the test can inspect without an unhandled rejection. */
function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

/** A request that fails with the given errors in turn, then succeeds; records when each call happened. */
function flaky(failures: unknown[]) {
  const calls: number[] = [];
  const start = performance.now();
  const fn = async () => {
    calls.push(performance.now() - start);
    const failure = failures[calls.length - 1];
    if (failure !== undefined) throw failure;
    return "ok";
  };
  return { fn, calls };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe("withTransientRetry", () => {
  it("calls the request once and sets no timer when it succeeds", async () => {
    const { fn, calls } = flaky([]);
    await expect(withTransientRetry(fn, { timing, random: longest })).resolves.toBe("ok");
    expect(calls).toEqual([0]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with the signal's reason when a retry succeeds after the signal fired", async () => {
    const controller = new AbortController();
    const stop = new Error("stop");
    let calls = 0;
    const fn = async () => {
      calls++;
      if (calls === 1) throw transient();
      controller.abort(stop);
      return "late";
    };
    const result = settle(withTransientRetry(fn, { timing, random: shortest, signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toBe(2);
    expect((await result).error).toBe(stop);
  });

  it("rejects at once with a non-transient error", async () => {
    const notFound = new RpcError("tasks/get", -32602, "unknown task");
    const { fn, calls } = flaky([notFound]);
    await expect(withTransientRetry(fn, { timing, random: longest })).rejects.toBe(notFound);
    const permanent = new TransportError("HTTP 401", { status: 401, transient: false });
    await expect(withTransientRetry(flaky([permanent]).fn, { timing })).rejects.toBe(permanent);
    expect(calls).toEqual([0]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("retries a transient fault after the first backoff and resolves with the later success", async () => {
    const { fn, calls } = flaky([transient(), new RpcError("tasks/get", -32603, "internal error")]);
    const result = settle(withTransientRetry(fn, { timing, random: longest }));
    await vi.advanceTimersByTimeAsync(249);
    expect(calls).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([0, 250]);
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toEqual([0, 250, 750]);
    expect(await result).toEqual({ value: "ok" });
  });

  it("doubles the wait between retries up to the cap, then rejects with the last error", async () => {
    const errors = Array.from({ length: 9 }, () => transient());
    const { fn, calls } = flaky(errors);
    const attempts: RetryAttempt[] = [];
    const result = settle(
      withTransientRetry(fn, { timing, random: longest, onRetry: (attempt) => attempts.push(attempt) }),
    );
    await vi.advanceTimersByTimeAsync(60_000);
    const gaps = calls.slice(1).map((at, i) => at - (calls[i] as number));
    expect(gaps).toEqual([250, 500, 1000, 2000, 2000, 2000, 2000, 2000]);
    expect((await result).error).toBe(errors[8]);
    expect(attempts.map(({ attempt, delayMs }) => [attempt, delayMs])).toEqual([
      [1, 250],
      [2, 500],
      [3, 1000],
      [4, 2000],
      [5, 2000],
      [6, 2000],
      [7, 2000],
      [8, 2000],
    ]);
    expect(attempts[0]?.error).toBe(errors[0]);
  });

  it("stops after the configured number of retries", async () => {
    const errors = [transient(), transient(), transient()];
    const { fn, calls } = flaky(errors);
    const result = settle(withTransientRetry(fn, { timing: { ...timing, retries: 1 }, random: longest }));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([0, 250]);
    expect((await result).error).toBe(errors[1]);
    const none = flaky([transient()]);
    const noRetries = settle(withTransientRetry(none.fn, { timing: { ...timing, retries: 0 } }));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(none.calls).toEqual([0]);
    expect((await noRetries).error).toBeInstanceOf(TransportError);
  });

  it("waits at least as long as the server's Retry-After before the next attempt", async () => {
    const { fn, calls } = flaky([transient(1200), transient(100)]);
    const attempts: RetryAttempt[] = [];
    const onRetry = (attempt: RetryAttempt) => attempts.push(attempt);
    const result = settle(withTransientRetry(fn, { timing, random: shortest, onRetry }));
    await vi.advanceTimersByTimeAsync(1199);
    expect(calls).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([0, 1200]);
    // A Retry-After shorter than the backoff's fixed half does not shorten it.
    await vi.advanceTimersByTimeAsync(249);
    expect(calls).toEqual([0, 1200]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([0, 1200, 1450]);
    expect(await result).toEqual({ value: "ok" });
    expect(attempts.map(({ delayMs }) => delayMs)).toEqual([1200, 250]);
  });

  it("lengthens a Retry-After wait with jitter, by up to half of it, never shortens it", async () => {
    const { fn, calls } = flaky([transient(1200)]);
    const attempts: RetryAttempt[] = [];
    const onRetry = (attempt: RetryAttempt) => attempts.push(attempt);
    const result = settle(withTransientRetry(fn, { timing, random: longest, onRetry }));
    await vi.advanceTimersByTimeAsync(1799);
    expect(calls).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([0, 1800]);
    expect(await result).toEqual({ value: "ok" });
    expect(attempts.map(({ delayMs }) => delayMs)).toEqual([1800]);
  });

  it("bounds a very long Retry-After by maxTimeoutMs before jitter", async () => {
    const { fn, calls } = flaky([transient(3_600_000)]);
    const result = settle(withTransientRetry(fn, { timing, random: shortest }));
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toEqual([0, 2000]);
    expect(await result).toEqual({ value: "ok" });
    const late = flaky([transient(3_600_000)]);
    const lateResult = settle(withTransientRetry(late.fn, { timing, random: longest }));
    await vi.advanceTimersByTimeAsync(3000);
    expect(late.calls).toEqual([0, 3000]);
    expect(await lateResult).toEqual({ value: "ok" });
  });

  it("spreads each wait with equal jitter over [backoff / 2, backoff]", async () => {
    const errors = Array.from({ length: 9 }, () => transient());
    const { fn, calls } = flaky(errors);
    const result = settle(withTransientRetry(fn, { timing, random: shortest }));
    await vi.advanceTimersByTimeAsync(60_000);
    const gaps = calls.slice(1).map((at, i) => at - (calls[i] as number));
    expect(gaps).toEqual([125, 250, 500, 1000, 1000, 1000, 1000, 1000]);
    expect((await result).error).toBe(errors[8]);
  });

  it("does not retry clients that failed together in lockstep (Math.random by default)", async () => {
    const draws = [0, 0.2, 0.4, 0.6, 0.8, 0.999];
    vi.spyOn(Math, "random").mockImplementation(() => draws.shift() ?? 0.5);
    const clients = draws.map(() => flaky([transient()]));
    const results = clients.map(({ fn }) => settle(withTransientRetry(fn, { timing })));
    await vi.advanceTimersByTimeAsync(1000);
    expect(clients.map(({ calls }) => calls[1])).toEqual([125, 150, 175, 200, 225, 249]);
    for (const result of results) expect(await result).toEqual({ value: "ok" });
    vi.restoreAllMocks();
  });

  it("stops retrying when the signal aborts during a backoff wait", async () => {
    const controller = new AbortController();
    const { fn, calls } = flaky([transient(), transient(), transient()]);
    const result = settle(withTransientRetry(fn, { timing, random: longest, signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(300);
    expect(calls).toEqual([0, 250]);
    const reason = new Error("caller gave up");
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([0, 250]);
    expect((await result).error).toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stops retrying when the signal aborts during a Retry-After wait", async () => {
    const controller = new AbortController();
    const { fn, calls } = flaky([transient(10_000), transient()]);
    const result = settle(withTransientRetry(fn, { timing, random: longest, signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([0]);
    expect((await result).error).toBeInstanceOf(DOMException);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("announces no retry for a fault that comes after the signal aborted (none follows)", async () => {
    const controller = new AbortController();
    const retries: number[] = [];
    // The second attempt is in flight when the caller gives up; it then fails with a transient fault.
    let failSecond: (error: unknown) => void = () => undefined;
    let calls = 0;
    const fn = () => {
      calls += 1;
      if (calls === 1) return Promise.reject(transient());
      return new Promise<string>((_resolve, reject) => (failSecond = reject));
    };
    const onRetry = ({ attempt }: RetryAttempt) => void retries.push(attempt);
    const result = settle(
      withTransientRetry(fn, { timing, random: longest, signal: controller.signal, onRetry }),
    );
    await vi.advanceTimersByTimeAsync(300);
    expect({ calls, retries }).toEqual({ calls: 2, retries: [1] });
    controller.abort(new Error("caller gave up"));
    failSecond(transient());
    await vi.advanceTimersByTimeAsync(60_000);
    expect({ calls, retries }).toEqual({ calls: 2, retries: [1] });
    expect((await result).error).toBeDefined();
  });

  it("does not call the request at all when the signal is already aborted", async () => {
    const { fn, calls } = flaky([]);
    const reason = new Error("already aborted");
    await expect(withTransientRetry(fn, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(calls).toEqual([]);
  });

  it("rejects at once when a retry hits a non-transient error", async () => {
    const final = new RpcError("tasks/get", -32602, "expired");
    const { fn, calls } = flaky([transient(), final]);
    const attempts: RetryAttempt[] = [];
    const result = settle(
      withTransientRetry(fn, { timing, random: longest, onRetry: (attempt) => attempts.push(attempt) }),
    );
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([0, 250]);
    expect((await result).error).toBe(final);
    expect(attempts).toHaveLength(1);
  });
});

describe("retryDelay", () => {
  const faultArb = fc.oneof(
    fc.constant(undefined),
    fc.constant(new RpcError("tasks/get", -32603, "internal error")),
    fc
      .oneof(fc.double(), fc.integer({ min: 0, max: 10_000_000 }), fc.constant(undefined))
      .map((retryAfterMs) => transient(retryAfterMs)),
  );
  const timingArb = fc
    .tuple(
      fc.integer({ min: 0, max: 100_000 }),
      fc.integer({ min: 0, max: 100_000 }),
      fc.double({ min: 1, max: 10, noNaN: true }),
    )
    .map(([a, b, factor]): RetryTiming => {
      const [minTimeoutMs, maxTimeoutMs] = [a, b].sort((x, y) => x - y) as [number, number];
      return { retries: 8, minTimeoutMs, maxTimeoutMs, factor };
    });
  const randomArb = fc.infiniteStream(fc.double()).map((stream) => {
    const values = stream[Symbol.iterator]();
    return () => values.next().value as number;
  });

  it("draws from [b/2, b] without Retry-After, b being the capped exponential backoff", () => {
    expect(retryDelay(1, documented, transient(), shortest)).toBe(125);
    expect(retryDelay(1, documented, transient(), () => 0.5)).toBe(187);
    expect(retryDelay(1, documented, transient(), longest)).toBe(250);
    expect(retryDelay(3, documented, undefined, longest)).toBe(1000);
    expect(retryDelay(20, documented, undefined, shortest)).toBe(15_000);
    expect(retryDelay(20, documented, undefined, longest)).toBe(30_000);
  });

  it("never waits less than Retry-After (bounded by maxTimeoutMs), and spreads above it", () => {
    expect(retryDelay(1, documented, transient(5000), shortest)).toBe(5000);
    expect(retryDelay(1, documented, transient(5000), longest)).toBe(7500);
    expect(retryDelay(1, documented, transient(3_600_000), shortest)).toBe(30_000);
    expect(retryDelay(1, documented, transient(3_600_000), longest)).toBe(45_000);
    expect(retryDelay(1, documented, transient(0.2), shortest)).toBe(125);
  });

  it("holds for any attempt, timing, fault and random source (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        timingArb,
        faultArb,
        randomArb,
        (attempt, timing, fault, random) => {
          const wait = retryDelay(attempt, timing, fault, random);
          // The documented backoff, min × factor^(attempt-1) capped at max, written out rather than asked of
          // backoffDelay.
          const backoff = Math.min(
            Math.round(timing.minTimeoutMs * timing.factor ** (attempt - 1)),
            timing.maxTimeoutMs,
          );
          const asked =
            fault instanceof TransportError &&
            typeof fault.retryAfterMs === "number" &&
            fault.retryAfterMs > 0
              ? Math.min(Math.ceil(fault.retryAfterMs), timing.maxTimeoutMs)
              : 0;
          expect(Number.isInteger(wait)).toBe(true);
          expect(wait).toBeGreaterThanOrEqual(asked); // Retry-After is a floor
          expect(wait).toBeGreaterThanOrEqual(Math.ceil(backoff / 2));
          expect(wait).toBeLessThanOrEqual(
            Math.max(asked, Math.ceil(backoff / 2)) + Math.max(backoff, asked) / 2,
          );
          expect(wait).toBeLessThanOrEqual(2 ** 31 - 1); // the longest delay setTimeout holds
          if (asked === 0) expect(wait).toBeLessThanOrEqual(timing.maxTimeoutMs);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("nextRetryDelay says whether to retry at all: transient faults, while retries are left", () => {
    const timing3 = { ...documented, retries: 3 };
    expect(nextRetryDelay(1, timing3, transient(), longest)).toBe(250);
    expect(nextRetryDelay(3, timing3, transient(), longest)).toBe(1000);
    expect(nextRetryDelay(4, timing3, transient(), longest)).toBeUndefined();
    expect(nextRetryDelay(1, timing3, new RpcError("tasks/get", -32602, "unknown task"))).toBeUndefined();
    expect(nextRetryDelay(1, { ...timing3, retries: 0 }, transient())).toBeUndefined();
  });
});
