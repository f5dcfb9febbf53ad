/**
 * `TaskHandle`: what `client.callTool` returns, synchronously, whether the server answers at once or runs the
 * call as a task, so agent code has one path (DESIGN decision 4). Await it for the tool result, iterate it for
 * status updates, listen to its events, or ask for its `outcome()`.
 */
import type { EventEmitter } from "eventemitter3";
import type { CallToolResult, InputResponse, TaskStatus } from "../schema/index.js";
import { McpTasksError, TaskDetachedError } from "../protocol/errors.js";
import { TaskCore } from "./core.js";
import type { TaskController, TaskHandleEvents, TaskOutcome, TaskSink, TaskUpdate } from "./types.js";

export type { TaskSink } from "./types.js";

type Listener<T, E extends keyof TaskHandleEvents<T>> = EventEmitter.EventListener<TaskHandleEvents<T>, E>;

/**
 * Whether the server has said its last word, so nothing is left running to cancel. An unconfirmed cancellation
 * (the client stopped waiting) and endings like detach, close or a deadline leave the task possibly running.
 */
function serverIsDone(outcome: TaskOutcome<unknown>): boolean {
  switch (outcome.kind) {
    case "completed":
    case "failed":
    case "not_found":
      return true;
    case "cancelled":
      return outcome.error.confirmed;
    default:
      return false;
  }
}

/**
 * One tool call, immediate or running as a task.
 *
 * ```ts
 * const handle = client.callTool("slow_compute", { seconds: 30 }, { signal });
 * for await (const update of handle) console.log(update.status, update.statusMessage);
 * const result = await handle; // CallToolResult
 * ```
 */
export class TaskHandle<T = CallToolResult>
  implements PromiseLike<T>, AsyncIterable<TaskUpdate<T>>, AsyncDisposable
{
  /** @internal Handles come from `client.callTool`; drivers create them with `createTask`. */
  constructor(private readonly core: TaskCore<T>) {}

  /** The task id once the server created a task; undefined before that and for an immediate result. */
  get taskId(): string | undefined {
    return this.core.taskId;
  }

  /**
   * Resolves with the task id as soon as the server created the task, or with undefined when there will be
   * none (the server answered at once, or the handle ended before the server answered). Never rejects.
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

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.core.result().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.core.result().finally(onfinally);
  }

  /** How the handle ended. Never rejects: every ending, failures included, is a value. */
  outcome(): Promise<TaskOutcome<T>> {
    return this.core.outcomeOf();
  }

  /**
   * Asks the server to cancel the task (`tasks/cancel`). Cancellation is cooperative: the handle then reports
   * what the server finally said, which may still be `completed`. Resolves once the request was made; does
   * nothing when the server has already said its last word. After the handle ended without that word
   * (detached, closed, deadline, unconfirmed cancel) the request still goes to the client, which decides
   * whether it can send it.
   */
  cancel(reason?: unknown): Promise<void> {
    const outcome = this.core.outcome;
    if (outcome !== undefined && serverIsDone(outcome)) return Promise.resolve();
    return this.core.controller.cancel(reason);
  }

  /**
   * Stops observing the task without cancelling it: polling stops, iterators finish after what they hold, and
   * the handle ends with outcome `detached` (awaiting it rejects with `TaskDetachedError`). The task keeps
   * running on the server; `taskId` lets you resume it later.
   */
  detach(): void {
    const core = this.core;
    if (core.isSettled) return;
    if (core.controller.detach() === "deferred") return;
    core.settle({ kind: "detached", taskId: core.taskId, error: new TaskDetachedError(core.taskId) });
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
   * alone. Resolves once the cancel was requested, not when the server confirms it.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    if (!this.core.isSettled) await this.cancel("disposed: the await using scope of the handle ended");
  }

  get [Symbol.toStringTag](): string {
    return "TaskHandle";
  }
}

/** Creates a handle and the sink its driver feeds. The controller is what the handle asks to cancel, detach and respond. */
export function createTask<T = CallToolResult>(
  controller: TaskController,
): { handle: TaskHandle<T>; sink: TaskSink<T> } {
  const core = new TaskCore<T>(controller);
  return { handle: new TaskHandle(core), sink: core };
}
