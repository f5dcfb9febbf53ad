/**
 * The lifecycle as a table: every phase meets every event type (each time limit and `close` included), and each
 * row says where the call goes and exactly which effects it asks for. Read a `describe` block as "what this
 * event does in each situation".
 *
 * All events happen at T0 + 1 s unless they are alarms. The representative situations share one set of limits:
 * the deadline is at T0 + 120 s, the task's TTL backstop at T0 + 65 s (created at T0, `ttlMs` 60 s, 5 s grace)
 * and a cancel asked at T0 + 1 s gives up waiting at T0 + 11 s; so each alarm row hits exactly one new limit.
 *
 * `start` and `resume` are only ever dispatched by the interpreter as a run's first event; their rows for the
 * later phases document what the pure function does, not something that happens.
 */
import { describe, expect, it } from "vitest";
import { initialState, nextAlarm, passedLimit, transition } from "../../../src/lifecycle/transition.js";
import type { CallEvent, CallState, PhaseName, TtlBackstop } from "../../../src/lifecycle/types.js";
import {
  OTHER_TASK,
  T0,
  TASK,
  config,
  created,
  effectToken,
  effectsLine,
  inputRequiredResult,
  iso,
  snapshot,
  toolResult,
} from "./helpers.js";

const DEADLINE = T0 + 120_000;
const TTL_EXPIRES = T0 + 65_000;
const GRACE_UNTIL = T0 + 11_000;
const AT = T0 + 1_000;

const TTL: TtlBackstop = { createdAt: iso(0), ttlMs: 60_000, lapsesAt: T0 + 60_000, expiresAt: TTL_EXPIRES };

const calling = initialState(DEADLINE);
const polling: CallState = { ...calling, phase: "polling", taskId: TASK, ttl: TTL };

/** The situations a call can be in, each with the words a test name uses for it. */
const situations = {
  calling: { phrase: "while the call is out", state: calling },
  detachPending: {
    phrase: "while the call is out and a detach waits for its answer",
    state: { ...calling, detachOnAnswer: true },
  },
  inputRounds: { phrase: "during input rounds", state: { ...calling, phase: "inputRounds" } },
  cancellingBeforeTask: {
    phrase: "while a cancel waits for the task id",
    state: {
      ...calling,
      phase: "cancelling",
      cancel: { reason: "stop", graceUntil: GRACE_UNTIL, sent: false },
    },
  },
  polling: { phrase: "while polling between polls", state: polling },
  pollInFlight: { phrase: "while a poll is in flight", state: { ...polling, pollInFlight: true } },
  cancelling: {
    phrase: "while a sent cancel waits for the server's final word",
    state: {
      ...polling,
      phase: "cancelling",
      cancel: { reason: "stop", graceUntil: GRACE_UNTIL, sent: true },
    },
  },
  endedBeforeTask: {
    phrase: "after the handle ended without a task",
    state: { ...calling, phase: "ended" },
  },
  ended: { phrase: "after the handle ended with a task", state: { ...polling, phase: "ended" } },
} satisfies Record<string, { phrase: string; state: CallState }>;

type Situation = keyof typeof situations;

