/**
 * The client's documented defaults (TSDoc of `TaskClientOptions`, the guides in docs/), written out here as the values users
 * read, so a changed default fails a test named for it. The polling and retry defaults are pinned in
 * test/unit/scheduler/timing.test.ts, and several of these through a real client in test/unit/run.
 */
import { describe, expect, it } from "vitest";
import { resolveClientOptions } from "../../../src/client/options.js";

describe("TaskClient option defaults", () => {
  it("answers 4 input requests at once, allows 10 input rounds, 64 polls in flight, 60 s per request", () => {
    expect(resolveClientOptions({})).toMatchObject({
      inputConcurrency: 4,
      maxInputRounds: 10,
      maxInFlight: 64,
      requestTimeoutMs: 60_000,
    });
  });

  it("waits 10 s for a cancel's final word, allows 5 s of clock skew past a TTL, safety-net polls every 30 s, closes within 5 s", () => {
    expect(resolveClientOptions({})).toMatchObject({
      cancelGraceMs: 10_000,
      ttlGraceMs: 5_000,
      notificationSafetyNetMs: 30_000,
      closeTimeoutMs: 5_000,
    });
  });

  it("fails on unanswerable input, listens for notifications, and asks 2025 servers for tasks where tools allow", () => {
    expect(resolveClientOptions({})).toMatchObject({
      unansweredInput: "fail",
      notifications: "auto",
      legacyTasks: "auto",
      inputHandlers: {},
      clientInfo: { name: "mcp-tasks" },
    });
  });

  it("keeps what the caller gives", () => {
    expect(
      resolveClientOptions({ inputConcurrency: 1, maxInFlight: 2, cancelGraceMs: 0, notifications: "off" }),
    ).toMatchObject({ inputConcurrency: 1, maxInFlight: 2, cancelGraceMs: 0, notifications: "off" });
  });
});
