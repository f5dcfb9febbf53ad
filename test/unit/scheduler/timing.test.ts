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

/** The documented default bounds, written out here so the pollDelay cases do not lean on the module's constant. */
const BOUNDS: PollTiming = {
  defaultIntervalMs: 1000,
  minIntervalMs: 100,
  maxIntervalMs: 60_000,
  jitter: 0.1,
};
const noJitter = { ...BOUNDS, jitter: 0 };
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

  it("rounds fractional intervals up, so a poll never goes out before the server's interval", () => {
    expect(pollDelay(250.4, noJitter)).toBe(251);
    expect(pollDelay(250.6, noJitter)).toBe(251);
    expect(pollDelay(250, noJitter)).toBe(250);
  });

  it("only lengthens the delay with jitter: never earlier than the server's interval", () => {
    const timing = { ...BOUNDS, jitter: 0.1 };
    expect(pollDelay(2000, timing, () => 0)).toBe(2000);
    expect(pollDelay(2000, timing, middle)).toBe(2100);
    expect(pollDelay(2000, timing, () => 0.75)).toBe(2150);
    expect(pollDelay(2000, timing, () => 1)).toBe(2200);
  });

  it("treats a random source outside [0, 1] as the nearest end, and NaN as no jitter", () => {
    const timing = { ...BOUNDS, jitter: 0.1 };
    expect(pollDelay(2000, timing, () => -3)).toBe(2000);
    expect(pollDelay(2000, timing, () => Number.NaN)).toBe(2000);
    expect(pollDelay(2000, timing, () => 7)).toBe(2200);
  });

  it("lets the ceiling win over a longer server interval, and shrinks jitter to fit under it", () => {
    const timing = { ...BOUNDS, jitter: 0.5 };
    expect(pollDelay(100, timing, () => 0)).toBe(100);
    expect(pollDelay(50, timing, () => 0)).toBe(100);
    expect(pollDelay(59_000, timing, () => 1)).toBe(60_000);
    expect(pollDelay(59_000, timing, middle)).toBe(59_500);
    expect(pollDelay(60_000, timing, () => 1)).toBe(60_000);
    expect(pollDelay(90_000, timing, () => 1)).toBe(60_000);
  });

  it("never returns more than setTimeout can hold, even with unchecked bounds", () => {
    const unchecked: PollTiming = {
      defaultIntervalMs: 1e15,
      minIntervalMs: 0,
      maxIntervalMs: 1e16,
      jitter: 1,
    };
    // 2^31 - 1 ms is the longest delay setTimeout holds (larger ones overflow and fire at once).
    expect(MAX_TIMER_DELAY_MS).toBe(2 ** 31 - 1);
    expect(pollDelay(undefined, unchecked, () => 1)).toBe(2 ** 31 - 1);
    expect(pollDelay(2 ** 40, unchecked, middle)).toBe(2 ** 31 - 1);
  });

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
    fc.double({ min: 0, max: 200_000, noNaN: true }),
    fc.constantFrom(undefined, null, Number.NaN, Infinity, -Infinity, 0, "100"),
    fc.anything(),
  );
  /** Any random source: a sequence of arbitrary doubles (NaN, ±Infinity and values outside [0, 1] included). */
  const randomArb = fc.infiniteStream(fc.double()).map((stream) => {
    const values = stream[Symbol.iterator]();
    return () => values.next().value as number;
  });

  it("never polls before the server's interval unless it exceeds the ceiling (property)", () => {
    fc.assert(
      fc.property(serverArb, timingArb, randomArb, (server, timing, random) => {
        const delay = pollDelay(server, timing, random);
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(timing.minIntervalMs);
        expect(delay).toBeLessThanOrEqual(timing.maxIntervalMs);
        if (server === undefined || server === null) {
          expect(delay).toBeGreaterThanOrEqual(timing.defaultIntervalMs);
        } else if (typeof server === "number" && server > timing.maxIntervalMs) {
          expect(delay).toBe(timing.maxIntervalMs); // the ceiling wins
        } else if (typeof server === "number" && server > 0) {
          expect(delay).toBeGreaterThanOrEqual(server); // the server's interval is a floor
        }
      }),
      { numRuns: 5000 },
    );
  });

  /**
   * The interval before jitter as pollDelay's documentation states it, written out here rather than asked of
   * pollDelay: absent means the default, anything but a positive number the floor, fractions round up, and the
   * result is clamped to [min, max].
   */
  function documentedInterval(server: unknown, timing: PollTiming): number {
    const suggested =
      server === undefined || server === null
        ? timing.defaultIntervalMs
        : typeof server === "number" && server > 0
          ? Math.ceil(server)
          : timing.minIntervalMs;
    return Math.min(Math.max(suggested, timing.minIntervalMs), timing.maxIntervalMs);
  }

  it("lengthens by at most the jitter fraction of the clamped interval (property)", () => {
    fc.assert(
      fc.property(serverArb, timingArb, randomArb, (server, timing, random) => {
        const delay = pollDelay(server, timing, random);
        const interval = documentedInterval(server, timing);
        expect(delay).toBeGreaterThanOrEqual(interval);
        expect(delay - interval).toBeLessThanOrEqual(interval * timing.jitter);
        expect(delay).toBeLessThanOrEqual(timing.maxIntervalMs);
        // Without jitter the delay is the documented interval itself.
        expect(pollDelay(server, { ...timing, jitter: 0 }, random)).toBe(interval);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("resolvePollTiming", () => {
  it("fills in the defaults (1000 ms, floor 100 ms, ceiling 60 s, 10 % jitter)", () => {
    expect(DEFAULT_POLL_TIMING).toEqual({
      defaultIntervalMs: 1000,
      minIntervalMs: 100,
      maxIntervalMs: 60_000,
      jitter: 0.1,
    });
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
    const defaults = { retries: 8, minTimeoutMs: 250, maxTimeoutMs: 30_000, factor: 2 };
    expect(resolveRetryTiming()).toEqual(defaults);
    expect(resolveRetryTiming({})).toEqual(defaults);
    // The exported constant is what the documentation quotes; it must say the same.
    expect(DEFAULT_RETRY_TIMING).toEqual(defaults);
    expect(resolveRetryTiming({ retries: 0 })).toEqual({ ...defaults, retries: 0 });
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
