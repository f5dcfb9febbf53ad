/**
 * The `tasks/*` of a server without tasks support: `client.task()`, `client.cancel()` and `handle.describe()`
 * fail at once with `UnsupportedError` (naming what is missing), instead of asking a server that cannot answer
 * and retrying its errors.
 */
import type { DetailedTask } from "../schema/index.js";
import { UnsupportedError } from "../protocol/era-errors.js";
import type { RetryTiming } from "../scheduler/types.js";
import type { RpcChannel } from "../session/types.js";
import { TaskRequests } from "./task-requests.js";

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
