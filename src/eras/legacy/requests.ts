/**
 * `tasks/*` the 2025-11-25 way, behind the same `get` / `cancel` the lifecycle already uses. A 2025 `tasks/get`
 * carries no payload, so once a task is terminal its result (or the JSON-RPC error of the request) is fetched
 * with `tasks/result` and inlined, giving the same `DetailedTask` a 2026 server would have sent. While a task is
 * `input_required`, `tasks/result` is opened once as the side channel the server sends its input requests
 * through (answered by the session's server-request routing); its final answer is kept for the terminal poll.
 */
import type {
  CallToolResult,
  DetailedTask,
  JSONObject,
  JSONRPCErrorObject,
  Task,
} from "../../schema/index.js";
import { ProtocolError, UnsupportedError } from "../../protocol/errors.js";
import {
  LegacyMethod,
  parseLegacyPayload,
  parseLegacyTask,
  parseLegacyTaskPage,
  payloadOfError,
  type LegacyPayload,
} from "./codec.js";
import type { LegacyTaskSupport } from "./capabilities.js";
import type { RetryTiming } from "../../scheduler/types.js";
import type { ReplyChannel, RequestOptions } from "../../session/types.js";
import { TaskRequests, pollerOverGet, type PollTarget, type Poller } from "../task-requests.js";

/** A side channel's end: the payload, or the fault that closed it early (then a fresh `tasks/result` is sent). */
type SideChannelEnd = { payload: LegacyPayload } | { fault: unknown };

/** An open `tasks/result`: how it ends, and how to close it (its HTTP stream with it) when nobody waits any more. */
interface SideChannel {
  end: Promise<SideChannelEnd>;
  abort: AbortController;
}

/** `client.listTasks()` stops after this many pages. */
export const MAX_TASK_PAGES = 100;

export class LegacyTaskRequests extends TaskRequests {
  /** Open `tasks/result` requests, one per task at most; they never reject (see `SideChannelEnd`). */
  private readonly sideChannels = new Map<string, SideChannel>();

  constructor(
    channel: ReplyChannel,
    retry: RetryTiming,
    warn: (message: string) => void,
    private readonly support: LegacyTaskSupport,
  ) {
    super(channel, retry, warn);
  }

  override async get(taskId: string): Promise<DetailedTask> {
    const raw = await this.channel.request(LegacyMethod.tasksGet, { taskId });
    const task = parseLegacyTask(LegacyMethod.tasksGet, raw, this.warn);
    if (task.taskId !== taskId) {
      throw new ProtocolError("answered with another task's state", LegacyMethod.tasksGet, raw);
    }
    switch (task.status) {
      case "input_required":
        this.openSideChannel(taskId);
        // The requests themselves arrive as server requests on the side channel, not in the snapshot.
        return { ...task, status: "input_required", inputRequests: {} };
      case "completed":
      case "failed":
        return withPayload(task, await this.payload(taskId));
      case "cancelled":
        this.closeSideChannel(taskId);
        return task as DetailedTask;
      default:
        return task as DetailedTask;
    }
  }

  override pollerFor(taskId: string, target: PollTarget): Poller {
    return pollerOverGet(this, taskId, target);
  }

  override async cancel(
    taskId: string,
    signal: AbortSignal | undefined,
    onRetry?: (attempt: number, error: unknown) => void,
    retryUntil: AbortSignal | undefined = signal,
  ): Promise<Record<string, unknown>> {
    if (!this.support.cancel)
      throw new UnsupportedError("tasks/cancel", "cancelling tasks (capabilities.tasks.cancel)");
    const ack = await super.cancel(taskId, signal, onRetry, retryUntil);
    parseLegacyTask(LegacyMethod.tasksCancel, ack, this.warn); // a 2025 cancel answers with the task
    return ack;
  }