/** The events, each with the words a test name uses for it and when it happens. */
const events = {
  start: { phrase: "start", event: { type: "start" }, now: AT },
  resume: { phrase: "resume", event: { type: "resume", taskId: TASK }, now: AT },
  answerComplete: {
    phrase: "an immediate result",
    event: { type: "callAnswered", answer: { kind: "complete", result: toolResult } },
    now: AT,
  },
  answerTaskWorking: {
    phrase: "a created task (working seed)",
    event: { type: "callAnswered", answer: { kind: "task", task: created("working") } },
    now: AT,
  },
  answerTaskOtherSeed: {
    phrase: "a created task (input_required seed)",
    event: { type: "callAnswered", answer: { kind: "task", task: created("input_required") } },
    now: AT,
  },
  answerInputRequired: {
    phrase: "an input_required answer to the call",
    event: { type: "callAnswered", answer: { kind: "input_required", result: inputRequiredResult } },
    now: AT,
  },
  callFailed: { phrase: "a failed call", event: { type: "callFailed", error: "down" }, now: AT },
  pollDue: { phrase: "a due poll", event: { type: "pollDue" }, now: AT },
  pollWorking: {
    phrase: "a working poll answer",
    event: { type: "pollAnswered", snapshot: snapshot("working") },
    now: AT,
  },
  pollInputRequired: {
    phrase: "an input_required poll answer",
    event: { type: "pollAnswered", snapshot: snapshot("input_required") },
    now: AT,
  },
  pollCompleted: {
    phrase: "a completed poll answer",
    event: { type: "pollAnswered", snapshot: snapshot("completed") },
    now: AT,
  },
  pollOtherTask: {
    phrase: "a poll answer about another task",
    event: { type: "pollAnswered", snapshot: snapshot("completed", { taskId: OTHER_TASK }) },
    now: AT,
  },
  observedWorking: {
    phrase: "an observed working snapshot",
    event: { type: "observed", snapshot: snapshot("working") },
    now: AT,
  },
  observedCancelled: {
    phrase: "an observed cancelled snapshot",
    event: { type: "observed", snapshot: snapshot("cancelled") },
    now: AT,
  },
  pollTransient: {
    phrase: "a transient poll failure",
    event: { type: "pollFailed", error: "503", fault: "transient", retryDelayMs: 250 },
    now: AT,
  },
  pollNotFound: {
    phrase: "a not_found poll failure",
    event: { type: "pollFailed", error: "gone", fault: "not_found", retryDelayMs: 250 },
    now: AT,
  },
  pollFatal: {
    phrase: "a fatal poll failure",
    event: { type: "pollFailed", error: "bad", fault: "fatal", retryDelayMs: 250 },
    now: AT,
  },
  cancelRequested: { phrase: "a cancel", event: { type: "cancelRequested", reason: "stop" }, now: AT },
  cancelAnswered: { phrase: "a cancel acknowledgement", event: { type: "cancelAnswered" }, now: AT },
  cancelFailed: { phrase: "a failed cancel", event: { type: "cancelFailed", error: "503" }, now: AT },
  detach: { phrase: "a detach", event: { type: "detachRequested" }, now: AT },
  failed: { phrase: "an input failure", event: { type: "failed", error: "policy" }, now: AT },
  alarmEarly: { phrase: "an early alarm (no limit passed)", event: { type: "alarm" }, now: T0 + 5_000 },
  alarmGrace: { phrase: "an alarm at the cancel grace", event: { type: "alarm" }, now: GRACE_UNTIL },
  alarmTtl: { phrase: "an alarm at the TTL backstop", event: { type: "alarm" }, now: TTL_EXPIRES },
  alarmDeadline: { phrase: "a deadline", event: { type: "alarm" }, now: DEADLINE },
  close: { phrase: "close", event: { type: "close" }, now: AT },
  closeForced: {
    phrase: "a close that stopped waiting",
    event: { type: "close", force: true },
    now: AT,
  },
  storedUnasked: {
    phrase: "a store acknowledgement nobody waits for",
    event: { type: "stored", task: created("working") },
    now: AT,
  },
  storeFailedUnasked: {
    phrase: "a store failure nobody waits for",
    event: { type: "storeFailed", task: created("working"), error: "disk full", cancel: true },
    now: AT,
  },
} satisfies Record<string, { phrase: string; event: CallEvent; now: number }>;

type EventName = keyof typeof events;

/**
 * [situation, resulting phase, effects] for one event, and what the row's name says instead of "changes
 * nothing" when the state changes without a new phase or an effect.
 */
type Row = readonly [Situation, PhaseName, string, string?];

