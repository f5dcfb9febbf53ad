/**
 * The host's reconnect loop in fake time: attempts are spaced by the retries' backoff rule (equal jitter, so with
 * the random source at 0 each wait is half the exponential backoff), bounded in number, and stopped by `close()`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TransportError } from "mcp-tasks";
import { Reconnects, reconnectTiming } from "../../../src/host/reconnect.js";

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(Math, "random").mockReturnValue(0);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const down = new TransportError("connect ECONNREFUSED", { transient: true });

function loop(failures: number, retries = 4) {
  const attempts: number[] = [];
  const gaveUp: number[] = [];
  let left = failures;
  const reconnects = new Reconnects({
    timing: reconnectTiming({ retries, minTimeoutMs: 1_000, maxTimeoutMs: 30_000, factor: 2 }) as never,
    connect: async () => {
      attempts.push(Date.now());
      if (left-- > 0) throw down;
    },
    retrying: () => undefined,
    gaveUp: (_name, _error, count) => gaveUp.push(count),
  });
  return { reconnects, attempts, gaveUp };
}

describe("reconnecting a server", () => {
  it("backs off between attempts and stops once one succeeds", async () => {
    vi.setSystemTime(0);
    const { reconnects, attempts, gaveUp } = loop(2);
    reconnects.start("files", down);
    await vi.advanceTimersByTimeAsync(60_000);
    // Waits of 500, 1000 and 2000 ms: half of 1 s, 2 s and 4 s.
    expect(attempts).toEqual([500, 1_500, 3_500]);
    expect(gaveUp).toEqual([]);
    expect(reconnects.has("files")).toBe(false);
  });

  it("gives up after `retries` attempts", async () => {
    vi.setSystemTime(0);
    const { reconnects, attempts, gaveUp } = loop(Infinity, 3);
    reconnects.start("files", down);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(attempts).toHaveLength(3);
    expect(gaveUp).toEqual([3]);
  });

  it("attempts nothing more once closed", async () => {
    const { reconnects, attempts } = loop(Infinity);
    reconnects.start("files", down);
    reconnects.close();
    reconnects.start("other", down);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(attempts).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("refuses a reconnect option that is not false or an object", () => {
    expect(() => reconnectTiming(3 as never)).toThrow(
      "`reconnect` must be false or { retries, minTimeoutMs, … }",
    );
    expect(reconnectTiming(false)).toBeUndefined();
  });
});
