/**
 * The `tasks/*` of a server without any tasks support (a 2026 server without the extension, a 2025 server
 * without `capabilities.tasks`): every request is refused at once with `UnsupportedError`, instead of asking a
 * server that cannot answer and retrying its errors.
 */
import type { DetailedTask } from "../schema/index.js";
import { UnsupportedError } from "../protocol/era-errors.js";
import { TaskRequests } from "./task-requests.js";

export class UnsupportedTaskRequests extends TaskRequests {
  /** What the server would have to offer, e.g. "tasks (capabilities.tasks)". */
  missing = "tasks";

  override unsupported(operation: string): UnsupportedError {
    return new UnsupportedError(operation, this.missing);
  }

  override get(_taskId: string): Promise<DetailedTask> {
    return Promise.reject(this.unsupported("tasks/get"));
  }

  override cancel(): Promise<Record<string, unknown>> {
    return Promise.reject(this.unsupported("tasks/cancel"));
  }
}
