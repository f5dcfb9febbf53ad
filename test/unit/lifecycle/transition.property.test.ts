/**
 * The transition function under random runs: from `initialState(deadline?)` via `start` or `resume`, then any
 * mix of call answers (complete, task with any seed, input_required), call failures, due polls, poll answers
 * (working, input_required, terminal, another task's), poll failures (transient, not_found, fatal), observed
 * snapshots, cancels and their answers, detaches, input failures, alarms at random times and at the next limit,
 * close, and whatever answers arrive after the end. Time only moves forward.
 *
 * Runs come in two flavours. A *realistic* run only delivers an answer to a request that is out (a call, a
 * poll, a cancel), the way the interpreter does; a *raw* run delivers every event regardless, so the
 * invariants that do not depend on the interpreter's discipline are checked against any input at all.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { initialState, nextAlarm, passedLimit, transition } from "../../../src/lifecycle/transition.js";
import type { CallEvent, CallState, Effect, LifecycleConfig } from "../../../src/lifecycle/types.js";
import type { TaskStatus } from "../../../src/schema/index.js";
import { OTHER_TASK, T0, TASK, created, inputRequiredResult, iso, snapshot, toolResult } from "./helpers.js";

/* ---- Random runs ------------------------------------------------------------------------------------ */

interface TtlChoice {
  createdAt: string;
  ttlMs: number | null;
}

type Action = { advance: number } & (
  | { kind: "answerCall"; answer: "complete" | "input_required" | "task"; seed: TaskStatus; ttl: TtlChoice }
  | { kind: "failCall" }
  | { kind: "pollDue" }
  | { kind: "answerPoll"; status: TaskStatus; ttl: TtlChoice; otherTask: boolean }
  | { kind: "failPoll"; fault: "transient" | "not_found" | "fatal" }
  | { kind: "observe"; status: TaskStatus; ttl: TtlChoice }
  | { kind: "cancel" }
  | { kind: "cancelAnswered" }
  | { kind: "cancelFailed"; final: boolean }
  | { kind: "detach" }
  | { kind: "failed" }
  | { kind: "alarm"; atNextLimit: boolean }
  | { kind: "close" }
);

interface Scenario {
  deadline: number | undefined;
  config: LifecycleConfig;
  resume: boolean;
  realistic: boolean;
  actions: Action[];
}

const statusArb = fc.constantFrom<TaskStatus>(
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
);
const ttlArb: fc.Arbitrary<TtlChoice> = fc.record({
  createdAt: fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: -5_000, max: 5_000 }).map(iso) },
    { weight: 1, arbitrary: fc.constant("not a timestamp") },
  ),
  ttlMs: fc.option(fc.nat(20_000), { nil: null, freq: 4 }),
});

const bodyArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("answerCall" as const),
      answer: fc.constantFrom("complete" as const, "input_required" as const, "task" as const),
      seed: statusArb,
      ttl: ttlArb,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("failCall" as const) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("pollDue" as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("answerPoll" as const),
      status: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom<TaskStatus>("working", "input_required") },
        { weight: 1, arbitrary: statusArb },
      ),
      ttl: ttlArb,
      otherTask: fc.nat(4).map((n) => n === 0),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("failPoll" as const),
      fault: fc.constantFrom(
        "transient" as const,
        "transient" as const,
        "not_found" as const,
        "fatal" as const,
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("observe" as const), status: statusArb, ttl: ttlArb }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelAnswered" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelFailed" as const), final: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("detach" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("failed" as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("alarm" as const), atNextLimit: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("close" as const) }) },
);

const actionArb: fc.Arbitrary<Action> = fc
  .tuple(fc.nat(3_000), bodyArb)
  .map(([advance, body]) => ({ advance, ...body }) as Action);

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  deadline: fc.option(
    fc.nat(30_000).map((ms) => T0 + ms),
    { nil: undefined, freq: 3 },
  ),
  config: fc.record({
    pollRetries: fc.nat(3),
    cancelGraceMs: fc.nat(10_000),
    ttlGraceMs: fc.nat(5_000),
  }),
  resume: fc.boolean(),
  realistic: fc.boolean(),
  actions: fc.array(actionArb, { maxLength: 40 }),
});

