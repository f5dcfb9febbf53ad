/**
 * The one place that decides what happens to a call: `(state, event) → (state, effects)`. Pure: no I/O, no
 * clock (the time comes in as `now`), no randomness. Every phase answers every event, including the time
 * limits and `close`, so "a deadline while a poll hangs" or "a cancel racing the last snapshot" is a row of a
 * table rather than a gap between mutable fields.
 */
import type { CreateTaskResult, DetailedTask } from "../schema/index.js";
import { Method, isTerminalStatus } from "../protocol/constants.js";
import { parseTimestamp } from "../task/timestamp.js";
import type { OneShotCause } from "../scheduler/cadence.js";
import type { CallEvent, CallState, Effect, Ending, LifecycleConfig, LocalEnding, Step } from "./types.js";

/** The state of a call that has not started yet. */
export function initialState(deadline: number | undefined): CallState {
  return make("calling", undefined, false, 0, undefined, false, deadline, undefined, false, false);
}

const none: readonly Effect[] = Object.freeze([]);

/** Events that carry nothing, made once: an interpreter raises them on every poll and every alarm. */
export const pollDueEvent: CallEvent = Object.freeze({ type: "pollDue" });
export const alarmEvent: CallEvent = Object.freeze({ type: "alarm" });

export function transition(state: CallState, event: CallEvent, config: LifecycleConfig, now: number): Step {
  if (state.phase === "ended") return afterEnd(state, event);
  switch (event.type) {
    case "start":
      return { state, effects: [{ type: "sendCall" }] };
    case "resume":
      return {
        state: next(state, { phase: "polling", taskId: event.taskId }),
        effects: [{ type: "adopt", task: undefined, taskId: event.taskId }, oneShot("resume")],
      };
    case "callAnswered":
      return onAnswer(state, event.answer, config, now);
    case "callFailed":
      return onCallFailed(state, event.error);
    case "stored":
      return onStored(state, event.task);
    case "storeFailed":
      return onStoreFailed(state, event);
    case "pollDue":
      return onPollDue(state);
    case "pollAnswered":
      return onSnapshot(withPoll(state, false, 0), event.snapshot, config, now, true);
    case "observed":
      return onSnapshot(state, event.snapshot, config, now, false);
    case "pollFailed":
      return onPollFailed(state, event, config);
    case "cancelRequested":
      return onCancel(state, event.reason, config, now);
    case "cancelAnswered":
      // The server took the cancel: ask at once for its final word.
      return { state, effects: afterCancel(state) };
    case "cancelFailed":
      // The server refused or never answered: the next poll says what the task really is, within the grace.
      return { state, effects: afterCancel(state) };
    case "detachRequested":
      return onDetach(state);
    case "alarm":
      return onAlarm(state, now);
    case "failed":
      return end(
        state,
        { kind: "local", reason: "error", error: event.error },
        stopRounds(state, event.error),
      );
    case "close":
      return onClose(state, event.force === true);
  }
}

/** When the handle's alarm must fire next: the nearest limit that applies in this state, if any. */
export function nextAlarm(state: CallState): number | undefined {
  if (state.phase === "ended") return undefined;
  let at = state.deadline;
  if (state.taskId !== undefined && state.ttl) at = earlier(at, state.ttl.expiresAt);
  if (state.phase === "cancelling" && state.cancel) at = earlier(at, state.cancel.graceUntil);
  return at;
}

/** The limit that has passed at `now`, in the order deadline, TTL, cancel grace. */
export function passedLimit(state: CallState, now: number): LocalEnding | undefined {
  if (state.deadline !== undefined && now >= state.deadline) return "deadline_exceeded";
  if (state.taskId !== undefined && state.ttl && now >= state.ttl.expiresAt) return "expired";
  if (state.phase === "cancelling" && state.cancel && now >= state.cancel.graceUntil) {
    return state.taskId === undefined ? "cancelled_before_task" : "cancel_unconfirmed";
  }
  return undefined;
}

/* ---- The call's answer ------------------------------------------------------------------------------ */

function onAnswer(
  state: CallState,
  answer: Extract<CallEvent, { type: "callAnswered" }>["answer"],
  config: LifecycleConfig,
  now: number,
): Step {
  if (state.taskId !== undefined) return { state, effects: none }; // a resumed handle has no call
  switch (answer.kind) {
    case "input_required":
      if (state.detachOnAnswer || state.cancel) {
        // Nobody wants this call's answers any more and no task exists yet: stop here.
        return end(state, endingBeforeTask(state));
      }
      return {
        state: next(state, { phase: "inputRounds" }),
        effects: [{ type: "runInputRounds", first: answer.result }],
      };
    case "complete":
      return end(state, { kind: "result", result: answer.result });
    case "task":
      return onTaskCreated(state, answer.task, config, now);
  }
}

