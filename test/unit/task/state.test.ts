import { describe, expect, it } from "vitest";
import type { DetailedTask, InputRequest } from "../../../src/schema/index.js";
import { TaskState } from "../../../src/task/state.js";
import { parseTimestamp } from "../../../src/task/timestamp.js";
import { at, newTask, snap, toolResult } from "./helpers.js";

const elicit = (message: string): InputRequest => ({
  method: "elicitation/create",
  params: { message, requestedSchema: { type: "object", properties: {} } },
});

describe("the task state machine", () => {
  it("ignores a snapshot older than the current one", () => {
    const state = new TaskState();
    expect(state.offer(snap.working({ at: 10, statusMessage: "step 2" }))).toBe("changed");
    expect(state.offer(snap.working({ at: 5, statusMessage: "step 1" }))).toBe("stale");
    expect(state.snapshot?.statusMessage).toBe("step 2");
  });

  it("accepts a snapshot with the same timestamp when it shows a new state", () => {
    const state = new TaskState();
    state.offer(snap.working({ at: 10 }));
    expect(state.offer(snap.inputRequired({ a: elicit("name?") }, { at: 10 }))).toBe("changed");
  });

  it("reports a repeated snapshot as unchanged but keeps the newer copy", () => {
    const state = new TaskState();
    state.offer(snap.working({ at: 1, statusMessage: "busy" }));
    const later = { ...snap.working({ at: 2, statusMessage: "busy" }), pollIntervalMs: 5000 };
    expect(state.offer(later)).toBe("unchanged");
    expect(state.snapshot).toBe(later);
  });

  it("treats input requests listed in another key order as the same state", () => {
    const state = new TaskState();
    state.offer(snap.inputRequired({ a: elicit("a?"), b: elicit("b?") }, { at: 1 }));
    expect(state.offer(snap.inputRequired({ b: elicit("b?"), a: elicit("a?") }, { at: 2 }))).toBe(
      "unchanged",
    );
    expect(state.offer(snap.inputRequired({ b: elicit("b?") }, { at: 3 }))).toBe("changed");
  });

  it("keeps the first terminal snapshot: a later failed after completed is ignored", () => {
    const state = new TaskState();
    state.offer(snap.completed(toolResult("done"), { at: 5 }));
    expect(state.offer(snap.failed({ code: -32603, message: "expired" }, { at: 9 }))).toBe("ended");
    expect(state.offer(snap.working({ at: 10 }))).toBe("ended");
    expect(state.snapshot?.status).toBe("completed");
  });

  it("accepts a terminal snapshot stamped earlier than a working one, so the task can still end", () => {
    const state = new TaskState();
    state.offer(snap.working({ at: 10 }));
    expect(state.offer(snap.completed(toolResult("done"), { at: 8 }))).toBe("changed");
    expect(state.terminal).toBe(true);
  });

  it("orders snapshots with unreadable timestamps by arrival, without crashing", () => {
    const state = new TaskState();
    expect(state.offer(snap.working({ at: "yesterday-ish", statusMessage: "a" }))).toBe("changed");
    expect(state.offer(snap.working({ at: "???", statusMessage: "b" }))).toBe("changed");
    const broken = { ...snap.working({ statusMessage: "c" }), lastUpdatedAt: 42 } as unknown as DetailedTask;
    expect(state.offer(broken)).toBe("changed");
  });

  it("still rejects an older readable timestamp after an unreadable one", () => {
    const state = new TaskState();
    state.offer(snap.working({ at: 10, statusMessage: "a" }));
    expect(state.offer(snap.working({ at: "not a time", statusMessage: "b" }))).toBe("changed");
    expect(state.offer(snap.working({ at: 5, statusMessage: "old" }))).toBe("stale");
    expect(state.offer(snap.working({ at: 11, statusMessage: "new" }))).toBe("changed");
  });

  it("treats a status it does not know as not terminal", () => {
    const state = new TaskState();
    const future = { ...snap.working({ at: 1 }), status: "paused" } as unknown as DetailedTask;
    expect(state.offer(future)).toBe("changed");
    expect(state.terminal).toBe(false);
    expect(state.offer(snap.working({ at: 2 }))).toBe("changed");
  });
});

