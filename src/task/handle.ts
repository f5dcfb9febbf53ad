/**
 * `TaskHandle`: what `client.callTool` returns, synchronously, whether the server answers at once or runs the
 * call as a task, so agent code has one path (DESIGN decision 4). Await it for the tool result, iterate it for
 * status updates, listen to its events, or ask for its `outcome()`.
 */
import type { EventEmitter } from "eventemitter3";
import type { CallToolResult, DetailedTask, InputResponse, TaskStatus } from "../schema/index.js";
import { McpTasksError } from "../protocol/errors.js";
import { TaskCore } from "./core.js";
import type {
  CancelResult,
  TaskController,
  TaskDescription,
  TaskHandleEvents,
  TaskOutcome,
  TaskSink,
  TaskUpdate,
} from "./types.js";
import type { TaskRef } from "./ref.js";

export type { TaskSink } from "./types.js";

type Listener<T, E extends keyof TaskHandleEvents<T>> = EventEmitter.EventListener<TaskHandleEvents<T>, E>;

/**
 * One tool call, immediate or running as a task.
 *
 * ```ts
 * const handle = client.callTool("slow_compute", { seconds: 30 }, { signal });
 * for await (const update of handle) console.log(update.status, update.statusMessage);
 * const result = await handle; // CallToolResult
 * ```
 *
 * `T` is what awaiting it gives (a `ToolResult` of the tool's output type on a client with a `Tools` type) and
 * `Name` the tool's name where the type knows it, which its `ref` keeps.
 */