/* ---- Running a scenario ----------------------------------------------------------------------------- */

interface Entry {
  readonly event: CallEvent;
  readonly now: number;
  readonly before: CallState;
  readonly after: CallState;
  readonly effects: readonly Effect[];
  /** `tasks/get` requests sent and not yet answered, after this step (realistic runs). */
  readonly pollsOut: number;
  /** A poll is waiting in the scheduler, after this step. */
  readonly pollScheduled: boolean;
  /** The `tasks/cancel` is out (sent, not finally answered), after this step. */
  readonly cancelOut: boolean;
  readonly realistic: boolean;
}

function run(scenario: Scenario): Entry[] {
  const { config, realistic } = scenario;
  let state = initialState(scenario.deadline);
  let now = T0;
  const out = { call: false, polls: 0, cancel: false, scheduled: false };
  const trace: Entry[] = [];

  const apply = (event: CallEvent) => {
    const before = state;
    const step = transition(before, event, config, now);
    state = step.state;
    for (const effect of step.effects) {
      if (effect.type === "sendCall" || effect.type === "runInputRounds") out.call = true;
      if (effect.type === "sendPoll") out.polls++;
      if (effect.type === "sendCancel") out.cancel = true;
      if (effect.type === "schedulePoll") out.scheduled = true;
    }
    trace.push({
      event,
      now,
      before,
      after: state,
      effects: step.effects,
      pollsOut: out.polls,
      pollScheduled: out.scheduled,
      cancelOut: out.cancel,
      realistic,
    });
  };

  /** Whether an answer to a request may be delivered; in a realistic run, only when the request is out. */
  const answerable = (isOut: boolean) => !realistic || isOut;

  apply(scenario.resume ? { type: "resume", taskId: TASK } : { type: "start" });
  for (const action of scenario.actions) {
    now += action.advance;
    const taskId = state.taskId ?? TASK;
    switch (action.kind) {
      case "answerCall": {
        if (!answerable(out.call)) break;
        out.call = false;
        const { createdAt, ttlMs } = action.ttl;
        if (action.answer === "complete") {
          apply({ type: "callAnswered", answer: { kind: "complete", result: toolResult } });
        } else if (action.answer === "input_required") {
          apply({ type: "callAnswered", answer: { kind: "input_required", result: inputRequiredResult } });
        } else {
          const task = created(action.seed, { createdAt, ttlMs });
          apply({ type: "callAnswered", answer: { kind: "task", task } });
        }
        break;
      }
      case "failCall":
        if (!answerable(out.call)) break;
        out.call = false;
        apply({ type: "callFailed", error: new Error("call failed") });
        break;
      case "pollDue":
        // The scheduler only says a poll is due when one was scheduled.
        if (!answerable(out.scheduled)) break;
        out.scheduled = false;
        apply({ type: "pollDue" });
        break;
      case "answerPoll": {
        if (!answerable(out.polls > 0)) break;
        out.polls = Math.max(0, out.polls - 1);
        // Another task's state never reaches the lifecycle from a real poll (tasks/get rejects it).
        const id = action.otherTask && !realistic ? OTHER_TASK : taskId;
        apply({ type: "pollAnswered", snapshot: snapshot(action.status, { ...action.ttl, taskId: id }) });
        break;
      }
      case "failPoll":
        if (!answerable(out.polls > 0)) break;
        out.polls = Math.max(0, out.polls - 1);
        apply({ type: "pollFailed", error: new Error(action.fault), fault: action.fault, retryDelayMs: 100 });
        break;
      case "observe":
        apply({ type: "observed", snapshot: snapshot(action.status, { ...action.ttl, taskId }) });
        break;
      case "cancel":
        apply({ type: "cancelRequested", reason: "stop" });
        break;
      case "cancelAnswered":
        if (!answerable(out.cancel)) break;
        out.cancel = false;
        apply({ type: "cancelAnswered" });
        break;
      case "cancelFailed":
        if (!answerable(out.cancel)) break;
        if (action.final) out.cancel = false;
        apply({ type: "cancelFailed", error: new Error("cancel failed") });
        break;
      case "detach":
        apply({ type: "detachRequested" });
        break;
      case "failed":
        apply({ type: "failed", error: new Error("input policy") });
        break;
      case "alarm": {
        const at = nextAlarm(state);
        if (action.atNextLimit && at !== undefined && at > now) now = at;
        apply({ type: "alarm" });
        break;
      }
      case "close":
        apply({ type: "close" });
        break;
    }
  }
  return trace;
}