describe("equal timestamps across the input_required / working edge", () => {
  const asking = () => snap.inputRequired({ a: elicit("a?"), b: elicit("b?") }, { at: 10 });
  const answered = (...keys: string[]) => ({ answered: (key: string) => keys.includes(key) });

  it("does not go back to working at the same stamp while a listed request is unanswered", () => {
    const state = new TaskState();
    state.offer(asking());
    expect(state.offer(snap.working({ at: 10 }))).toBe("stale");
    expect(state.offer(snap.working({ at: 10 }), answered("a"))).toBe("stale");
    expect(state.snapshot?.status).toBe("input_required");
  });

  it("goes to working at the same stamp once every listed request is answered", () => {
    const state = new TaskState();
    state.offer(asking());
    expect(state.offer(snap.working({ at: 10 }), answered("a", "b"))).toBe("changed");
  });

  it("goes to working at a later stamp whatever was answered", () => {
    const state = new TaskState();
    state.offer(asking());
    expect(state.offer(snap.working({ at: 11 }))).toBe("changed");
  });

  it("does not go back to input_required at the same stamp for requests already answered", () => {
    const state = new TaskState();
    state.offer(asking());
    state.offer(snap.working({ at: 10 }), answered("a", "b"));
    expect(state.offer(asking(), answered("a", "b"))).toBe("stale");
    expect(state.snapshot?.status).toBe("working");
    // A new request at the same stamp is news.
    const more = snap.inputRequired({ a: elicit("a?"), c: elicit("c?") }, { at: 10 });
    expect(state.offer(more, answered("a", "b"))).toBe("changed");
  });

  it("takes a tie without input requests as before (2025-11-25: input travels on its own)", () => {
    const state = new TaskState();
    state.offer({ ...snap.working({ at: 10 }), status: "input_required" } as DetailedTask);
    expect(state.offer(snap.working({ at: 10 }))).toBe("changed");
    expect(state.offer({ ...snap.working({ at: 10 }), status: "input_required" } as DetailedTask)).toBe(
      "changed",
    );
  });

  it("ends at the same stamp whatever was answered", () => {
    const state = new TaskState();
    state.offer(asking());
    expect(state.offer(snap.completed(toolResult("done"), { at: 10 }))).toBe("changed");
  });
});

describe("a handle fed snapshots out of order", () => {
  it("produces no update for stale or repeated snapshots", () => {
    const { handle, sink } = newTask();
    const seen: string[] = [];
    handle.on("update", (update) => seen.push(`${update.status}:${update.statusMessage}`));
    expect(sink.accept(snap.working({ at: 3, statusMessage: "third" }))).toBe(true);
    expect(sink.accept(snap.working({ at: 1, statusMessage: "first" }))).toBe(false);
    expect(sink.accept(snap.working({ at: 4, statusMessage: "third" }))).toBe(false);
    expect(sink.accept(snap.working({ at: 4, statusMessage: "fourth" }))).toBe(true);
    expect(seen).toEqual(["working:third", "working:fourth"]);
    expect(sink.snapshot?.lastUpdatedAt).toBe(at(4));
  });

  it("ignores a snapshot of another task", () => {
    const { handle, sink } = newTask();
    sink.setTaskId("mine");
    expect(sink.accept(snap.completed(toolResult("x"), { taskId: "someone-else" }))).toBe(false);
    expect(handle.isSettled).toBe(false);
  });

  it("never moves back from a terminal snapshot", async () => {
    const { handle, sink } = newTask();
    sink.accept(snap.completed(toolResult("kept"), { at: 2 }));
    expect(sink.accept(snap.failed({ code: -32603, message: "ttl elapsed" }, { at: 3 }))).toBe(false);
    expect(handle.status).toBe("completed");
    await expect(handle).resolves.toEqual(toolResult("kept"));
  });
});

describe("reading lastUpdatedAt leniently", () => {
  const base = Date.UTC(2026, 6, 28, 10, 15, 30);
  it.each([
    ["2026-07-28T10:15:30Z", base],
    ["2026-07-28T10:15:30.250Z", base + 250],
    ["2026-07-28T10:15:30,5Z", base + 500],
    ["2026-07-28t10:15:30z", base],
    ["2026-07-28 10:15:30Z", base],
    ["2026-07-28T12:15:30+02:00", base],
    ["2026-07-28T05:15:30-0500", base],
    ["2026-07-28T12:15:30+02", base],
    ["20260728T101530Z", base],
    ["2026-07-28T10:15:30", base],
    ["2026-07-28T10:15Z", base - 30_000],
    ["2026-07-28", Date.UTC(2026, 6, 28)],
  ])("reads %s", (text, expected) => {
    expect(parseTimestamp(text)).toBe(expected);
  });

  it("keeps sub-millisecond digits so microsecond stamps still order", () => {
    expect(parseTimestamp("2026-07-28T10:15:30.000001Z")).toBeGreaterThan(
      parseTimestamp("2026-07-28T10:15:30Z"),
    );
    expect(parseTimestamp("2026-07-28T10:15:30.123456789Z")).toBeCloseTo(base + 123.456789, 3);
  });

  it.each(["", "soon", "2026-13-01T00:00:00Z", "2026-07-28T10:61:00Z", "Tue, 28 Jul 2026 10:15:30 GMT"])(
    "answers NaN for %j",
    (text) => {
      expect(parseTimestamp(text)).toBeNaN();
    },
  );

  it("answers NaN for values that are not strings", () => {
    expect(parseTimestamp(undefined)).toBeNaN();
    expect(parseTimestamp(1_753_700_000_000)).toBeNaN();
  });
});
