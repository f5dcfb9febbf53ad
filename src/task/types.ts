/**
 * What a task handle shows its users: status updates (iterator and events) and the final outcome.
 */
import type {
  CallToolResult,
  DetailedTask,
  InputRequest,
  InputRequests,
  InputResponse,
  TaskStatus,
} from "../schema/index.js";
import type {
  ClientClosedError,
  DeadlineExceededError,
  McpTasksError,
  TaskCancelledError,
  TaskDetachedError,
  TaskExpiredError,
  TaskFailedError,
  TaskNotFoundError,
} from "../protocol/errors.js";

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
  /** The server's last snapshot of the task, when there is a task. */
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
  | { kind: "not_found"; taskId: string; error: TaskNotFoundError }
  | { kind: "expired"; taskId: string; error: TaskExpiredError }
  | { kind: "deadline_exceeded"; taskId: string | undefined; error: DeadlineExceededError }
  | { kind: "detached"; taskId: string | undefined; error: TaskDetachedError }
  | { kind: "closed"; taskId: string | undefined; error: ClientClosedError }
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

/** Typed events of a task handle (eventemitter3). */
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

/** Internal: what the handle asks of whoever drives the task. */
export interface TaskController {
  cancel(reason?: unknown): Promise<void>;
  detach(): void;
  respond(key: string, response: InputResponse): Promise<void>;
}
