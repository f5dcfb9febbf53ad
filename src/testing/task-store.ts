/**
 * Where tasks live. A task is stored before its `CreateTaskResult` is sent, and it is gone once
 * `createdAt + ttlMs` has passed: the next lookup drops it and answers "expired" (expiry is lazy, so
 * the store needs no timer). Tests read the store through {@link TaskStoreView}.
 */
import { ProtocolError } from "./load-server-sdk.js";
import type { DetailedTask, InputResponse } from "../schema/index.js";
import { ErrorCode } from "./constants.js";
import type { TaskRecord } from "./task-record.js";
import { detailedTaskOf } from "./task-record.js";

/** Everything a test may want to know about one task. */
export interface TaskInspection {
  /** What `tasks/get` would return now (without advancing the script). */
  readonly task: DetailedTask;
  readonly toolName: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Answers received so far, keyed by input key. */
  readonly responses: Readonly<Record<string, InputResponse>>;
  /** How many `tasks/get` requests reached the task. */
  readonly polls: number;
  /** Whether `tasks/cancel` arrived, honoured or not. */
  readonly cancelRequested: boolean;
  /** How many script steps have been applied. */
  readonly stepsApplied: number;
}

/** Read access to the server's tasks for tests. Expired tasks are not listed. */
export interface TaskStoreView {
  /** Number of live tasks. */
  readonly size: number;
  /** Ids of live tasks, oldest first. */
  ids(): string[];
  /** The task as `tasks/get` would show it, or `undefined` when unknown or expired. */
  get(taskId: string): DetailedTask | undefined;
  inspect(taskId: string): TaskInspection | undefined;
}

export class TaskStore implements TaskStoreView {
  private readonly records = new Map<string, TaskRecord>();
  private readonly expired = new Set<string>();

  constructor(
    private readonly now: () => number,
    private readonly onDrop: (record: TaskRecord) => void,
  ) {}

  add(record: TaskRecord): void {
    this.records.set(record.taskId, record);
  }

  /** The live record, or `undefined`; an expired record is dropped on the way. */
  find(taskId: string): TaskRecord | undefined {
    const record = this.records.get(taskId);
    if (record === undefined) return undefined;
    if (record.ttlMs !== null && this.now() >= record.createdAtMs + record.ttlMs) {
      this.drop(record);
      this.expired.add(taskId);
      return undefined;
    }
    return record;
  }

  /**
   * The live record for a `tasks/*` request.
   * @throws {ProtocolError} `-32602` for an unknown or expired task.
   */
  lookup(taskId: string): TaskRecord {
    const record = this.find(taskId);
    if (record !== undefined) return record;
    const reason = this.expired.has(taskId) ? "Task has expired" : "Task not found";
    throw new ProtocolError(ErrorCode.invalidParams, `Failed to retrieve task: ${reason}`);
  }

  /** Drop every task (server shutdown). */
  clear(): void {
    for (const record of [...this.records.values()]) this.drop(record);
  }

  get size(): number {
    return this.ids().length;
  }

  ids(): string[] {
    return [...this.records.keys()].filter((taskId) => this.find(taskId) !== undefined);
  }

  get(taskId: string): DetailedTask | undefined {
    const record = this.find(taskId);
    return record === undefined ? undefined : detailedTaskOf(record);
  }

  inspect(taskId: string): TaskInspection | undefined {
    const record = this.find(taskId);
    if (record === undefined) return undefined;
    return {
      task: detailedTaskOf(record),
      toolName: record.tool.name,
      arguments: record.arguments,
      responses: { ...record.responses },
      polls: record.polls,
      cancelRequested: record.cancelRequested,
      stepsApplied: record.nextStep,
    };
  }

  private drop(record: TaskRecord): void {
    this.records.delete(record.taskId);
    this.onDrop(record);
  }
}