/**
 * The call brought a task. Durable before visible (decision 12): with a store, the ref is written before the
 * handle reports the task, in every branch, since in each the task may outlive the handle (a detached handle, a
 * cancel the server does not confirm). A cancel asked for earlier goes out at once, while the ref is written.
 */
function onTaskCreated(state: CallState, task: CreateTaskResult, config: LifecycleConfig, now: number): Step {
  const taskId = task.taskId;
  const known = withTtl(next(state, { taskId }), task.createdAt, task.ttlMs, config, now);
  const store: readonly Effect[] = config.durable ? [{ type: "persist", task, taskId }] : none;
  const adopt: readonly Effect[] = config.durable ? none : [{ type: "adopt", task, taskId }];
  if (state.detachOnAnswer) {
    // A cancel asked for earlier still goes out; the handle ends as detached, carrying the id (once stored).
    const cancel: Effect[] = state.cancel ? [{ type: "cancelOrphan", taskId }] : [];
    if (config.durable) {
      // Not `cancelling`: the handle ends as detached when `stored` comes, whatever the cancel's grace says.
      return { state: next(known, { phase: "polling", storing: true }), effects: [...store, ...cancel] };
    }
    return end(known, waitedEnding(state), [...adopt, ...cancel]);
  }
  if (state.cancel) {
    const cancelling = next(known, {
      phase: "cancelling",
      cancel: { ...state.cancel, sent: true },
      storing: config.durable === true,
    });
    return { state: cancelling, effects: [...store, ...adopt, { type: "sendCancel", taskId }] };
  }
  const polling = next(known, { phase: "polling" });
  if (config.durable) {
    // The ref is written before the handle reports the task or polls it.
    return { state: next(polling, { storing: true }), effects: store };
  }
  return { state: polling, effects: [...adopt, ...followSeed(task)] };
}

/** The first look at a new task: a working seed is shown and polled after its interval; any other is polled now. */
function followSeed(task: CreateTaskResult): readonly Effect[] {
  if (task.status === "working") {
    // A working seed carries everything a working snapshot has: show it now, poll after the interval.
    const seed = { ...task, status: "working" } as DetailedTask;
    return [{ type: "show", snapshot: seed }, regularPoll];
  }
  // Any other seed status has its payload only in tasks/get: fetch it now.
  return [oneShot("seed")];
}

/**
 * The ref is stored: the handle reports the task and follows it, or ends as detached if `detach()` came first. A
 * cancel sent meanwhile had its answers and polls ignored while storing (nothing is shown before the task is
 * reported): poll now for the final word.
 */
function onStored(state: CallState, task: CreateTaskResult): Step {
  if (!state.storing || state.taskId !== task.taskId) return { state, effects: none };
  const adopt: Effect = { type: "adopt", task, taskId: task.taskId };
  const stored = next(state, { storing: false });
  if (state.detachOnAnswer) return end(stored, waitedEnding(state), [adopt]);
  // The cancel's own one-shot, deferred while storing (see `afterCancel`).
  if (state.phase !== "polling") return { state: stored, effects: [adopt, oneShot("cancelAnswered")] };
  return { state: stored, effects: [adopt, ...followSeed(task)] };
}

/** The ref could not be stored: the task is never reported, and is cancelled unless that is not ours to do. */
function onStoreFailed(state: CallState, event: Extract<CallEvent, { type: "storeFailed" }>): Step {
  if (!state.storing || state.taskId !== event.task.taskId) return { state, effects: none };
  const cancel: Effect[] =
    event.cancel && !state.cancel ? [{ type: "cancelOrphan", taskId: event.task.taskId }] : [];
  return end(next(state, { storing: false }), { kind: "local", reason: "error", error: event.error }, cancel);
}

function onCallFailed(state: CallState, error: unknown): Step {
  if (state.taskId !== undefined) return { state, effects: none };
  if (state.detachOnAnswer) return end(state, waitedEnding(state));
  if (state.cancel) return end(state, { kind: "local", reason: "cancelled_before_task", error });
  return end(state, { kind: "local", reason: "error", error });
}

/* ---- Polls and snapshots ----------------------------------------------------------------------------- */

