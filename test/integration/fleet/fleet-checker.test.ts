/**
 * The fleet checker on hand-written logs: a run that kept every promise passes, and each broken promise is named
 * (so a fleet run that passes says something).
 */
import { describe, expect, it } from "vitest";
import { checkFleet, type CheckLimits, type FleetEvent } from "./fleet-checker.js";

const limits: CheckLimits = {
  boundMs: 2_500,
  gapMs: 3_000,
  slackMs: 250,
  closeBoundMs: 3_500,
  crashWindowMs: 1_000,
};

/** Polls of `taskId` by `w` every 100 ms from `from` to `to`. */
function polls(w: string, taskId: string, from: number, to: number): FleetEvent[] {
  const events: FleetEvent[] = [];
  for (let t = from; t <= to; t += 100) events.push({ ev: "poll", w, t, taskId });
  return events;
}

/** One task, created by a, adopted by b after a was killed at 1 s; b reports it. */
const good: FleetEvent[] = [
  { ev: "call", w: "a", t: 0, job: 7 },
  { ev: "created", w: "a", t: 10, job: 7, taskId: "t1" },
  ...polls("a", "t1", 100, 1_000),
  { ev: "answered", w: "a", t: 500, taskId: "t1", key: "q" },
  { ev: "update", w: "a", t: 505, taskId: "t1", keys: ["q"] },
  { ev: "fault", t: 1_000, kind: "kill", target: "a" },
  ...polls("b", "t1", 2_600, 3_500),
  { ev: "settled", w: "b", t: 3_500, taskId: "t1", kind: "completed" },
  { ev: "closing", w: "b", t: 4_000 },
  { ev: "request", w: "b", t: 4_001, after: false },
  { ev: "closed", w: "b", t: 4_100 },
  { ev: "serverTask", t: 5_000, taskId: "t1", status: "completed" },
];

const without = (drop: (event: FleetEvent) => boolean) => good.filter((event) => !drop(event));

describe("the fleet checker", () => {
  it("passes a run that kept every promise", () => {
    expect(checkFleet(good, limits)).toEqual([]);
  });

  it("names a task nobody reported, and one the server never finished", () => {
    const problems = checkFleet(
      without((event) => event.ev === "settled" || event.ev === "serverTask"),
      limits,
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^task t1 \(job 7, created by a\) never ended: server status undefined$/);
    expect(problems[1]).toMatch(/^task t1 \(job 7\) was reported by no worker/);
  });

  it("names a task two workers reported", () => {
    const problems = checkFleet(
      [...good, { ev: "settled", w: "a", t: 3_600, taskId: "t1", kind: "completed" }],
      limits,
    );
    expect(problems).toEqual([
      "task t1 was reported by 2 workers: b (completed at +3500ms), a (completed at +3600ms)",
    ]);
  });

  it("allows a second report when the first reporter was killed just after its report, before the ref's removal", () => {
    const first: FleetEvent = { ev: "settled", w: "a", t: 900, taskId: "t1", kind: "completed" };
    expect(checkFleet([...good, first], limits)).toEqual([]);
    const killedLater = good.map((event) => (event.ev === "fault" ? { ...event, t: 1_950 } : event));
    expect(checkFleet([...killedLater, first], limits)).toEqual([
      "task t1 was reported by 2 workers: a (completed at +900ms), b (completed at +3500ms)",
    ]);
  });

  it("allows two workers' polls to overlap within the takeover bound, not beyond it", () => {
    expect(checkFleet([...good, ...polls("a", "t1", 2_600, 5_000)], limits)).toEqual([]);
    expect(checkFleet([...good, ...polls("a", "t1", 2_600, 5_200)], limits)).toEqual([]);
    expect(checkFleet([...good, ...polls("a", "t1", 1_100, 5_200)], limits)).toEqual([]);
    const longer = checkFleet(
      [...good, ...polls("a", "t1", 1_100, 6_000), ...polls("c", "t1", 2_600, 6_000)],
      limits,
    );
    expect(longer).toEqual(["task t1 was polled by a and c at once for 3400ms from +2600ms (bound 2500ms)"]);
  });

  it("names an input answered twice and a tool called twice", () => {
    const problems = checkFleet(
      [
        ...good,
        { ev: "update", w: "b", t: 2_700, taskId: "t1", keys: ["q"] },
        { ev: "call", w: "b", t: 2_800, job: 7 },
      ],
      limits,
    );
    expect(problems).toEqual([
      "input t1 q was answered 2 times: a at +505ms, b at +2700ms",
      "job 7 was called 2 times: a at +0ms, b at +2800ms",
    ]);
  });

  it("names anything of a closed client that runs after close() resolved, and a close() that never resolves", () => {
    expect(
      checkFleet(
        [
          ...good,
          { ev: "redis", w: "b", t: 4_600, after: true },
          { ev: "poll", w: "b", t: 4_400, taskId: "t1" },
        ],
        limits,
      ),
    ).toEqual(["b: 2 events (poll, redis) after close() resolved at +4100ms, the last at +4600ms"]);
    expect(
      checkFleet(
        without((event) => event.ev === "closed"),
        limits,
      ),
    ).toEqual(["b: close() called at +4000ms never resolved"]);
  });
});
