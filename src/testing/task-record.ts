/**
 * The server-side state of one task and its wire form. The record keeps what the script needs
 * (position, outstanding keys, timers); {@link detailedTaskOf} is the one place that turns it into the
 * `DetailedTask` that `tasks/get` returns and `notifications/tasks` pushes.
 */
import type { DetailedTask, InputRequests, InputResponse } from "../schema/index.js";
import type { TimerHandle } from "./clock.js";
import type { Step } from "./steps.js";
import type { Advance, ToolDefinition } from "./tool.js";

/** Statuses after which a task never changes. */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

/** The fields a status carries besides the base task fields. `raw` steps may put anything here. */
export type StatusPayload = Record<string, unknown> & { inputRequests?: InputRequests };

export interface TaskRecord {
  readonly taskId: string;
  readonly tool: ToolDefinition;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Every answer received, from MRTR rounds and `tasks/update`. */
  readonly responses: Record<string, InputResponse>;
  readonly steps: readonly Step[];
  readonly advance: Advance;
  readonly createdAtMs: number;

  /** Wire state. `status` is a string because `raw` steps may send any value. */
  status: string;
  statusMessage: string | undefined;
  lastUpdatedAtMs: number;
  ttlMs: number | null;
  pollIntervalMs: number | undefined;
  payload: StatusPayload;

  /** Script position. */
  nextStep: number;
  idleTicksLeft: number;
  stalled: boolean;
  /** Input keys waiting for an answer, and every key the task has issued. */
  readonly outstanding: Set<string>;
  readonly issuedKeys: Set<string>;
  /** Errors the next polls answer with, consumed one per poll. */
  readonly armedPollErrors: { code: number; message: string }[];

  cancelRequested: boolean;
  polls: number;
  timer: TimerHandle | undefined;
}

export function isTerminal(record: TaskRecord): boolean {
  return TERMINAL_STATUSES.has(record.status);
}

/** The record as a `DetailedTask` (without `resultType`, which the `tasks/get` encoder adds). */
export function detailedTaskOf(record: TaskRecord): DetailedTask {
  const task: Record<string, unknown> = {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined && { statusMessage: record.statusMessage }),
    createdAt: new Date(record.createdAtMs).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAtMs).toISOString(),
    ttlMs: record.ttlMs,
    ...(record.pollIntervalMs !== undefined && { pollIntervalMs: record.pollIntervalMs }),
    ...record.payload,
  };
  return task as unknown as DetailedTask;
}

/** The fields of a `CreateTaskResult`: the task without any status payload. */
export function createTaskResultOf(record: TaskRecord): Record<string, unknown> {
  const detailed = detailedTaskOf(record) as unknown as Record<string, unknown>;
  const { result: _result, error: _error, inputRequests: _inputRequests, ...task } = detailed;
  return { resultType: "task", ...task };
}