function onPollDue(state: CallState): Step {
  if (state.taskId === undefined || state.pollInFlight) return { state, effects: none };
  return {
    state: withPoll(state, true, state.pollFailures),
    effects: [{ type: "sendPoll", taskId: state.taskId }],
  };
}

function onSnapshot(
  state: CallState,
  snapshot: DetailedTask,
  config: LifecycleConfig,
  now: number,
  fromPoll: boolean,
): Step {
  if (state.taskId === undefined || snapshot.taskId !== state.taskId || state.storing)
    return { state, effects: none };
  const known = withTtl(state, snapshot.createdAt, snapshot.ttlMs, config, now);
  if (isTerminalStatus(snapshot.status)) return end(known, { kind: "snapshot", snapshot });
  const show: Effect = { type: "show", snapshot };
  // Only the scheduled poll plans the next one; an extra observation leaves the cadence alone.
  return { state: known, effects: fromPoll ? [show, regularPoll] : [show] };
}

function onPollFailed(
  state: CallState,
  event: Extract<CallEvent, { type: "pollFailed" }>,
  config: LifecycleConfig,
): Step {
  const idle = withPoll(state, false, state.pollFailures);
  if (event.fault === "not_found")
    return end(idle, { kind: "local", reason: "not_found", error: event.error });
  if (event.fault === "transient" && state.pollFailures < config.pollRetries) {
    const attempt = state.pollFailures + 1;
    // The backoff wait is a scheduled poll like any other: it holds no in-flight slot while it waits.
    return {
      state: withPoll(idle, false, attempt),
      effects: [
        { type: "retrying", method: Method.tasksGet, error: event.error, attempt },
        { type: "schedulePoll", cause: "retry", retryDelayMs: event.retryDelayMs },
      ],
    };
  }
  return end(idle, { kind: "local", reason: "error", error: event.error });
}

/* ---- Caller intents ---------------------------------------------------------------------------------- */

function onCancel(state: CallState, reason: unknown, config: LifecycleConfig, now: number): Step {
  if (state.cancel) return { state, effects: none }; // one cancel per handle
  // The grace period starts now, whatever the cancel request then does (fails, hangs, waits for an id).
  const cancel = { reason, graceUntil: now + config.cancelGraceMs, sent: state.taskId !== undefined };
  const cancelling = next(state, { phase: "cancelling", cancel });
  if (state.taskId === undefined) {
    // No id yet: the call keeps going (cutting it would orphan a task the server may have made already).
    return { state: cancelling, effects: stopRounds(state, reason) };
  }
  return { state: cancelling, effects: [{ type: "sendCancel", taskId: state.taskId }] };
}

function onDetach(state: CallState): Step {
  // While the new task's ref is written, the detach waits for it: a detached task must be in the store.
  if (state.storing) return { state: next(state, { detachOnAnswer: true }), effects: none };
  if (state.taskId !== undefined) return end(state, { kind: "local", reason: "detached" });
  if (state.phase === "inputRounds") {
    // Stop asking for input now; an answer already on its way may still bring a task id, which is kept.
    return {
      state: next(state, { detachOnAnswer: true }),
      effects: stopRounds(state, "the handle was detached"),
    };
  }
  return { state: next(state, { detachOnAnswer: true }), effects: none };
}

/**
 * The client is closing. Before the task id is known the handle waits, like a detach, for the call's answer (the
 * server may be making a task, whose id must not be lost) and, with a store, for its ref to be written; the
 * client's `close()` bounds the wait and then closes again with `force`. A known id ends the handle at once: the
 * outcome carries it, and `close()` waits for a write in flight before it closes the store.
 */
function onClose(state: CallState, force: boolean): Step {
  const stop = stopRounds(state, "the client closed");
  if (force || state.taskId !== undefined) return end(state, { kind: "local", reason: "closed" }, stop);
  return { state: next(state, { detachOnAnswer: true, closing: true }), effects: stop };
}

function onAlarm(state: CallState, now: number): Step {
  const passed = passedLimit(state, now);
  if (passed === undefined) return { state, effects: none };
  return end(state, { kind: "local", reason: passed }, stopRounds(state, passed));
}

/* ---- After the end ----------------------------------------------------------------------------------- */

function afterEnd(state: CallState, event: CallEvent): Step {
  // A task made after its handle ended can be reached by nobody: ask the server to stop it.
  if (event.type === "callAnswered" && event.answer.kind === "task" && state.taskId === undefined) {
    return { state, effects: [{ type: "cancelOrphan", taskId: event.answer.task.taskId }] };
  }
  return { state, effects: none };
}

