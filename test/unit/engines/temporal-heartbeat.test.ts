/**
 * How often `mcp-tasks/temporal` heartbeats: a third of the activity's heartbeat timeout, within [10 ms, 10 s],
 * and every 10 s without a timeout; a caller's choice within the same bounds.
 */
import { describe, expect, it } from "vitest";
import { heartbeatEveryMs } from "../../../src/engines/temporal-heartbeat.js";

describe("heartbeatEveryMs", () => {
  it.each([
    [30_000, 10_000],
    [9_000, 3_000],
    [300, 100],
    [60_000, 10_000],
    [15, 10],
    [undefined, 10_000],
    [0, 10_000],
  ])("a heartbeat timeout of %s ms: every %s ms", (timeoutMs, everyMs) => {
    expect(heartbeatEveryMs(timeoutMs)).toBe(everyMs);
  });

  it.each([
    [2_000, 2_000],
    [1, 10],
    [600_000, 10_000],
    [Number.NaN, 10_000],
  ])("a chosen %s ms: every %s ms", (chosenMs, everyMs) => {
    expect(heartbeatEveryMs(30_000, chosenMs)).toBe(everyMs);
  });
});
