/** Builders shared by the task handle tests: server snapshots, a recording controller, and a way to drain. */
import { vi } from "vitest";
import type {
  CallToolResult,
  DetailedTask,
  InputRequests,
  JSONRPCErrorObject,
} from "../../../src/schema/index.js";
import type { TaskCore } from "../../../src/task/core.js";
import { TaskCancelledError, TaskEndedError } from "../../../src/protocol/errors.js";
import { createTask } from "../../../src/task/handle.js";
import type { TaskController, TaskUpdate } from "../../../src/task/types.js";

export const TASK_ID = "task-7f3c2a";
const EPOCH = Date.UTC(2026, 6, 28, 10, 0, 0);

/** An ISO timestamp `seconds` after a fixed moment. */
export function at(seconds: number): string {
  return new Date(EPOCH + seconds * 1000).toISOString();
}

interface SnapshotFields {
  at?: number | string;
  statusMessage?: string;
  taskId?: string;
}

function base(fields: SnapshotFields) {
  const stamp = typeof fields.at === "string" ? fields.at : at(fields.at ?? 0);
  return {
    taskId: fields.taskId ?? TASK_ID,
    createdAt: at(0),
    lastUpdatedAt: stamp,
    ttlMs: 60_000,
    ...(fields.statusMessage === undefined ? {} : { statusMessage: fields.statusMessage }),
  };
}

export const snap = {
  working: (fields: SnapshotFields = {}): DetailedTask => ({ ...base(fields), status: "working" }),
  inputRequired: (inputRequests: InputRequests, fields: SnapshotFields = {}): DetailedTask => ({
    ...base(fields),
    status: "input_required",
    inputRequests,
  }),
  completed: (result: CallToolResult, fields: SnapshotFields = {}): DetailedTask => ({
    ...base(fields),
    status: "completed",
    result: { ...result },
  }),
  failed: (error: JSONRPCErrorObject, fields: SnapshotFields = {}): DetailedTask => ({
    ...base(fields),
    status: "failed",
    error,
  }),
  cancelled: (fields: SnapshotFields = {}): DetailedTask => ({ ...base(fields), status: "cancelled" }),
};

export function toolResult(text: string, isError?: boolean): CallToolResult {
  const content: CallToolResult["content"] = [{ type: "text", text }];
  return isError === undefined ? { content } : { content, isError };
}

/**
 * A recording controller for handle units. Like the real one, it ends the handle itself on `detach()`, and
 * `cancel()` resolves once the handle has ended: here as if the server confirmed the cancellation at once.
 */
export function fakeController(sink: () => TaskCore<CallToolResult>) {
  return {
    cancel: vi.fn<TaskController["cancel"]>(() => {
      const core = sink();
      core.settle({
        kind: "cancelled",
        taskId: core.taskId,
        error: new TaskCancelledError(core.taskId, true),
      });
      return core.settled.then((outcome) => ({ ack: {}, error: undefined, outcome }));
    }),
    detach: vi.fn<TaskController["detach"]>(() => {
      const core = sink();
      core.settle({
        kind: "detached",
        taskId: core.taskId,
        error: new TaskEndedError("detached", core.taskId),
      });
    }),
    respond: vi.fn<TaskController["respond"]>(() => Promise.resolve()),
    describe: vi.fn<TaskController["describe"]>(() => Promise.reject(new Error("no task"))),
    ref: vi.fn<TaskController["ref"]>(() => undefined),
  };
}

/** A handle, its sink (typed as the core behind it, to count iterators) and its recording controller. */
export function newTask() {
  const made: { core?: TaskCore<CallToolResult> } = {};
  const controller = fakeController(() => made.core as TaskCore<CallToolResult>);
  const { handle, sink } = createTask<CallToolResult>(controller);
  made.core = sink as TaskCore<CallToolResult>;
  return { handle, sink: made.core, controller };
}

/** Lets every pending promise callback and one macrotask run (no timers involved). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Collects what a for-await consumer sees, until the iterator finishes. */
export async function collect<T>(iterable: AsyncIterable<TaskUpdate<T>>): Promise<TaskUpdate<T>[]> {
  const seen: TaskUpdate<T>[] = [];
  for await (const update of iterable) seen.push(update);
  return seen;
}