/* ---- Helpers ----------------------------------------------------------------------------------------- */

function end(state: CallState, ending: Ending, before: readonly Effect[] = none): Step {
  return {
    state: next(state, { phase: "ended", pollInFlight: false }),
    effects: [...before, { type: "settle", ending }],
  };
}

function endingBeforeTask(state: CallState): Ending {
  return state.detachOnAnswer ? waitedEnding(state) : { kind: "local", reason: "cancelled_before_task" };
}

/** How a handle that waited for the call's answer ends: as closed when the client closed, else detached. */
function waitedEnding(state: CallState): Ending {
  return { kind: "local", reason: state.closing ? "closed" : "detached" };
}

function stopRounds(state: CallState, reason: unknown): readonly Effect[] {
  return state.phase === "inputRounds" ? [{ type: "stopInputRounds", reason }] : none;
}

/** The regular next poll, after the interval of the snapshot just shown. Made once: every poll asks for it. */
const regularPoll: Effect = Object.freeze({ type: "schedulePoll", cause: "interval" });

/** A poll the cadence lets go out at once (see `OneShotCause`). */
function oneShot(cause: OneShotCause): Effect {
  return { type: "schedulePoll", cause };
}

/**
 * The cancel has its answer (or none will come): one poll fetches the task's final word. While storing, a poll's
 * answer would be ignored; `stored` polls instead.
 */
function afterCancel(state: CallState): readonly Effect[] {
  return state.taskId === undefined || state.storing ? none : [oneShot("cancelAnswered")];
}

/** Follows the task's latest `createdAt` and `ttlMs` (both may change over its life). */
function withTtl(
  state: CallState,
  createdAt: string,
  ttlMs: number | null | undefined,
  config: LifecycleConfig,
  now: number,
): CallState {
  const ttl = state.ttl;
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs)) {
    return ttl === undefined ? state : next(state, { ttl: undefined }); // null: no expiry
  }
  if (ttl !== undefined && ttl.createdAt === createdAt && ttl.ttlMs === ttlMs) return state;
  const created = parseTimestamp(createdAt);
  // An unreadable createdAt never crashes polling; the backstop is then measured from now.
  const lapsesAt = (Number.isFinite(created) ? created : now) + ttlMs;
  return next(state, { ttl: { createdAt, ttlMs, lapsesAt, expiresAt: lapsesAt + config.ttlGraceMs } });
}

/* ---- States ------------------------------------------------------------------------------------------ */

/**
 * Every state is made by this one literal, its fields in one order. A spread copy (`{ ...state, x }`) costs a
 * microsecond or more on Node 20 and leaves most fields outside the object; the poll path makes two states per
 * poll, for every task.
 */
function make(
  phase: CallState["phase"],
  taskId: string | undefined,
  pollInFlight: boolean,
  pollFailures: number,
  cancel: CallState["cancel"],
  detachOnAnswer: boolean,
  deadline: number | undefined,
  ttl: CallState["ttl"],
  storing: boolean,
  closing: boolean,
): CallState {
  return {
    phase,
    taskId,
    pollInFlight,
    pollFailures,
    cancel,
    detachOnAnswer,
    deadline,
    ttl,
    storing,
    closing,
  };
}

/** `state` with `change` applied (`ttl` may be changed to undefined; the deadline never changes). */
function next(state: CallState, change: Partial<Omit<CallState, "deadline">>): CallState {
  return make(
    change.phase ?? state.phase,
    change.taskId ?? state.taskId,
    change.pollInFlight ?? state.pollInFlight,
    change.pollFailures ?? state.pollFailures,
    change.cancel ?? state.cancel,
    change.detachOnAnswer ?? state.detachOnAnswer,
    state.deadline,
    "ttl" in change ? change.ttl : state.ttl,
    change.storing ?? state.storing,
    change.closing ?? state.closing,
  );
}

/** The poll path's change, without a change object; the same state when nothing changes. */
function withPoll(state: CallState, pollInFlight: boolean, pollFailures: number): CallState {
  if (state.pollInFlight === pollInFlight && state.pollFailures === pollFailures) return state;
  const { phase, taskId, cancel } = state;
  return make(
    phase,
    taskId,
    pollInFlight,
    pollFailures,
    cancel,
    state.detachOnAnswer,
    state.deadline,
    state.ttl,
    state.storing,
    state.closing,
  );
}

function earlier(a: number | undefined, b: number): number {
  return a === undefined ? b : Math.min(a, b);
}
