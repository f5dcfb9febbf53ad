/**
 * The `tasks/*` requests a client sends about a task it already knows: one `tasks/get`, and `tasks/cancel`
 * with transient retries. Shared by every handle, by `describe()` and by `client.cancel(ref)`, so a cancel
 * works the same whether or not a handle is alive.
 */
import type { DetailedTask } from "../schema/index.js";
import { Method } from "../protocol/constants.js";
import { McpTasksError, ProtocolError, isTransientError, UnsupportedError } from "../protocol/errors.js";
import { parseAck, parseGetTaskResult } from "../protocol/codec.js";
import { retryAfterFault } from "../scheduler/retry.js";
import type { RetryTiming } from "../scheduler/types.js";
import type { RpcChannel } from "../session/types.js";

export class TaskRequests {
  constructor(
    protected readonly channel: RpcChannel,
    private readonly retry: RetryTiming,
    /** Hears advisory fields read leniently (a string `pollIntervalMs`, …). */
    protected readonly warn: (message: string) => void = () => undefined,
  ) {}

  /** Why `operation` cannot work on this server at all, or undefined when it can (see `UnsupportedTaskRequests`). */
  unsupported(_operation: string): UnsupportedError | undefined {
    return undefined;
  }

  /** `handle.describe()`: one `tasks/get` now, refused at once without task support or before the id is known. */
  async describe(taskId: string | undefined): Promise<DetailedTask> {
    const unsupported = this.unsupported("handle.describe");
    if (unsupported !== undefined) throw unsupported;
    if (taskId === undefined)
      throw new McpTasksError("describe: there is no task id (yet); see `handle.ref`");
    return this.get(taskId);
  }

  /** One `tasks/get`, validated; the answer must be about the task asked for. No retry: the caller decides. */
  async get(taskId: string): Promise<DetailedTask> {
    const raw = await this.channel.request(Method.tasksGet, { taskId });
    const snapshot = parseGetTaskResult(raw, this.warn);
    if (snapshot.taskId !== taskId) {
      throw new ProtocolError("answered with another task's state", Method.tasksGet, raw);
    }
    return snapshot;
  }

  /**
   * `tasks/cancel`, retrying transient faults until `signal` aborts or the retries run out. Resolves with the
   * server's acknowledgement. `onRetry` hears of each retry before its wait.
   */
  async cancel(
    taskId: string,
    signal: AbortSignal | undefined,
    onRetry?: (attempt: number, error: unknown) => void,
  ): Promise<Record<string, unknown>> {
    const send = () => this.channel.request(Method.tasksCancel, { taskId }, signal ? { signal } : undefined);
    let raw: Record<string, unknown>;
    try {
      raw = await send();
    } catch (error) {
      if (!isTransientError(error)) throw error;
      raw = await retryAfterFault(send, error, {
        timing: this.retry,
        ...(signal !== undefined && { signal }),
        onRetry: ({ attempt, error: fault }) => onRetry?.(attempt, fault),
      });
    }
    return parseAck(Method.tasksCancel, raw);
  }
}

/* ---- Servers without task support: the entry points fail at once with `UnsupportedError` (naming what is
 * missing) instead of asking a server that cannot answer and retrying its errors. ---------------------------- */

/**
 * A 2026 server whose discover result lacks the extension: the entry points refuse, but a task the server
 * creates anyway (every 2026 call declares the extension) is still followed, as it always was.
 */
export class RefusingTaskRequests extends TaskRequests {
  constructor(
    channel: RpcChannel,
    retry: RetryTiming,
    warn: (message: string) => void,
    /** What the server would have to offer, e.g. "tasks (capabilities.tasks)". */
    private readonly missing: string,
  ) {
    super(channel, retry, warn);
  }

  override unsupported(operation: string): UnsupportedError {
    return new UnsupportedError(operation, this.missing);
  }
}

/** A 2025 server without `capabilities.tasks`: it has no `tasks/*` at all, so every request is refused too. */
export class UnsupportedTaskRequests extends RefusingTaskRequests {
  override get(_taskId: string): Promise<DetailedTask> {
    return Promise.reject(this.unsupported("tasks/get"));
  }

  override cancel(): Promise<Record<string, unknown>> {
    return Promise.reject(this.unsupported("tasks/cancel"));
  }
}
