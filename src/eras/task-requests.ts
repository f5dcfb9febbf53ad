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
import type { ReplyChannel, ReplyTarget } from "../session/types.js";

export class TaskRequests {
  constructor(
    protected readonly channel: ReplyChannel,
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
    return snapshotOf(taskId, await this.channel.request(Method.tasksGet, { taskId }), this.warn);
  }

  /** What a run sends its scheduled polls with: made once per run, it sends `get`'s request again and again. */
  pollerFor(taskId: string, target: PollTarget): Poller {
    return new TaskPoll(this.channel, taskId, target, this.warn);
  }

  /**
   * `tasks/cancel`, retrying transient faults until `signal` aborts or the retries run out. Resolves with the
   * server's acknowledgement. `onRetry` hears of each retry before its wait. `retryUntil`, when given, stops the
   * retries instead of `signal` (which then aborts only the request on the wire): an attempt already sent is
   * still answered.
   */
  async cancel(
    taskId: string,
    signal: AbortSignal | undefined,
    onRetry?: (attempt: number, error: unknown) => void,
    retryUntil: AbortSignal | undefined = signal,
  ): Promise<Record<string, unknown>> {
    // The last answer that came: one to a retry sent before `retryUntil` fired is kept (the retry loop drops it).
    let answered: Record<string, unknown> | undefined;
    const send = async () =>
      (answered = await this.channel.request(
        Method.tasksCancel,
        { taskId },
        signal ? { signal } : undefined,
      ));
    try {
      await send();
    } catch (error) {
      if (!isTransientError(error)) throw error;
      try {
        await retryAfterFault(send, error, {
          timing: this.retry,
          ...(retryUntil !== undefined && { signal: retryUntil }),
          onRetry: ({ attempt, error: fault }) => onRetry?.(attempt, fault),
        });
      } catch (fault) {
        if (answered === undefined) throw fault;
      }
    }
    return parseAck(Method.tasksCancel, answered as Record<string, unknown>);
  }
}

/** Hears how each scheduled poll of one task ended: a snapshot validated as `get` validates it, or the fault. */
export interface PollTarget {
  polled(snapshot: DetailedTask): void;
  pollFailed(error: unknown): void;
}

/** Sends one task's scheduled `tasks/get`, each time it is asked to. */
export interface Poller {
  poll(): void;
}

/**
 * The poll path's request (decision 5: a poll allocates nothing of ours): the same `tasks/get` as `get`, with
 * no promise, no closure and no params object per poll. It is its own reply target, made once per run, so a
 * poll allocates only the request itself.
 */
class TaskPoll implements Poller, ReplyTarget {
  private readonly params: { taskId: string };

  constructor(
    private readonly channel: ReplyChannel,
    private readonly taskId: string,
    private readonly target: PollTarget,
    private readonly warn: (message: string) => void,
  ) {
    this.params = { taskId };
  }

  poll(): void {
    this.channel.requestFor(Method.tasksGet, this.params, undefined, this);
  }

  answered(raw: Record<string, unknown>): void {
    let snapshot: DetailedTask;
    try {
      snapshot = snapshotOf(this.taskId, raw, this.warn);
    } catch (error) {
      this.target.pollFailed(error);
      return;
    }
    this.target.polled(snapshot);
  }

  failed(error: unknown): void {
    this.target.pollFailed(error);
  }
}

/**
 * A poller over `get`, for requests whose `get` is more than one `tasks/get` (2025-11-25: a terminal task's
 * payload comes from `tasks/result`) or none at all (a server without tasks).
 */
export function pollerOverGet(requests: TaskRequests, taskId: string, target: PollTarget): Poller {
  const polled = (snapshot: DetailedTask) => target.polled(snapshot);
  const failed = (error: unknown) => target.pollFailed(error);
  return { poll: () => void requests.get(taskId).then(polled, failed) };
}

/** A `tasks/get` answer, validated; it must be about the task asked for. */
function snapshotOf(
  taskId: string,
  raw: Record<string, unknown>,
  warn: (message: string) => void,
): DetailedTask {
  const snapshot = parseGetTaskResult(raw, warn);
  if (snapshot.taskId !== taskId) {
    throw new ProtocolError("answered with another task's state", Method.tasksGet, raw);
  }
  return snapshot;
}

/* ---- Servers without task support: the entry points fail at once with `UnsupportedError` (naming what is
 * missing) instead of asking a server that cannot answer and retrying its errors. ---------------------------- */

/**
 * A 2026 server whose discover result lacks the extension: the entry points refuse, but a task the server
 * creates anyway (every 2026 call declares the extension) is still followed, as it always was.
 */
export class RefusingTaskRequests extends TaskRequests {
  constructor(
    channel: ReplyChannel,
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

  override pollerFor(taskId: string, target: PollTarget): Poller {
    return pollerOverGet(this, taskId, target);
  }

  override cancel(): Promise<Record<string, unknown>> {
    return Promise.reject(this.unsupported("tasks/cancel"));
  }
}