  /** Every task `tasks/list` reports, page by page (at most `maxPages`). */
  async list(maxPages: number = MAX_TASK_PAGES): Promise<Task[]> {
    if (!this.support.list)
      throw new UnsupportedError("TaskClient.listTasks", "tasks/list (capabilities.tasks.list)");
    const tasks: Task[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const raw = await this.channel.request(LegacyMethod.tasksList, cursor === undefined ? {} : { cursor });
      const { tasks: pageTasks, nextCursor } = parseLegacyTaskPage(raw, this.warn);
      tasks.push(...pageTasks);
      if (nextCursor === undefined) return tasks;
      if (seen.has(nextCursor)) {
        throw new ProtocolError(
          "handed out a cursor it had already given (a paging loop)",
          LegacyMethod.tasksList,
          raw,
        );
      }
      seen.add(nextCursor);
      cursor = nextCursor;
    }
    throw new ProtocolError(`kept paging past ${maxPages} pages`, LegacyMethod.tasksList, undefined);
  }

  /**
   * Lets go of a task's side channel when no handle follows the task any more: the request is aborted, which
   * closes its response stream at once (the server sees the client go, rather than a stream left open until the
   * request's timeout), so a detached or closed handle leaves nothing behind.
   */
  forget(taskId: string | undefined): void {
    if (taskId !== undefined) this.closeSideChannel(taskId);
  }

  /** How many side channels are open (for tests and diagnostics). */
  get openSideChannels(): number {
    return this.sideChannels.size;
  }

  private openSideChannel(taskId: string): void {
    if (this.sideChannels.has(taskId)) return;
    const abort = new AbortController();
    const end = this.fetchPayload(taskId, { signal: abort.signal }).then(
      (payload): SideChannelEnd => ({ payload }),
      (fault: unknown): SideChannelEnd => {
        // Closed early (a timeout, a dropped stream): the next input_required poll may open another.
        if (this.sideChannels.get(taskId)?.end === end) this.sideChannels.delete(taskId);
        return { fault };
      },
    );
    this.sideChannels.set(taskId, { end, abort });
  }

  private closeSideChannel(taskId: string): void {
    this.sideChannels.get(taskId)?.abort.abort();
    this.sideChannels.delete(taskId);
  }

  /** The terminal task's payload: from its side channel when one is open, else from a new `tasks/result`. */
  private async payload(taskId: string): Promise<LegacyPayload> {
    const open = this.sideChannels.get(taskId);
    if (open !== undefined) {
      const end = await open.end;
      this.sideChannels.delete(taskId);
      if ("payload" in end) return end.payload;
    }
    return this.fetchPayload(taskId);
  }

  private async fetchPayload(taskId: string, options?: RequestOptions): Promise<LegacyPayload> {
    try {
      return parseLegacyPayload(await this.channel.request(LegacyMethod.tasksResult, { taskId }, options));
    } catch (error) {
      // Any JSON-RPC error is the request's own error (2025: tasks/result answers exactly what the call would
      // have, -32603 included); only a transport fault is a fault, retried by the poll.
      const payload = payloadOfError(error);
      if (payload === undefined) throw error;
      return payload;
    }
  }
}

/**
 * A terminal 2025 task with its payload inlined, as the 2026 path would present it: a tool result (even one
 * with `isError`, which 2025 servers report as `failed`) completes; a JSON-RPC error fails.
 */
function withPayload(task: Task, payload: LegacyPayload): DetailedTask {
  if ("error" in payload) return { ...task, status: "failed", error: payload.error };
  const result: CallToolResult = payload.result;
  if (task.status === "failed" && result.isError !== true) {
    // Failed, yet the result does not say so: keep the result, report the failure.
    const error: JSONRPCErrorObject = {
      code: -32603,
      message: task.statusMessage ?? "the task failed",
      data: { result },
    };
    return { ...task, status: "failed", error };
  }
  return { ...task, status: "completed", result: result as unknown as JSONObject };
}
