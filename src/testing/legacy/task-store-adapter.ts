/**
 * The engine's tasks behind the v1 SDK's `TaskStore` interface. With it the SDK serves `tasks/list`
 * (paginated) and `tasks/cancel` itself and knows the server is task-capable; task creation and results go
 * through the engine directly, so the methods for them are not used.
 */
import type { TaskStore as SdkTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import type { Task } from "@modelcontextprotocol/sdk/types.js";
import type { TaskEngine } from "../engine.js";
import type { LegacyTask } from "./wire.js";
import { legacyTaskOf } from "./wire.js";

function unused(method: string): never {
  throw new Error(`${method} is served by the engine, not through the SDK's task store`);
}

export class EngineTaskStore implements SdkTaskStore {
  constructor(
    private readonly engine: TaskEngine,
    private readonly pageSize: number,
  ) {}

  getTask(taskId: string): Promise<Task | null> {
    const record = this.engine.store.find(taskId);
    return Promise.resolve(record === undefined ? null : (legacyTaskOf(record) as LegacyTask as Task));
  }

  /** Only `cancelled` reaches here (from `tasks/cancel`); the tool's cancel policy decides what happens. */
  updateTaskStatus(taskId: string, status: Task["status"]): Promise<void> {
    if (status !== "cancelled") unused(`updateTaskStatus(${status})`);
    this.engine.cancelTask(taskId);
    return Promise.resolve();
  }

  /** Oldest first; the cursor is the id of the last task of the previous page. */
  listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const ids = this.engine.store.ids();
    let start = 0;
    if (cursor !== undefined) {
      const at = ids.indexOf(cursor);
      if (at < 0) return Promise.reject(new Error(`Invalid cursor: ${cursor}`));
      start = at + 1;
    }
    const page = ids.slice(start, start + this.pageSize);
    const tasks = page.flatMap((taskId) => {
      const record = this.engine.store.find(taskId);
      return record === undefined ? [] : [legacyTaskOf(record) as LegacyTask as Task];
    });
    const more = start + this.pageSize < ids.length;
    return Promise.resolve({ tasks, ...(more && { nextCursor: page[page.length - 1] }) });
  }

  createTask(): Promise<Task> {
    return unused("createTask");
  }

  storeTaskResult(): Promise<void> {
    return unused("storeTaskResult");
  }

  getTaskResult(): Promise<never> {
    return unused("getTaskResult");
  }
}