// prettier-ignore
const table: Record<EventName, readonly Row[]> = {
  start: [
    ["calling",              "calling",     "sendCall"],
    ["detachPending",        "calling",     "sendCall"],
    ["inputRounds",          "inputRounds", "sendCall"],
    ["cancellingBeforeTask", "cancelling",  "sendCall"],
    ["polling",              "polling",     "sendCall"],
    ["pollInFlight",         "polling",     "sendCall"],
    ["cancelling",           "cancelling",  "sendCall"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  resume: [
    ["calling",              "polling",     "follow(task-1), schedulePoll(resume)"],
    ["detachPending",        "polling",     "follow(task-1), schedulePoll(resume)"],
    ["inputRounds",          "polling",     "follow(task-1), schedulePoll(resume)"],
    ["cancellingBeforeTask", "polling",     "follow(task-1), schedulePoll(resume)"],
    ["polling",              "polling",     "follow(task-1), schedulePoll(resume)"],
    ["pollInFlight",         "polling",     "follow(task-1), schedulePoll(resume)"],
    ["cancelling",           "polling",     "follow(task-1), schedulePoll(resume)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  answerComplete: [
    ["calling",              "ended",       "settle(result)"],
    ["detachPending",        "ended",       "settle(result)"],
    ["inputRounds",          "ended",       "settle(result)"],
    ["cancellingBeforeTask", "ended",       "settle(result)"],
    ["polling",              "polling",     "—"],
    ["pollInFlight",         "polling",     "—"],
    ["cancelling",           "cancelling",  "—"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  answerTaskWorking: [
    ["calling",              "polling",     "follow(task-1), show(working), schedulePoll(interval)"],
    ["detachPending",        "ended",       "follow(task-1), settle(detached)"],
    ["inputRounds",          "polling",     "follow(task-1), show(working), schedulePoll(interval)"],
    ["cancellingBeforeTask", "cancelling",  "follow(task-1), sendCancel(task-1)"],
    ["polling",              "polling",     "—"],
    ["pollInFlight",         "polling",     "—"],
    ["cancelling",           "cancelling",  "—"],
    ["endedBeforeTask",      "ended",       "cancelOrphan(task-1)"],
    ["ended",                "ended",       "—"],
  ],
  answerTaskOtherSeed: [
    ["calling",              "polling",     "follow(task-1), schedulePoll(seed)"],
    ["detachPending",        "ended",       "follow(task-1), settle(detached)"],
    ["inputRounds",          "polling",     "follow(task-1), schedulePoll(seed)"],
    ["cancellingBeforeTask", "cancelling",  "follow(task-1), sendCancel(task-1)"],
    ["polling",              "polling",     "—"],
    ["pollInFlight",         "polling",     "—"],
    ["cancelling",           "cancelling",  "—"],
    ["endedBeforeTask",      "ended",       "cancelOrphan(task-1)"],
    ["ended",                "ended",       "—"],
  ],
  answerInputRequired: [
    ["calling",              "inputRounds", "runInputRounds"],
    ["detachPending",        "ended",       "settle(detached)"],
    ["inputRounds",          "inputRounds", "runInputRounds"],
    ["cancellingBeforeTask", "ended",       "settle(cancelled_before_task)"],
    ["polling",              "polling",     "—"],
    ["pollInFlight",         "polling",     "—"],
    ["cancelling",           "cancelling",  "—"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  callFailed: [
    ["calling",              "ended",       "settle(error)"],
    ["detachPending",        "ended",       "settle(detached)"],
    ["inputRounds",          "ended",       "settle(error)"],
    ["cancellingBeforeTask", "ended",       "settle(cancelled_before_task)"],
    ["polling",              "polling",     "—"],
    ["pollInFlight",         "polling",     "—"],
    ["cancelling",           "cancelling",  "—"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  pollDue: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "polling",     "sendPoll(task-1)"],
    ["pollInFlight",         "polling",     "—"],
    ["cancelling",           "cancelling",  "sendPoll(task-1)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  pollWorking: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "polling",     "show(working), schedulePoll(interval)"],
    ["pollInFlight",         "polling",     "show(working), schedulePoll(interval)"],
    ["cancelling",           "cancelling",  "show(working), schedulePoll(interval)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  pollInputRequired: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "polling",     "show(input_required), schedulePoll(interval)"],
    ["pollInFlight",         "polling",     "show(input_required), schedulePoll(interval)"],
    ["cancelling",           "cancelling",  "show(input_required), schedulePoll(interval)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  pollCompleted: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "ended",       "settle(completed)"],
    ["pollInFlight",         "ended",       "settle(completed)"],
    ["cancelling",           "ended",       "settle(completed)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  pollOtherTask: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "polling",     "—"],
    ["pollInFlight",         "polling",     "—"],
    ["cancelling",           "cancelling",  "—"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  observedWorking: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "polling",     "show(working)"],
    ["pollInFlight",         "polling",     "show(working)"],
    ["cancelling",           "cancelling",  "show(working)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  observedCancelled: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "ended",       "settle(cancelled)"],
    ["pollInFlight",         "ended",       "settle(cancelled)"],
    ["cancelling",           "ended",       "settle(cancelled)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  // Poll failures before a task id cannot happen (no poll is sent without one); the rows show the function
  // does not guard them.
  pollTransient: [
    ["calling",              "calling",     "retrying(1), schedulePoll(retry 250ms)"],
    ["detachPending",        "calling",     "retrying(1), schedulePoll(retry 250ms)"],
    ["inputRounds",          "inputRounds", "retrying(1), schedulePoll(retry 250ms)"],
    ["cancellingBeforeTask", "cancelling",  "retrying(1), schedulePoll(retry 250ms)"],
    ["polling",              "polling",     "retrying(1), schedulePoll(retry 250ms)"],
    ["pollInFlight",         "polling",     "retrying(1), schedulePoll(retry 250ms)"],
    ["cancelling",           "cancelling",  "retrying(1), schedulePoll(retry 250ms)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  pollNotFound: [
    ["calling",              "ended",       "settle(not_found)"],
    ["detachPending",        "ended",       "settle(not_found)"],
    ["inputRounds",          "ended",       "settle(not_found)"],
    ["cancellingBeforeTask", "ended",       "settle(not_found)"],
    ["polling",              "ended",       "settle(not_found)"],
    ["pollInFlight",         "ended",       "settle(not_found)"],
    ["cancelling",           "ended",       "settle(not_found)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  pollFatal: [
    ["calling",              "ended",       "settle(error)"],
    ["detachPending",        "ended",       "settle(error)"],
    ["inputRounds",          "ended",       "settle(error)"],
    ["cancellingBeforeTask", "ended",       "settle(error)"],
    ["polling",              "ended",       "settle(error)"],
    ["pollInFlight",         "ended",       "settle(error)"],
    ["cancelling",           "ended",       "settle(error)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  cancelRequested: [
    ["calling",              "cancelling",  "—"],
    ["detachPending",        "cancelling",  "—"],
    ["inputRounds",          "cancelling",  "stopInputRounds"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "cancelling",  "sendCancel(task-1)"],
    ["pollInFlight",         "cancelling",  "sendCancel(task-1)"],
    ["cancelling",           "cancelling",  "—"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  cancelAnswered: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "polling",     "schedulePoll(cancelAnswered)"],
    ["pollInFlight",         "polling",     "schedulePoll(cancelAnswered)"],
    ["cancelling",           "cancelling",  "schedulePoll(cancelAnswered)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  cancelFailed: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "polling",     "schedulePoll(cancelAnswered)"],
    ["pollInFlight",         "polling",     "schedulePoll(cancelAnswered)"],
    ["cancelling",           "cancelling",  "schedulePoll(cancelAnswered)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  detach: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "stopInputRounds"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "ended",       "settle(detached)"],
    ["pollInFlight",         "ended",       "settle(detached)"],
    ["cancelling",           "ended",       "settle(detached)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  failed: [
    ["calling",              "ended",       "settle(error)"],
    ["detachPending",        "ended",       "settle(error)"],
    ["inputRounds",          "ended",       "stopInputRounds, settle(error)"],
    ["cancellingBeforeTask", "ended",       "settle(error)"],
    ["polling",              "ended",       "settle(error)"],
    ["pollInFlight",         "ended",       "settle(error)"],
    ["cancelling",           "ended",       "settle(error)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  alarmEarly: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "polling",     "—"],
    ["pollInFlight",         "polling",     "—"],
    ["cancelling",           "cancelling",  "—"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  alarmGrace: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "ended",       "settle(cancelled_before_task)"],
    ["polling",              "polling",     "—"],
    ["pollInFlight",         "polling",     "—"],
    ["cancelling",           "ended",       "settle(cancel_unconfirmed)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  // Past the TTL the cancel grace has passed too: the TTL comes first in the order of limits.
  alarmTtl: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "ended",       "settle(cancelled_before_task)"],
    ["polling",              "ended",       "settle(expired)"],
    ["pollInFlight",         "ended",       "settle(expired)"],
    ["cancelling",           "ended",       "settle(expired)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  alarmDeadline: [
    ["calling",              "ended",       "settle(deadline_exceeded)"],
    ["detachPending",        "ended",       "settle(deadline_exceeded)"],
    ["inputRounds",          "ended",       "stopInputRounds, settle(deadline_exceeded)"],
    ["cancellingBeforeTask", "ended",       "settle(deadline_exceeded)"],
    ["polling",              "ended",       "settle(deadline_exceeded)"],
    ["pollInFlight",         "ended",       "settle(deadline_exceeded)"],
    ["cancelling",           "ended",       "settle(deadline_exceeded)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  storedUnasked: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "polling",     "—"],
    ["pollInFlight",         "polling",     "—"],
    ["cancelling",           "cancelling",  "—"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  storeFailedUnasked: [
    ["calling",              "calling",     "—"],
    ["detachPending",        "calling",     "—"],
    ["inputRounds",          "inputRounds", "—"],
    ["cancellingBeforeTask", "cancelling",  "—"],
    ["polling",              "polling",     "—"],
    ["pollInFlight",         "polling",     "—"],
    ["cancelling",           "cancelling",  "—"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  close: [
    ["calling",              "calling",     "—",               "waits for the call's answer"],
    ["detachPending",        "calling",     "—",               "waits for the call's answer"],
    ["inputRounds",          "inputRounds", "stopInputRounds", "waits for an answer already on its way"],
    ["cancellingBeforeTask", "cancelling",  "—",               "waits for the call's answer"],
    ["polling",              "ended",       "settle(closed)"],
    ["pollInFlight",         "ended",       "settle(closed)"],
    ["cancelling",           "ended",       "settle(closed)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
  closeForced: [
    ["calling",              "ended",       "settle(closed)"],
    ["detachPending",        "ended",       "settle(closed)"],
    ["inputRounds",          "ended",       "stopInputRounds, settle(closed)"],
    ["cancellingBeforeTask", "ended",       "settle(closed)"],
    ["polling",              "ended",       "settle(closed)"],
    ["pollInFlight",         "ended",       "settle(closed)"],
    ["cancelling",           "ended",       "settle(closed)"],
    ["endedBeforeTask",      "ended",       "—"],
    ["ended",                "ended",       "—"],
  ],
};

/** The test name: the event, the situation, and what comes of it, as a sentence. */
function sentence(
  eventName: EventName,
  situation: Situation,
  phase: PhaseName,
  effects: string,
  instead?: string,
): string {
  const { phrase } = events[eventName];
  const before = situations[situation].state.phase;
  const subject = `${phrase} ${situations[situation].phrase}`;
  if (instead !== undefined)
    return `${subject} ${instead}${effects === "—" ? "" : ` and asks for ${effects}`}`;
  const settle = /settle\(([^)]*)\)/.exec(effects);
  if (settle && phase === "ended" && before !== "ended") {
    const rest = effects.replace(/,? ?settle\([^)]*\)/, "");
    return `${subject} ends the handle as ${settle[1]}${rest ? ` after ${rest}` : ""}`;
  }
  if (effects === "—" && phase === before) return `${subject} changes nothing`;
  const move = phase === before ? `stays ${phase}` : `moves to ${phase}`;
  return `${subject} ${move}${effects === "—" ? "" : ` and asks for ${effects}`}`;
}

const eventNames = Object.keys(events) as EventName[];

describe.each(eventNames)("event %s", (eventName) => {
  const rows = table[eventName].map(([situation, phase, effects, instead]) => ({
    title: sentence(eventName, situation, phase, effects, instead),
    situation,
    phase,
    effects,
  }));

  it.each(rows)("$title", ({ situation, phase, effects }) => {
    const before = situations[situation].state;
    const { event, now } = events[eventName];
    const step = transition(before, event, config, now);
    expect(step.state.phase).toBe(phase);
    expect(effectsLine(step.effects)).toBe(effects);
    // Whatever happens, a known task id is never dropped, and an ended handle has no poll in flight.
    if (before.taskId !== undefined) expect(step.state.taskId).toBe(before.taskId);
    if (step.state.phase === "ended") expect(step.state.pollInFlight).toBe(false);
    // After the end nothing moves at all.
    if (before.phase === "ended") expect(step.state).toBe(before);
  });
});

describe("the table itself", () => {
  it("has a row for every situation under every event type", () => {
    for (const eventName of eventNames) {
      expect(table[eventName].map(([situation]) => situation).sort()).toEqual(Object.keys(situations).sort());
    }
  });

  it("covers every phase with every event type, every time limit and close", () => {
    const phases = new Set(Object.values(situations).map(({ state }) => state.phase));
    expect([...phases].sort()).toEqual(["calling", "cancelling", "ended", "inputRounds", "polling"]);
    const types = new Set(Object.values(events).map(({ event }) => event.type));
    const allTypes: Record<CallEvent["type"], true> = {
      start: true,
      resume: true,
      callAnswered: true,
      callFailed: true,
      stored: true,
      storeFailed: true,
      pollDue: true,
      pollAnswered: true,
      pollFailed: true,
      observed: true,
      cancelRequested: true,
      cancelAnswered: true,
      cancelFailed: true,
      detachRequested: true,
      alarm: true,
      failed: true,
      close: true,
    };
    expect([...types].sort()).toEqual(Object.keys(allTypes).sort());
    // Each alarm row's time passes exactly one more limit than the one before it.
    const state = situations.cancelling.state;
    expect(passedLimit(state, events.alarmEarly.now)).toBeUndefined();
    expect(passedLimit(state, events.alarmGrace.now)).toBe("cancel_unconfirmed");
    expect(passedLimit(state, events.alarmTtl.now)).toBe("expired");
    expect(passedLimit(state, events.alarmDeadline.now)).toBe("deadline_exceeded");
  });
});

/* ---- The situations are real: each is where a short sequence of events from the start leads ------------ */

const reach: Record<Situation, readonly CallEvent[]> = {
  calling: [{ type: "start" }],
  detachPending: [{ type: "start" }, { type: "detachRequested" }],
  inputRounds: [{ type: "start" }, events.answerInputRequired.event],
  cancellingBeforeTask: [{ type: "start" }, events.cancelRequested.event],
  polling: [{ type: "start" }, events.answerTaskWorking.event],
  pollInFlight: [{ type: "start" }, events.answerTaskWorking.event, { type: "pollDue" }],
  cancelling: [{ type: "start" }, events.answerTaskWorking.event, events.cancelRequested.event],
  endedBeforeTask: [{ type: "start" }, events.answerComplete.event],
  ended: [{ type: "start" }, events.answerTaskWorking.event, { type: "detachRequested" }],
};

describe("the representative situations", () => {
  it.each(Object.entries(reach) as [Situation, readonly CallEvent[]][])(
    "the situation %s is reached from the initial state by its events",
    (situation, path) => {
      let state = initialState(DEADLINE);
      for (const event of path) state = transition(state, event, config, AT).state;
      expect(state).toEqual(situations[situation].state);
    },
  );

  // prettier-ignore
  it.each([
    ["calling",              DEADLINE,    undefined],
    ["detachPending",        DEADLINE,    undefined],
    ["inputRounds",          DEADLINE,    undefined],
    ["cancellingBeforeTask", GRACE_UNTIL, "cancelled_before_task"],
    ["polling",              TTL_EXPIRES, "expired"],
    ["pollInFlight",         TTL_EXPIRES, "expired"],
    ["cancelling",           GRACE_UNTIL, "cancel_unconfirmed"],
    ["endedBeforeTask",      undefined,   undefined],
    ["ended",                undefined,   undefined],
  ] as const)("the alarm %s is set for the nearest limit (%s)", (situation, alarm, firstLimit) => {
    const state: CallState = situations[situation].state;
    expect(nextAlarm(state)).toBe(alarm);
    if (alarm === undefined) return;
    expect(passedLimit(state, alarm - 1)).toBeUndefined();
    expect(passedLimit(state, alarm)).toBe(firstLimit ?? "deadline_exceeded");
  });
});

/* ---- Rows that need a situation of their own -------------------------------------------------------- */

describe("special cases", () => {
  it("a created task after cancel and detach were both asked before the id ends detached and cancels the orphan", () => {
    const state: CallState = { ...situations.cancellingBeforeTask.state, detachOnAnswer: true };
    const step = transition(state, events.answerTaskWorking.event, config, AT);
    expect(step.state.phase).toBe("ended");
    expect(step.state.taskId).toBe(TASK);
    expect(effectsLine(step.effects)).toBe("follow(task-1), cancelOrphan(task-1), settle(detached)");
  });

  it("close before the task id: the created task ends the handle as closed, carrying the id", () => {
    const waiting = transition(situations.calling.state, { type: "close" }, config, AT).state;
    expect(waiting).toMatchObject({ phase: "calling", detachOnAnswer: true, closing: true });
    const step = transition(waiting, events.answerTaskWorking.event, config, AT);
    expect(step.state).toMatchObject({ phase: "ended", taskId: TASK });
    expect(effectsLine(step.effects)).toBe("follow(task-1), settle(closed)");
    // With a store: the ref is written first, then the handle ends as closed.
    const durable = { ...config, durable: true };
    const storing = transition(waiting, events.answerTaskWorking.event, durable, AT);
    expect(effectsLine(storing.effects)).toBe("persist(task-1)");
    const stored = transition(storing.state, events.storedUnasked.event, durable, AT);
    expect(effectsLine(stored.effects)).toBe("follow(task-1), settle(closed)");
  });

  it("close before the task id, then a failed call or an immediate result, ends without a task", () => {
    const waiting = transition(situations.calling.state, { type: "close" }, config, AT).state;
    expect(effectsLine(transition(waiting, events.callFailed.event, config, AT).effects)).toBe(
      "settle(closed)",
    );
    expect(effectsLine(transition(waiting, events.answerComplete.event, config, AT).effects)).toBe(
      "settle(result)",
    );
  });

  it("a transient poll failure after the last retry ends the handle as error", () => {
    const state: CallState = { ...situations.pollInFlight.state, pollFailures: config.pollRetries };
    const step = transition(state, events.pollTransient.event, config, AT);
    expect(step.state.phase).toBe("ended");
    expect(effectsLine(step.effects)).toBe("settle(error)");
  });

  it("a transient poll failure counts the attempt and frees the in-flight slot", () => {
    const step = transition(situations.pollInFlight.state, events.pollTransient.event, config, AT);
    expect(step.state).toMatchObject({ pollInFlight: false, pollFailures: 1 });
    expect(step.effects[0]).toMatchObject({
      type: "retrying",
      method: "tasks/get",
      error: "503",
      attempt: 1,
    });
  });

  it("a poll answer resets the failure count and frees the in-flight slot", () => {
    const state: CallState = { ...situations.pollInFlight.state, pollFailures: 2 };
    const step = transition(state, events.pollWorking.event, config, AT);
    expect(step.state).toMatchObject({ pollInFlight: false, pollFailures: 0 });
  });

  it("a failed call that was cancelled before it was sent ends the handle as cancelled_before_task", () => {
    // What the interpreter does with a signal that was already aborted: a cancel intent, then the failure.
    const state: CallState = { ...calling, cancel: { reason: "aborted", graceUntil: 0, sent: false } };
    const step = transition(state, { type: "callFailed", error: "aborted" }, config, AT);
    expect(effectsLine(step.effects)).toBe("settle(cancelled_before_task)");
    expect(step.effects[0]).toMatchObject({ ending: { kind: "local", error: "aborted" } });
  });

  it("a snapshot with ttlMs null removes the TTL backstop, leaving the deadline as the alarm", () => {
    const step = transition(
      situations.polling.state,
      { type: "pollAnswered", snapshot: snapshot("working", { ttlMs: null }) },
      config,
      AT,
    );
    expect(step.state.ttl).toBeUndefined();
    expect(nextAlarm(step.state)).toBe(DEADLINE);
  });

  it("a snapshot with a longer ttlMs moves the TTL backstop", () => {
    const step = transition(
      situations.polling.state,
      { type: "pollAnswered", snapshot: snapshot("working", { ttlMs: 90_000 }) },
      config,
      AT,
    );
    expect(nextAlarm(step.state)).toBe(T0 + 90_000 + config.ttlGraceMs);
  });

  it("a created task with an unreadable createdAt measures the TTL backstop from now", () => {
    const task = created("working", { createdAt: "yesterday" });
    const step = transition(calling, { type: "callAnswered", answer: { kind: "task", task } }, config, AT);
    expect(step.state.ttl).toMatchObject({ lapsesAt: AT + 60_000, expiresAt: AT + 65_000 });
  });

  it("a created task's working seed is shown as a working snapshot with the task's fields", () => {
    const step = transition(calling, events.answerTaskWorking.event, config, AT);
    expect(step.effects[0]).toEqual({ type: "follow", task: created("working"), taskId: TASK });
    expect(step.effects[1]).toMatchObject({ type: "show", snapshot: { taskId: TASK, status: "working" } });
    expect(step.effects[2]).toEqual({ type: "schedulePoll", cause: "interval" });
    // The seed shown carries the interval the cadence owner reads.
    expect(step.effects[1]).toMatchObject({ snapshot: { pollIntervalMs: 500 } });
  });

  it("a cancel starts the grace period from the moment it is asked, with or without a task id", () => {
    for (const situation of ["calling", "polling"] as const) {
      const step = transition(situations[situation].state, events.cancelRequested.event, config, T0 + 7_000);
      expect(step.state.cancel).toEqual({
        reason: "stop",
        graceUntil: T0 + 17_000,
        sent: situation === "polling",
      });
    }
  });

  it("a settle carries the error of the event that ended the handle", () => {
    const step = transition(situations.pollInFlight.state, events.pollNotFound.event, config, AT);
    expect(step.effects).toEqual([
      { type: "settle", ending: { kind: "local", reason: "not_found", error: "gone" } },
    ]);
  });

  it("a completed poll answer settles with the snapshot itself", () => {
    const step = transition(situations.pollInFlight.state, events.pollCompleted.event, config, AT);
    expect(step.effects).toEqual([
      { type: "settle", ending: { kind: "snapshot", snapshot: snapshot("completed") } },
    ]);
  });
});

describe("with a store (durable before visible)", () => {
  const durable = { ...config, durable: true };

  it("a new task is persisted first; the handle reports it and polls only once the ref is stored", () => {
    const task = created("working");
    const answered = transition(
      initialState(undefined),
      { type: "callAnswered", answer: { kind: "task", task } },
      durable,
      AT,
    );
    expect(answered.state).toMatchObject({ phase: "polling", taskId: TASK, storing: true });
    expect(answered.effects.map(effectToken)).toEqual([`persist(${TASK})`]);
    const stored = transition(answered.state, { type: "stored", task }, durable, AT);
    expect(stored.state.storing).toBe(false);
    expect(stored.effects.map(effectToken)).toEqual([
      `follow(${TASK})`,
      "show(working)",
      "schedulePoll(interval)",
    ]);
  });

  it("a cancel while the ref is being written: polls wait, and the stored ref brings one at once", () => {
    const task = created("working");
    const answered = transition(
      initialState(undefined),
      { type: "callAnswered", answer: { kind: "task", task } },
      durable,
      AT,
    );
    const cancelled = transition(answered.state, events.cancelRequested.event, durable, AT);
    expect(cancelled.effects.map(effectToken)).toEqual([`sendCancel(${TASK})`]);
    // The acknowledgement comes before the ref is stored: a poll now would be ignored.
    const acked = transition(cancelled.state, events.cancelAnswered.event, durable, AT);
    expect(acked.effects).toEqual([]);
    const stored = transition(acked.state, { type: "stored", task }, durable, AT);
    expect(stored.state).toMatchObject({ phase: "cancelling", storing: false });
    expect(stored.effects.map(effectToken)).toEqual([`follow(${TASK})`, "schedulePoll(cancelAnswered)"]);
  });

  it("a ref the store refused ends the handle with the id, unreported, and cancels the task", () => {
    const task = created("working");
    const answered = transition(
      initialState(undefined),
      { type: "callAnswered", answer: { kind: "task", task } },
      durable,
      AT,
    );
    const failed = { type: "storeFailed", task, error: "disk full", cancel: true } as const;
    const step = transition(answered.state, failed, durable, AT);
    expect(step.state).toMatchObject({ phase: "ended", taskId: TASK, storing: false });
    expect(step.effects.map(effectToken)).toEqual([`cancelOrphan(${TASK})`, "settle(error)"]);
    // Not ours to cancel (another worker owns the task), or a cancel already went out: no second one.
    expect(
      transition(answered.state, { ...failed, cancel: false }, durable, AT).effects.map(effectToken),
    ).toEqual(["settle(error)"]);
    const cancelling = transition(answered.state, events.cancelRequested.event, durable, AT).state;
    expect(transition(cancelling, failed, durable, AT).effects.map(effectToken)).toEqual(["settle(error)"]);
  });

  it("a deadline while the ref is being written ends the handle with the task id", () => {
    const task = created("working");
    const answered = transition(
      initialState(DEADLINE),
      { type: "callAnswered", answer: { kind: "task", task } },
      durable,
      AT,
    );
    const ended = transition(answered.state, { type: "alarm" }, durable, DEADLINE);
    expect(ended.state).toMatchObject({ phase: "ended", taskId: TASK });
    expect(ended.effects.map(effectToken)).toEqual(["settle(deadline_exceeded)"]);
  });

  describe("a task that may outlive its handle is stored before anything reports it (decision 12)", () => {
    const task = created("working");
    const answer = { type: "callAnswered", answer: { kind: "task", task } } as const;
    const calling = initialState(undefined);

    it("a cancel asked before the id arrived: the ref is written and the cancel sent; the task is reported once stored", () => {
      const cancelling = transition(calling, events.cancelRequested.event, durable, AT).state;
      const answered = transition(cancelling, answer, durable, AT);
      expect(answered.state).toMatchObject({ phase: "cancelling", taskId: TASK, storing: true });
      expect(answered.effects.map(effectToken)).toEqual([`persist(${TASK})`, `sendCancel(${TASK})`]);
      const stored = transition(answered.state, { type: "stored", task }, durable, AT);
      expect(stored.effects.map(effectToken)).toEqual([`follow(${TASK})`, "schedulePoll(cancelAnswered)"]);
      // Unconfirmed by the end of the grace period: the handle ends, and the task's ref is in the store.
      const ended = transition(stored.state, { type: "alarm" }, durable, AT + config.cancelGraceMs);
      expect(ended.effects.map(effectToken)).toEqual(["settle(cancel_unconfirmed)"]);
    });

    it("a detach asked before the id arrived ends the handle as detached only once the ref is stored", () => {
      const detaching = transition(calling, events.detach.event, durable, AT).state;
      const answered = transition(detaching, answer, durable, AT);
      expect(answered.state).toMatchObject({ phase: "polling", taskId: TASK, storing: true });
      expect(answered.effects.map(effectToken)).toEqual([`persist(${TASK})`]);
      const stored = transition(answered.state, { type: "stored", task }, durable, AT);
      expect(stored.state.phase).toBe("ended");
      expect(stored.effects.map(effectToken)).toEqual([`follow(${TASK})`, "settle(detached)"]);
    });

    it("a detach and a cancel asked before the id arrived: the cancel goes out at once, the end waits for the store", () => {
      const cancelling = transition(calling, events.cancelRequested.event, durable, AT).state;
      const both = transition(cancelling, events.detach.event, durable, AT).state;
      const answered = transition(both, answer, durable, AT);
      expect(answered.effects.map(effectToken)).toEqual([`persist(${TASK})`, `cancelOrphan(${TASK})`]);
      // The cancel's grace passing meanwhile does not end the handle before its ref is stored.
      expect(transition(answered.state, { type: "alarm" }, durable, AT + 60_000).effects).toEqual([]);
      const stored = transition(answered.state, { type: "stored", task }, durable, AT);
      expect(stored.effects.map(effectToken)).toEqual([`follow(${TASK})`, "settle(detached)"]);
    });

    it("a detach while the ref is being written waits for it", () => {
      const answered = transition(calling, answer, durable, AT);
      const detached = transition(answered.state, events.detach.event, durable, AT);
      expect(detached.effects).toEqual([]);
      expect(detached.state.phase).toBe("polling");
      const stored = transition(detached.state, { type: "stored", task }, durable, AT);
      expect(stored.effects.map(effectToken)).toEqual([`follow(${TASK})`, "settle(detached)"]);
    });

    it("a detached task whose ref the store refused ends with the store's error and is cancelled", () => {
      const detaching = transition(calling, events.detach.event, durable, AT).state;
      const answered = transition(detaching, answer, durable, AT);
      const failed = { type: "storeFailed", task, error: "disk full", cancel: true } as const;
      const step = transition(answered.state, failed, durable, AT);
      expect(step.effects.map(effectToken)).toEqual([`cancelOrphan(${TASK})`, "settle(error)"]);
    });

    it("without a store, both still report the task at once", () => {
      const detaching = transition(calling, events.detach.event, config, AT).state;
      expect(transition(detaching, answer, config, AT).effects.map(effectToken)).toEqual([
        `follow(${TASK})`,
        "settle(detached)",
      ]);
      const cancelling = transition(calling, events.cancelRequested.event, config, AT).state;
      expect(transition(cancelling, answer, config, AT).effects.map(effectToken)).toEqual([
        `follow(${TASK})`,
        `sendCancel(${TASK})`,
      ]);
    });
  });
});
