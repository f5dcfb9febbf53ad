import pRetry from "p-retry";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RpcError, TransportError } from "../../../src/protocol/errors.js";
import { withTransientRetry, type RetryAttempt, type RetryTiming } from "../../../src/scheduler/index.js";

vi.mock("p-retry", async (importOriginal) => {
  const original = await importOriginal<typeof import("p-retry")>();
  return { ...original, default: vi.fn(original.default) };
});

const timing: RetryTiming = { retries: 8, minTimeoutMs: 250, maxTimeoutMs: 2000, factor: 2 };
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
  vi.mocked(pRetry).mockClear();
});
afterEach(() => vi.useRealTimers());

describe("withTransientRetry", () => {
  it("calls the request once and never touches p-retry when it succeeds", async () => {
    const { fn, calls } = flaky([]);
    await expect(withTransientRetry(fn, { timing })).resolves.toBe("ok");
    expect(calls).toEqual([0]);
    expect(pRetry).not.toHaveBeenCalled();
  });

  it("rejects at once with a non-transient error", async () => {
    const notFound = new RpcError("tasks/get", -32602, "unknown task");
    const { fn, calls } = flaky([notFound]);
    await expect(withTransientRetry(fn, { timing })).rejects.toBe(notFound);
    const permanent = new TransportError("HTTP 401", { status: 401, transient: false });
    await expect(withTransientRetry(flaky([permanent]).fn, { timing })).rejects.toBe(permanent);
    expect(calls).toEqual([0]);
    expect(pRetry).not.toHaveBeenCalled();
  });

  it("retries a transient fault after the first backoff and resolves with the later success", async () => {
    const { fn, calls } = flaky([transient(), new RpcError("tasks/get", -32603, "internal error")]);
    const result = settle(withTransientRetry(fn, { timing }));
    await vi.advanceTimersByTimeAsync(249);
    expect(calls).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([0, 250]);
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toEqual([0, 250, 750]);
    expect(await result).toEqual({ value: "ok" });
    expect(pRetry).toHaveBeenCalledTimes(1);
  });

  it("doubles the wait between retries up to the cap, then rejects with the last error", async () => {
    const errors = Array.from({ length: 9 }, () => transient());
    const { fn, calls } = flaky(errors);
    const attempts: RetryAttempt[] = [];
    const result = settle(withTransientRetry(fn, { timing, onRetry: (attempt) => attempts.push(attempt) }));
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
    const result = settle(withTransientRetry(fn, { timing: { ...timing, retries: 1 } }));
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
    const result = settle(withTransientRetry(fn, { timing, onRetry: (attempt) => attempts.push(attempt) }));
    await vi.advanceTimersByTimeAsync(1199);
    expect(calls).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([0, 1200]);
    // A Retry-After shorter than the backoff does not shorten it.
    await vi.advanceTimersByTimeAsync(499);
    expect(calls).toEqual([0, 1200]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([0, 1200, 1700]);
    expect(await result).toEqual({ value: "ok" });
    expect(attempts.map(({ delayMs }) => delayMs)).toEqual([1200, 500]);
  });

  it("bounds a very long Retry-After by maxTimeoutMs", async () => {
    const { fn, calls } = flaky([transient(3_600_000)]);
    const result = settle(withTransientRetry(fn, { timing }));
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toEqual([0, 2000]);
    expect(await result).toEqual({ value: "ok" });
  });

  it("stops retrying when the signal aborts during a backoff wait", async () => {
    const controller = new AbortController();
    const { fn, calls } = flaky([transient(), transient(), transient()]);
    const result = settle(withTransientRetry(fn, { timing, signal: controller.signal }));
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
    const result = settle(withTransientRetry(fn, { timing, signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([0]);
    expect((await result).error).toBeInstanceOf(DOMException);
    expect(vi.getTimerCount()).toBe(0);
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
    const result = settle(withTransientRetry(fn, { timing, onRetry: (attempt) => attempts.push(attempt) }));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([0, 250]);
    expect((await result).error).toBe(final);
    expect(attempts).toHaveLength(1);
  });
});
