/**
 * What a task handle shows its users: status updates (iterator and events) and the final outcome.
 */
import type {
  CallToolResult,
  CancelledTask,
  CompletedTask,
  DetailedTask,
  FailedTask,
  InputRequest,
  InputRequests,
  InputResponse,
  TaskStatus,
} from "../schema/index.js";
import type {
  McpTasksError,
  TaskCancelledError,
  TaskEndedError,
  TaskFailedError,
} from "../protocol/errors.js";
import type { TaskRef } from "./ref.js";
import type { AnsweredInput } from "./state.js";

/**
 * One status update, as yielded by `for await (const update of handle)` and emitted as the `update` event.
 * An immediate (non-task) result yields exactly one update: `{ status: "completed", terminal: true, result }`.
 */
export interface TaskUpdate<T = CallToolResult> {
  /** The task id; undefined when the server answered at once without creating a task. */
  taskId: string | undefined;
  status: TaskStatus;
  /** Untrusted server text describing the state. */
  statusMessage: string | undefined;
  /** True for `completed`, `failed` and `cancelled`. Every consumer sees exactly one terminal update. */
  terminal: boolean;
  /** Outstanding input requests (status `input_required`). */
  inputRequests?: InputRequests;
  /** The result (status `completed`). */
  result?: T;
  /**
   * The server snapshot this update came from (absent for an immediate result). Updates are not re-issued for
   * snapshots that change nothing visible, so a newer snapshot may exist (`TaskSink.snapshot`).
   */
  snapshot?: DetailedTask;
}

/**
 * How a handle ended. `outcome()` resolves with this and never rejects; awaiting the handle resolves with the
 * result for `completed` and rejects with `error` otherwise.
 */
export type TaskOutcome<T = CallToolResult> =
  | { kind: "completed"; taskId: string | undefined; result: T }
  | { kind: "failed"; taskId: string | undefined; error: TaskFailedError }
  | { kind: "cancelled"; taskId: string | undefined; error: TaskCancelledError }
  | { kind: "not_found"; taskId: string; error: TaskEndedError<"not_found"> }
  | { kind: "expired"; taskId: string; error: TaskEndedError<"expired"> }
  | { kind: "deadline_exceeded"; taskId: string | undefined; error: TaskEndedError<"deadline_exceeded"> }
  | { kind: "detached"; taskId: string | undefined; error: TaskEndedError<"detached"> }
  | { kind: "closed"; taskId: string | undefined; error: TaskEndedError<"closed"> }
  /** Anything else that stopped the handle: a protocol violation, a missing capability, a final transport fault. */
  | { kind: "error"; taskId: string | undefined; error: McpTasksError };

/** An input request as the app sees it (event `input`, iterator update with status `input_required`). */
export interface InputRequestEvent {
  taskId: string | undefined;
  /** The key the server chose; answer with `handle.respond(key, response)`. */
  key: string;
  request: InputRequest;
}

/** A transient fault that is being retried. */
export interface RetryEvent {
  method: string;
  error: unknown;
  /** 1 for the first retry. */
  attempt: number;
}

/** Typed events of a task handle (eventemitter3's listener types; ./emitter.ts emits them). */
export interface TaskHandleEvents<T = CallToolResult> {
  /** The server created a task; the id is now known. */
  task: (taskId: string) => void;
  /** A new status update (the same objects the iterator yields). */
  update: (update: TaskUpdate<T>) => void;
  /** The server asks for input. */
  input: (event: InputRequestEvent) => void;
  /** An input request could not be answered and the unanswerable-input policy was applied. */
  inputUnanswered: (event: InputRequestEvent & { reason: string; action: UnansweredInputAction }) => void;
  /** A transient fault is being retried. */
  retry: (event: RetryEvent) => void;
  /** The handle ended. */
  settled: (outcome: TaskOutcome<T>) => void;
}

/** What happens when an input request cannot be answered (no handler for its kind, or the handler threw). */
export type UnansweredInputAction = "decline" | "cancel" | "fail";