export class TaskHandle<T = CallToolResult, Name extends string = string>
  implements PromiseLike<T>, AsyncIterable<TaskUpdate<T>>, AsyncDisposable
{
  /** Handles come from `client.callTool` (drivers create them with `createTask`), never from `new`. */
  private constructor(private readonly core: TaskCore<T>) {}

  /** @internal The handle over `core`: what `createTask` makes (the constructor is private). */
  static over<T>(core: TaskCore<T>): TaskHandle<T> {
    return new TaskHandle<T>(core);
  }

  /**
   * The task id once the server created a task (with a store, once its ref is stored, or once the handle ended
   * without it); undefined before that and when there is none.
   */
  get taskId(): string | undefined {
    return this.core.taskId;
  }

  /**
   * Resolves with the task id as soon as the server created the task (with a store, once its ref is stored; a
   * handle that ends first, say its ref could not be stored, still resolves with the id), or with undefined when
   * there will be none (the server answered at once, or the handle ended before the server answered). Never
   * rejects. The handle's `task` event, unlike this, fires only for a task the handle reports.
   */
  get created(): Promise<string | undefined> {
    return this.core.created();
  }

  /** The status of the latest update; undefined until the first one. */
  get status(): TaskStatus | undefined {
    return this.core.current?.status;
  }

  /** Whether the handle has ended (see `outcome()` for how). */
  get isSettled(): boolean {
    return this.core.isSettled;
  }

  /**
   * Resolves with the tool result when the call completed, including a tool result with `isError: true` (the
   * tool reported an error; the task itself completed). Rejects with `TaskFailedError` (carrying the JSON-RPC
   * `code`, `rpcMessage` and `data`) when the task failed, `TaskCancelledError` when it was cancelled, and the
   * outcome's error for every other ending (detached, closed, not found, expired, deadline, protocol error).
   */
  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.core.result().then(onfulfilled, onrejected);
  }

  /** As `Promise.catch` on the result: `then` with only a rejection handler. */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.core.result().catch(onrejected);
  }

  /** As `Promise.finally` on the result: runs once the handle has ended, however it ended. */
  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.core.result().finally(onfinally);
  }

  /** How the handle ended. Never rejects: every ending, failures included, is a value. */
  outcome(): Promise<TaskOutcome<T>> {
    return this.core.outcomeOf();
  }

  /**
   * Asks the server to cancel the task (`tasks/cancel`, sent once) and resolves with what happened: the
   * server's acknowledgement and how the handle ended. Cancellation is cooperative, so the outcome may still be
   * `completed`; if the server says nothing final within `cancelGraceMs` (counted from this call, whatever the
   * cancel request does), the outcome is an unconfirmed cancellation. An acknowledgement still on its way when the
   * server's final word arrives is waited for until that same grace ends. Before the task id is known, the cancel
   * goes out the moment the call's answer brings it. After the handle ended without the server's last word
   * (detached, deadline, unconfirmed cancel, error), this still sends `tasks/cancel` when the task id is known.
   * Never rejects: a refused cancel is in `error`.
   */
  cancel(reason?: unknown): Promise<CancelResult<T>> {
    return this.core.controller.cancel(reason) as unknown as Promise<CancelResult<T>>;
  }

  /**
   * Stops observing the task without cancelling it: polling stops, iterators finish after what they hold, and
   * the handle ends with outcome `detached` (awaiting it rejects with `TaskEndedError` of kind `detached`). The task keeps
   * running on the server; keep `await handle.ref` to resume it later. Called before the server answered the
   * call, the handle ends when the answer arrives, so the outcome still carries the task id.
   */
  detach(): void {
    if (!this.core.isSettled) this.core.controller.detach();
  }

  /**
   * The task's reference once the server created it: plain JSON naming the task on its server, for
   * `client.task(ref)` and `client.cancel(ref)`, also in another process. Resolves with undefined when there is
   * no task (the server answered at once, or the handle ended before the answer). Never rejects.
   */
  get ref(): Promise<TaskRef<Name> | undefined> {
    return this.core.created().then(() => this.core.controller.ref() as TaskRef<Name> | undefined);
  }

  /**
   * Asks the server for the task's state now (one `tasks/get`, outside the polling cadence) and returns it. The
   * answer also updates the handle. Rejects when there is no task id (yet) or the request fails.
   */
  async describe(): Promise<TaskDescription> {
    const snapshot = await this.core.controller.describe();
    return {
      taskId: snapshot.taskId,
      status: snapshot.status,
      statusMessage: snapshot.statusMessage,
      lastUpdatedAt: snapshot.lastUpdatedAt,
      pollIntervalMs: snapshot.pollIntervalMs,
      ttlMs: snapshot.ttlMs,
      snapshot,
    };
  }

  /** The latest task state the handle knows (from a poll, a notification or `describe()`), synchronously. */
  get snapshot(): DetailedTask | undefined {
    return this.core.snapshot;
  }

  /** Answers the server's input request `key` out of band (instead of, or ahead of, an input handler). */
  respond(key: string, response: InputResponse): Promise<void> {
    if (typeof key !== "string" || key.length === 0) {
      return Promise.reject(new McpTasksError("respond: the input key must be a non-empty string"));
    }
    if (this.core.isSettled) {
      return Promise.reject(
        new McpTasksError(`respond: the task has ended; input "${key}" can no longer be answered`),
      );
    }
    return this.core.controller.respond(key, response);
  }

  /**
   * Adds an event listener. Events fire in order: `task`, then `update`s (with `input`/`retry` among them),
   * then `settled`. Listeners added after the end never fire; use `outcome()`.
   */
  on<E extends keyof TaskHandleEvents<T>>(event: E, listener: Listener<T, E>): this {
    this.core.events()?.on(event, listener);
    return this;
  }

  /** Adds a listener that fires at most once. Listeners added after the end never fire; use `outcome()`. */
  once<E extends keyof TaskHandleEvents<T>>(event: E, listener: Listener<T, E>): this {
    this.core.events()?.once(event, listener);
    return this;
  }

  /** Removes a listener, or every listener of `event` when none is given. */
  off<E extends keyof TaskHandleEvents<T>>(event: E, listener?: Listener<T, E>): this {
    this.core.existingEvents()?.off(event, listener);
    return this;
  }

  /**
   * Status updates, each consumer on its own: every call gets a separate iterator that starts with the current
   * state and ends after the terminal update, which no consumer misses. A consumer that reads slowly gets the
   * latest state of each status rather than every intermediate message. When the handle ends without a
   * terminal status (detached, client closed, deadline, not found), iterators finish after what they hold;
   * `outcome()` says why. Started after the end, an iterator yields the terminal update, if any, and finishes.
   * Leaving the loop early releases the iterator.
   */
  [Symbol.asyncIterator](): AsyncIterator<TaskUpdate<T>, undefined> {
    return this.core.openCursor();
  }

  /**
   * Leaving an `await using` scope cancels a task that has not ended: the scope owns the work, and work nobody
   * waits for any more must not keep running, orphaned, on the server. A finished or detached handle is left
   * alone. Resolves when the handle has ended (at most `cancelGraceMs` after the scope ends).
   */
  async [Symbol.asyncDispose](): Promise<void> {
    if (!this.core.isSettled) await this.cancel("disposed: the await using scope of the handle ended");
  }

  /** `"TaskHandle"`, so logs print `[object TaskHandle]` rather than a promise. */
  get [Symbol.toStringTag](): string {
    return "TaskHandle";
  }
}

/** Creates a handle and the sink its driver feeds. The controller is what the handle asks to cancel, detach and respond. */
export function createTask<T = CallToolResult>(
  controller: TaskController,
): { handle: TaskHandle<T>; sink: TaskSink<T> } {
  const core = new TaskCore<T>(controller);
  return { handle: TaskHandle.over(core), sink: core };
}
