/**
 * The cadence owner, `nextPollDelay`, on its own. Expected values are literals from the option docs: polling
 * defaults 1000 / 100 / 60,000 ms with up to +10 % jitter, `notificationSafetyNetMs` 30,000 and "at most one
 * poll per max(notificationSafetyNetMs, 10 × the task's poll interval)" while pushed, and the rule (decision 14) that a
 * retry waits max(server interval, backoff). Jitter is drawn as 0 unless a case is about it.
 */
import { describe, expect, it } from "vitest";
import {
  isOneShot,
  nextPollDelay,
  type CadenceState,
  type OneShotCause,
  type PollCause,
} from "../../../src/scheduler/cadence.js";

const NOW = 1_000_000;
const settings = {
  polling: { defaultIntervalMs: 1000, minIntervalMs: 100, maxIntervalMs: 60_000, jitter: 0.1 },
  safetyNetMs: 30_000,
};
const noJitter = () => 0;

/** A task polled just now that the server asked to poll every `serverIntervalMs`. */
function task(change: Partial<CadenceState> = {}): CadenceState {
  return {
    serverIntervalMs: 2000,
    pushed: false,
    lastPollAt: NOW,
    retryDelayMs: 0,
    pollOwed: false,
    ...change,
  };
}

const delay = (cause: PollCause, state: CadenceState, random = noJitter) =>
  nextPollDelay(cause, state, settings, NOW, random);

const ONE_SHOTS: OneShotCause[] = [
  "seed",
  "resume",
  "cancelAnswered",
  "inputSubmitted",
  "listenAcknowledged",
  "streamBroke",
  "statusNotified",
];

describe("the regular poll", () => {
  it("waits the server's pollIntervalMs after the last poll", () => {
    expect(delay("interval", task({ serverIntervalMs: 2500 }))).toBe(2500);
  });

  it("waits defaultIntervalMs while the server suggested none", () => {
    expect(delay("interval", task({ serverIntervalMs: undefined }))).toBe(1000);
  });

  it("is bounded by minIntervalMs and maxIntervalMs", () => {
    expect(delay("interval", task({ serverIntervalMs: 0 }))).toBe(100);
    expect(delay("interval", task({ serverIntervalMs: 10 ** 9 }))).toBe(60_000);
  });

  it("is only lengthened by jitter, by up to 10 %", () => {
    expect(delay("interval", task({ serverIntervalMs: 2000 }), () => 1)).toBe(2200);
    expect(delay("interval", task({ serverIntervalMs: 2000 }), () => 0.5)).toBe(2100);
  });

  it("is measured from the end of the last poll, not from now", () => {
    expect(delay("interval", task({ lastPollAt: NOW - 700 }))).toBe(1300);
    expect(delay("interval", task({ lastPollAt: NOW - 5000 }))).toBe(0);
  });

  it("waits the whole interval from now before any poll, and when the clock went backwards", () => {
    expect(delay("interval", task({ lastPollAt: undefined }))).toBe(2000);
    expect(delay("interval", task({ lastPollAt: NOW + 5000 }))).toBe(2000);
  });
});

describe("while a listen pushes the task", () => {
  it("waits max(notificationSafetyNetMs, 10 × the poll interval)", () => {
    expect(delay("interval", task({ pushed: true, serverIntervalMs: 1000 }))).toBe(30_000);
    expect(delay("interval", task({ pushed: true, serverIntervalMs: 5000 }))).toBe(50_000);
    expect(delay("interval", task({ pushed: true, serverIntervalMs: 10 ** 9 }))).toBe(600_000);
  });

  it("when the push ends without a break (replan), resumes the interval since the last poll", () => {
    expect(delay("replan", task({ lastPollAt: NOW - 400 }))).toBe(1600);
    expect(delay("replan", task({ lastPollAt: NOW - 29_000 }))).toBe(0);
  });
});

describe("after a failed tasks/get", () => {
  it("waits the server's interval when the backoff is shorter (236 ms backoff, interval 2000)", () => {
    expect(delay("retry", task({ serverIntervalMs: 2000, retryDelayMs: 236 }))).toBe(2000);
  });

  it("waits the backoff (Retry-After included) when it is longer", () => {
    expect(delay("retry", task({ serverIntervalMs: 2000, retryDelayMs: 5000 }))).toBe(5000);
  });

  it("keeps the safety net of a pushed task as the least wait", () => {
    expect(delay("retry", task({ pushed: true, serverIntervalMs: 1000, retryDelayMs: 500 }))).toBe(30_000);
  });
});

describe("one-shot polls: the only ones sooner than the interval", () => {
  it.each(ONE_SHOTS)("%s polls at once, even while pushed", (cause) => {
    expect(isOneShot(cause)).toBe(true);
    expect(delay(cause, task({ pushed: true, serverIntervalMs: 5000 }))).toBe(0);
  });

  it("interval, retry and replan are not one-shots", () => {
    for (const cause of ["interval", "retry", "replan"] as const) expect(isOneShot(cause)).toBe(false);
  });

  it("a one-shot still owed (asked while a poll was in flight) makes the next poll go out at once", () => {
    expect(delay("interval", task({ pollOwed: true }))).toBe(0);
    expect(delay("interval", task({ pollOwed: true, pushed: true }))).toBe(0);
  });
});

describe("a one-shot skips the interval, never a retry's backoff (decision 14)", () => {
  it("an owed poll after a failed tasks/get with Retry-After: 5 waits the 5 s, measured from the failure", () => {
    // A listen acknowledgement came during the poll (owed), then the poll failed: 503, Retry-After: 5.
    expect(delay("retry", task({ pollOwed: true, retryDelayMs: 5000 }))).toBe(5000);
    expect(delay("retry", task({ pollOwed: true, retryDelayMs: 5000, lastPollAt: NOW - 1200 }))).toBe(3800);
    expect(delay("retry", task({ pollOwed: true, retryDelayMs: 5000, lastPollAt: NOW - 6000 }))).toBe(0);
  });

  it("an owed poll waits the backoff even when it is shorter than the interval, and no longer", () => {
    expect(delay("retry", task({ pollOwed: true, serverIntervalMs: 2000, retryDelayMs: 236 }))).toBe(236);
  });

  it.each(ONE_SHOTS)("%s while a retry backs off waits the rest of the backoff", (cause) => {
    expect(delay(cause, task({ pushed: true, retryDelayMs: 8000, lastPollAt: NOW - 3000 }))).toBe(5000);
  });
});