const settles = (effects: readonly Effect[]) => effects.filter((effect) => effect.type === "settle");

/** Whether any time limit applies to the state (ignoring whether it has ended). */
function hasLimit(state: CallState): boolean {
  return (
    state.deadline !== undefined ||
    (state.taskId !== undefined && state.ttl !== undefined) ||
    (state.phase === "cancelling" && state.cancel !== undefined)
  );
}

const NUM_RUNS = 400;

/** Checks `check` on the trace of every random run; `seen` counts the runs where it had something to check. */
function forAllRuns(check: (trace: Entry[]) => boolean | void): number {
  let seen = 0;
  fc.assert(
    fc.property(scenarioArb, (scenario) => {
      if (check(run(scenario)) === true) seen++;
    }),
    { numRuns: NUM_RUNS },
  );
  return seen;
}

/* ---- The properties ---------------------------------------------------------------------------------- */

describe("transition over random runs", () => {
  it("settles exactly once, in the step that ends the run, and never afterwards", () => {
    const seen = forAllRuns((trace) => {
      const all = trace.flatMap((record) => settles(record.effects));
      const ending = trace.findIndex((record) => record.after.phase === "ended");
      if (ending === -1) {
        expect(all).toHaveLength(0);
        return false;
      }
      expect(all).toHaveLength(1);
      const effects = trace[ending]?.effects ?? [];
      expect(settles(effects)).toHaveLength(1);
      expect(effects.at(-1)?.type).toBe("settle");
      return true;
    });
    expect(seen).toBeGreaterThan(NUM_RUNS / 2);
  });

  it("after the end, the state never changes and the only effect is cancelOrphan for a task made after the end", () => {
    let orphans = 0;
    const seen = forAllRuns((trace) => {
      const after = trace.filter((record) => record.before.phase === "ended");
      for (const { before, after: state, event, effects } of after) {
        expect(state).toBe(before);
        if (event.type === "callAnswered" && event.answer.kind === "task" && before.taskId === undefined) {
          expect(effects).toEqual([{ type: "cancelOrphan", taskId: event.answer.task.taskId }]);
          orphans++;
        } else {
          expect(effects).toEqual([]);
        }
      }
      return after.length > 0;
    });
    expect(seen).toBeGreaterThan(0);
    expect(orphans).toBeGreaterThan(0);
  });

  it("never loses or replaces a task id once one was adopted, and settles with it", () => {
    const seen = forAllRuns((trace) => {
      let adopted: string | undefined;
      let settledWithTask = false;
      for (const { before, after, effects } of trace) {
        if (before.taskId !== undefined) expect(after.taskId).toBe(before.taskId);
        for (const effect of effects) {
          if (effect.type === "follow") {
            expect(adopted).toBeUndefined(); // adopted once per run
            adopted = effect.taskId;
            expect(after.taskId).toBe(effect.taskId);
          }
          if (effect.type === "settle" && adopted !== undefined) {
            expect(after.taskId).toBe(adopted);
            settledWithTask = true;
          }
        }
      }
      return settledWithTask;
    });
    expect(seen).toBeGreaterThan(0);
  });

  it("sends tasks/cancel at most once per run, for the known task, and only after a cancel was asked", () => {
    const seen = forAllRuns((trace) => {
      const sent = trace.filter((record) => record.effects.some((effect) => effect.type === "sendCancel"));
      expect(sent.length).toBeLessThanOrEqual(1);
      for (const { after, effects } of sent) {
        const cancel = effects.find((effect) => effect.type === "sendCancel");
        expect(cancel).toEqual({ type: "sendCancel", taskId: after.taskId });
        expect(after.cancel).toMatchObject({ sent: true });
        expect(after.phase).toBe("cancelling");
      }
      return sent.length === 1;
    });
    expect(seen).toBeGreaterThan(0);
  });

  it("never sends a poll while one is in flight", () => {
    const seen = forAllRuns((trace) => {
      let polled = false;
      for (const { before, after, effects, pollsOut } of trace) {
        const polls = effects.filter((effect) => effect.type === "sendPoll");
        expect(polls.length).toBeLessThanOrEqual(1);
        if (polls.length === 0) continue;
        polled = true;
        expect(before.pollInFlight).toBe(false);
        expect(after.pollInFlight).toBe(true);
        // In a realistic run answers follow requests, so this also counts the tasks/get really out.
        expect(pollsOut).toBeLessThanOrEqual(1);
      }
      return polled;
    });
    expect(seen).toBeGreaterThan(0);
  });

  it("never stalls: a live run with a task id always has a poll in flight or scheduled, or its cancel out", () => {
    const seen = forAllRuns((trace) => {
      let checked = false;
      for (const { after, realistic, pollsOut, pollScheduled, cancelOut } of trace) {
        if (!realistic || after.phase === "ended" || after.taskId === undefined) continue;
        checked = true;
        const waiting = after.pollInFlight || pollScheduled || (after.phase === "cancelling" && cancelOut);
        expect(waiting).toBe(true);
        expect(after.pollInFlight).toBe(pollsOut > 0);
      }
      return checked;
    });
    expect(seen).toBeGreaterThan(0);
  });

  it("keeps the alarm set exactly when a limit applies, at the moment the first limit passes", () => {
    const seen = forAllRuns((trace) => {
      let armed = false;
      for (const { after } of trace) {
        const alarm = nextAlarm(after);
        expect(alarm === undefined).toBe(after.phase === "ended" || !hasLimit(after));
        if (alarm === undefined || after.phase === "ended") continue;
        armed = true;
        expect(passedLimit(after, alarm - 1)).toBeUndefined();
        expect(passedLimit(after, alarm)).toBeDefined();
      }
      return armed;
    });
    expect(seen).toBeGreaterThan(0);
  });

  it("ends the run on any alarm at or after the deadline, as deadline_exceeded", () => {
    const seen = forAllRuns((trace) => {
      let hit = false;
      for (const { event, now, before, after, effects } of trace) {
        if (event.type !== "alarm" || before.phase === "ended") continue;
        if (before.deadline === undefined || now < before.deadline) continue;
        hit = true;
        expect(after.phase).toBe("ended");
        expect(settles(effects)).toEqual([
          { type: "settle", ending: { kind: "local", reason: "deadline_exceeded" } },
        ]);
      }
      return hit;
    });
    expect(seen).toBeGreaterThan(0);
  });

  it("ends the run on any alarm at or after the next alarm time, whichever limit it is", () => {
    const seen = forAllRuns((trace) => {
      let hit = false;
      for (const { event, now, before, after } of trace) {
        if (event.type !== "alarm" || before.phase === "ended") continue;
        const alarm = nextAlarm(before);
        if (alarm === undefined || now < alarm) {
          expect(after).toBe(before); // an early alarm changes nothing
          continue;
        }
        hit = true;
        expect(after.phase).toBe("ended");
      }
      return hit;
    });
    expect(seen).toBeGreaterThan(0);
  });
});
