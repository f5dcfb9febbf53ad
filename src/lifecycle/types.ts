/**
 * A call's life as data (DESIGN decision 9): the phase it is in, the events that can happen to it, and the
 * effects a transition asks for. Nothing here does anything; `transition.ts` decides, the client's interpreter
 * acts. Keeping every "what if two things happen at once" in one pure function is what makes them testable.
 */
import type { CallToolResult, CreateTaskResult, DetailedTask } from "../schema/index.js";
import type { PollCause } from "../scheduler/cadence.js";

/**
 * - `calling`: the request is out; no task id yet.
 * - `inputRounds`: the server asked for input before making a task (multi-round-trip); answers are being sent.
 * - `polling`: following a task by its id.
 * - `cancelling`: the caller asked to cancel; waiting (at most the grace period) for the server's final word.
 *   The task id may still be unknown: the cancel is then sent the moment the call's answer brings it.
 * - `ended`: the handle has its outcome. Late answers are only ever used to cancel a task nobody can reach.
 */
export type PhaseName = "calling" | "inputRounds" | "polling" | "cancelling" | "ended";

/** Why a handle ended without a server snapshot deciding it. */
export type LocalEnding =
  | "detached"
  | "closed"
  | "deadline_exceeded"
  | "expired"
  | "not_found"
  | "cancel_unconfirmed"
  | "cancelled_before_task"
  | "error";

export interface CallState {
  readonly phase: PhaseName;
  readonly taskId: string | undefined;
  /** A `tasks/get` is out (there is never more than one). */
  readonly pollInFlight: boolean;
  /** Transient `tasks/get` faults in a row; reset by every answer. */
  readonly pollFailures: number;
  /** Set once the caller asked to cancel (by `cancel()`, an aborted signal, or the input policy). */
  readonly cancel: CancelIntent | undefined;
  /** `detach()` came before the task id: end as detached once the call answers, keeping the id. */
  readonly detachOnAnswer: boolean;
  /** Epoch ms: the caller's deadline. */
  readonly deadline: number | undefined;
  /** The task's time to live, as last reported (only enforced once a task id is known). */
  readonly ttl: TtlBackstop | undefined;
  /** The new task's ref is being written to the store: the handle reports it and polls only once it is. */
  readonly storing: boolean;
  /** `close()` came before the task id: with `detachOnAnswer`, end as closed, not detached, once it is known. */
  readonly closing: boolean;
}

export interface TtlBackstop {
  /** The `createdAt` and `ttlMs` this was derived from (servers repeat them on every poll). */
  readonly createdAt: string;
  readonly ttlMs: number;
  /** Epoch ms: `createdAt + ttlMs`, when the server considers the task gone. */
  readonly lapsesAt: number;
  /** Epoch ms: `lapsesAt` plus the clock-skew grace; the handle gives up here. */
  readonly expiresAt: number;
}

export interface CancelIntent {
  readonly reason: unknown;
  /** Epoch ms: when waiting for the server's final word stops (counted from the `cancel()` call). */
  readonly graceUntil: number;
  /** `tasks/cancel` has been handed to the interpreter (it is sent once per handle). */
  readonly sent: boolean;
}

/** Settings the transition function reads; fixed for the life of a client. */
export interface LifecycleConfig {
  /** Retries of a transiently failing `tasks/get` before the handle ends with the fault. */
  readonly pollRetries: number;
  readonly cancelGraceMs: number;
  readonly ttlGraceMs: number;
  /** A store is configured: a new task's ref is written before the handle reports the task (decision 12). */
  readonly durable?: boolean;
}

/** What the call's request finally answered (after any input rounds). */
export type CallAnswer =
  | { kind: "complete"; result: CallToolResult }
  | { kind: "task"; task: CreateTaskResult }
  /** The server wants input before it makes a task: run the input rounds. */
  | { kind: "input_required"; result: object };

export type CallEvent =
  | { type: "start" }
  | { type: "resume"; taskId: string }
  | { type: "callAnswered"; answer: CallAnswer }
  | { type: "callFailed"; error: unknown }
  /** The store has the new task's ref: report the task and follow it. */
  | { type: "stored"; task: CreateTaskResult }
  /**
   * The store did not take the new task's ref: the handle ends with `error` (made by the interpreter, carrying
   * the id) without reporting the task, and asks the server to stop it unless `cancel` is false (another worker
   * owns the task) or a cancel already went out.
   */
  | { type: "storeFailed"; task: CreateTaskResult; error: unknown; cancel: boolean }
  /** The scheduler says the next poll is due. */
  | { type: "pollDue" }
  | { type: "pollAnswered"; snapshot: DetailedTask }
  /**
   * A `tasks/get` failed. The interpreter classifies the fault (the transition stays free of error classes) and
   * computes the backoff for the next attempt, which needs randomness.
   */
  | { type: "pollFailed"; error: unknown; fault: "transient" | "not_found" | "fatal"; retryDelayMs: number }
  /** A snapshot that did not come from the scheduled poll (`describe()`, a notification). */
  | { type: "observed"; snapshot: DetailedTask }
  | { type: "cancelRequested"; reason: unknown }
  | { type: "cancelAnswered" }
  /** The handle's `tasks/cancel` was refused, or its retries ran out (a retry itself is no event). */
  | { type: "cancelFailed"; error: unknown }
  | { type: "detachRequested" }
  /** The handle's alarm went off: whatever limit has passed at `now` applies. */
  | { type: "alarm" }
  /**
   * Something on this side ended the task: the input coordinator (policy `fail`, a server that broke the input
   * rules), or an effect that threw.
   */
  | { type: "failed"; error: unknown }
  /**
   * The client is closing. Before the task id is known, the handle waits for the call's answer (and the new ref's
   * write), so a task the server made is kept; `force`: `close()` stopped waiting (`closeTimeoutMs`).
   */
  | { type: "close"; force?: boolean };

/** How the handle ends. */
export type Ending =
  /** The server answered the call at once. */
  | { kind: "result"; result: CallToolResult }
  /** A terminal snapshot decides (completed, failed, cancelled). */
  | { kind: "snapshot"; snapshot: DetailedTask }
  | { kind: "local"; reason: LocalEnding; error?: unknown };

export type Effect =
  | { type: "sendCall" }
  | { type: "runInputRounds"; first: object }
  /** Stop asking handlers for input before a task exists (the answer in flight, if any, still arrives). */
  | { type: "stopInputRounds"; reason: unknown }
  /** Write the new task's ref to the store, then raise `stored`. */
  | { type: "persist"; task: CreateTaskResult; taskId: string }
  /** The task id is known: record it on the handle (fires `task`, resolves `ref`). */
  | { type: "adopt"; task: CreateTaskResult | undefined; taskId: string }
  /** A non-terminal snapshot for the handle and the input coordinator. */
  | { type: "show"; snapshot: DetailedTask }
  /**
   * Plan the next poll, for `cause`: the cadence owner (src/scheduler/cadence.ts) says when, from the interval
   * of the newest snapshot shown. `retry` brings the backoff of the retry.
   */
  | { type: "schedulePoll"; cause: PollCause; retryDelayMs?: number }
  | { type: "sendPoll"; taskId: string }
  | { type: "sendCancel"; taskId: string }
  | { type: "retrying"; method: string; error: unknown; attempt: number }
  | { type: "settle"; ending: Ending }
  /** Best effort `tasks/cancel` for a task whose handle has already ended: nobody can reach it any more. */
  | { type: "cancelOrphan"; taskId: string };

export interface Step {
  readonly state: CallState;
  readonly effects: readonly Effect[];
}