/** What `handle.cancel()` resolves with. It never rejects: a refused cancel is reported in `error`. */
export interface CancelResult<T = CallToolResult> {
  /**
   * The server's acknowledgement of `tasks/cancel`; undefined when none came: nothing was sent (no task, or
   * the server had already said its last word), the server refused (`error`), or the handle ended first.
   */
  ack: Record<string, unknown> | undefined;
  /**
   * Why `tasks/cancel` failed, when it did (a typed error, with the task id redacted): the server's refusal, or the
   * last transient fault when the retries were still going as the handle ended.
   */
  error: unknown;
  /** How the handle ended: the server's final word, or an unconfirmed cancellation after `cancelGraceMs`. */
  outcome: TaskOutcome<T>;
}

/** One `tasks/get` answer, as `handle.describe()` returns it. */
export interface TaskDescription {
  taskId: string;
  status: TaskStatus;
  statusMessage: string | undefined;
  lastUpdatedAt: string;
  pollIntervalMs: number | undefined;
  ttlMs: number | null | undefined;
  /** The whole snapshot, for fields not listed above. */
  snapshot: DetailedTask;
}

/** Internal: what the handle asks of whoever drives the task. */
export interface TaskController {
  /** Resolves once the handle has ended (at most the cancel grace period after the first call). */
  cancel(reason?: unknown): Promise<CancelResult>;
  /** Stops observing; the controller ends the handle (later, if the task id is still on its way). */
  detach(): void;
  respond(key: string, response: InputResponse): Promise<void>;
  describe(): Promise<DetailedTask>;
  /** The task's ref as of now; undefined until the task id is known. */
  ref(): TaskRef | undefined;
}

/** A snapshot in one of the statuses that end a task. */
export type TerminalTask = CompletedTask | FailedTask | CancelledTask;

/**
 * Internal: maps a terminal snapshot to the handle's outcome. The client passes one that validates the result
 * against the call's schema; it may throw, and what it throws ends the handle with kind `error`.
 */
export type OutcomeMapper<T> = (snapshot: TerminalTask) => TaskOutcome<T>;

/**
 * Internal: how the driver of a task feeds its handle. Every method is safe to call after the handle has
 * ended: it then does nothing (and returns false where it returns anything).
 */
export interface TaskSink<T = CallToolResult> {
  /** Whether the handle has ended. */
  readonly isSettled: boolean;
  /** How the handle ended, once it has. */
  readonly outcome: TaskOutcome<T> | undefined;
  /** Resolves with the outcome when the handle ends (created on first read; never rejects). */
  readonly settled: Promise<TaskOutcome<T>>;
  /** The newest accepted server snapshot, including ones that changed nothing visible (fresher TTL, interval). */
  readonly snapshot: DetailedTask | undefined;
  /**
   * Records the task id once it is known: fires `task`, resolves `handle.created`. Returns false when ignored
   * (the handle has ended, or it already has another id).
   */
  setTaskId(taskId: string): boolean;
  /**
   * Calls `listener` once, in a later microtask, with the task id when it is known, or with undefined when the
   * handle ends without one (an immediate result, or an ending before the server answered).
   */
  onTaskId(listener: (taskId: string | undefined) => void): void;
  /**
   * Offers a server snapshot (from a poll, a notification or a `working` creation seed). Returns true when it
   * produced an update. A terminal snapshot produces the terminal update, then ends the handle with
   * `toOutcome(snapshot)`. A snapshot for another task id is ignored. `input` says which input keys the client
   * answered, which orders snapshots with equal timestamps (see `TaskState`).
   */
  accept(snapshot: DetailedTask, toOutcome?: OutcomeMapper<T>, input?: AnsweredInput): boolean;
  /** The server answered at once: one terminal `completed` update, then the handle ends with the result. */
  completeImmediately(result: T): boolean;
  /**
   * Ends the handle (first call wins; later calls return false). Iterators finish after what they hold. A
   * `completed` outcome that did not come through `accept` also yields its terminal update first.
   */
  settle(outcome: TaskOutcome<T>): boolean;
  emitInput(event: InputRequestEvent): void;
  emitInputUnanswered(event: InputRequestEvent & { reason: string; action: UnansweredInputAction }): void;
  emitRetry(event: RetryEvent): void;
  /**
   * Installs the handle's one internal watcher (telemetry): it hears every event before the listeners, without
   * the event emitter a listener costs. Replaces any earlier watcher.
   */
  watch(watcher: TaskWatcher<T>): void;
}

/** An internal observer of one handle: one method per event, called as listeners are (see {@link TaskSink.watch}). */
export type TaskWatcher<T = CallToolResult> = TaskHandleEvents<T>;
