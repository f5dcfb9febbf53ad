import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_POLL_TIMING,
  DEFAULT_RETRY_TIMING,
  MAX_TIMER_DELAY_MS,
  pollDelay,
  resolvePollTiming,
  resolveRetryTiming,
  type PollTiming,
} from "../../../src/scheduler/index.js";

const noJitter = { ...DEFAULT_POLL_TIMING, jitter: 0 };
const middle = () => 0.5;

describe("pollDelay", () => {
  it("honours the server's interval when it is within bounds", () => {
    expect(pollDelay(2500, noJitter)).toBe(2500);
    expect(pollDelay(100, noJitter)).toBe(100);
    expect(pollDelay(60_000, noJitter)).toBe(60_000);
  });

  it("uses the default interval when the server suggested none", () => {
    expect(pollDelay(undefined, noJitter)).toBe(1000);
    expect(pollDelay(null, noJitter)).toBe(1000);
    expect(pollDelay(undefined, { ...noJitter, defaultIntervalMs: 4000 })).toBe(4000);
  });

  it("polls at the floor when the server sends zero, a negative number, NaN or a non-number", () => {
    for (const value of [0, -5, -Infinity, Number.NaN, "500", true, {}, [], 10n]) {
      expect(pollDelay(value, noJitter), String(value)).toBe(100);
    }
  });

  it("raises tiny intervals to the floor and caps huge ones at the ceiling", () => {
    expect(pollDelay(1, noJitter)).toBe(100);
    expect(pollDelay(99.4, noJitter)).toBe(100);
    expect(pollDelay(1e12, noJitter)).toBe(60_000);
    expect(pollDelay(Infinity, noJitter)).toBe(60_000);
  });

  it("rounds non-integer intervals to whole milliseconds", () => {
    expect(pollDelay(250.4, noJitter)).toBe(250);
    expect(pollDelay(250.6, noJitter)).toBe(251);
  });

  it("spreads the delay by the jitter fraction in both directions", () => {
    const timing = { ...DEFAULT_POLL_TIMING, jitter: 0.1 };
    expect(pollDelay(2000, timing, () => 0)).toBe(1800);
    expect(pollDelay(2000, timing, () => 1)).toBe(2200);
    expect(pollDelay(2000, timing, middle)).toBe(2000);
    expect(pollDelay(2000, timing, () => 0.75)).toBe(2100);
  });

  it("never jitters below the floor or above the ceiling", () => {
    const timing = { ...DEFAULT_POLL_TIMING, jitter: 0.5 };
    expect(pollDelay(100, timing, () => 0)).toBe(100);
    expect(pollDelay(150, timing, () => 0)).toBe(100);
    expect(pollDelay(60_000, timing, () => 1)).toBe(60_000);
  });

  it("never returns more than setTimeout can hold, even with unchecked bounds", () => {
    const unchecked: PollTiming = {
      defaultIntervalMs: 1e15,
      minIntervalMs: 0,
      maxIntervalMs: 1e16,
      jitter: 1,
    };
    expect(pollDelay(undefined, unchecked, () => 1)).toBe(MAX_TIMER_DELAY_MS);
    expect(pollDelay(2 ** 40, unchecked, middle)).toBe(MAX_TIMER_DELAY_MS);
  });

  it("keeps every delay within bounds and within ±jitter of the clamped interval (property)", () => {
    const timingArb = fc
      .tuple(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
      )
      .map(([a, b, c, jitter]): PollTiming => {
        const [min, dflt, max] = [a, b, c].sort((x, y) => x - y) as [number, number, number];
        return { minIntervalMs: min, defaultIntervalMs: dflt, maxIntervalMs: max, jitter };
      });
    const serverArb = fc.oneof(
      fc.integer({ min: -1000, max: 200_000 }),
      fc.double({ min: -1e6, max: 1e13 }),
      fc.constantFrom(undefined, null, Number.NaN, Infinity, -Infinity, 0, "100"),
      fc.anything(),
    );
    fc.assert(
      fc.property(serverArb, timingArb, fc.double({ min: 0, max: 1, noNaN: true }), (server, timing, r) => {
        const delay = pollDelay(server, timing, () => r);
        const clamped = pollDelay(server, { ...timing, jitter: 0 });
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(timing.minIntervalMs);
        expect(delay).toBeLessThanOrEqual(timing.maxIntervalMs);
        expect(Math.abs(delay - clamped)).toBeLessThanOrEqual(clamped * timing.jitter);
        expect(clamped).toBeGreaterThanOrEqual(timing.minIntervalMs);
        expect(clamped).toBeLessThanOrEqual(timing.maxIntervalMs);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("resolvePollTiming", () => {
  it("fills in the defaults (1000 ms, floor 100 ms, ceiling 60 s, 10 % jitter)", () => {
    expect(resolvePollTiming()).toEqual({
      defaultIntervalMs: 1000,
      minIntervalMs: 100,
      maxIntervalMs: 60_000,
      jitter: 0.1,
    });
    expect(resolvePollTiming({ maxIntervalMs: 5000, jitter: 0 })).toEqual({
      defaultIntervalMs: 1000,
      minIntervalMs: 100,
      maxIntervalMs: 5000,
      jitter: 0,
    });
  });

  it("rejects a value of the wrong type with a TypeError naming the option", () => {
    expect(() => resolvePollTiming({ minIntervalMs: "100" as unknown as number })).toThrow(
      new TypeError("minIntervalMs must be a number, got string"),
    );
    expect(() => resolvePollTiming(null as unknown as PollTiming)).toThrow(TypeError);
    expect(() => resolvePollTiming(5 as unknown as PollTiming)).toThrow(TypeError);
  });

  it("rejects negative, fractional, non-finite and oversized values with a RangeError", () => {
    expect(() => resolvePollTiming({ minIntervalMs: -1 })).toThrow(RangeError);
    expect(() => resolvePollTiming({ defaultIntervalMs: 1000.5 })).toThrow(/defaultIntervalMs/);
    expect(() => resolvePollTiming({ maxIntervalMs: Infinity })).toThrow(RangeError);
    expect(() => resolvePollTiming({ maxIntervalMs: Number.NaN })).toThrow(RangeError);
    expect(() => resolvePollTiming({ maxIntervalMs: 2 ** 31 })).toThrow(RangeError);
    expect(() => resolvePollTiming({ jitter: 1.5 })).toThrow(/jitter/);
    expect(() => resolvePollTiming({ jitter: -0.1 })).toThrow(RangeError);
  });

  it("rejects bounds that do not satisfy min ≤ default ≤ max", () => {
    expect(() => resolvePollTiming({ minIntervalMs: 2000 })).toThrow(
      /minIntervalMs ≤ defaultIntervalMs ≤ maxIntervalMs, got 2000 ≤ 1000 ≤ 60000/,
    );
    expect(() => resolvePollTiming({ maxIntervalMs: 500 })).toThrow(RangeError);
    expect(resolvePollTiming({ minIntervalMs: 1000, maxIntervalMs: 1000 }).defaultIntervalMs).toBe(1000);
  });
});

describe("resolveRetryTiming", () => {
  it("fills in the defaults (8 retries from 250 ms doubling up to 30 s)", () => {
    expect(resolveRetryTiming()).toEqual(DEFAULT_RETRY_TIMING);
    expect(resolveRetryTiming({ retries: 0 }).retries).toBe(0);
  });

  it("rejects bad retry options with a clear error", () => {
    expect(() => resolveRetryTiming({ retries: -1 })).toThrow(RangeError);
    expect(() => resolveRetryTiming({ retries: 1.5 })).toThrow(RangeError);
    expect(() => resolveRetryTiming({ factor: 0.5 })).toThrow(/factor/);
    expect(() => resolveRetryTiming({ factor: "2" as unknown as number })).toThrow(TypeError);
    expect(() => resolveRetryTiming({ minTimeoutMs: 5000, maxTimeoutMs: 1000 })).toThrow(
      /minTimeoutMs ≤ maxTimeoutMs/,
    );
  });
});
