/**
 * The 2025-11-25 wire form of the engine's tasks. One task record serves both generations; this file is
 * where it becomes a 2025 `Task` (`ttl`, `pollInterval`, a tool error counted as `failed`) and where a
 * terminal task becomes the answer of `tasks/result`: what the tool call itself would have returned.
 */
import { ProtocolError } from "../load-server-sdk.js";
import { ErrorCode } from "../constants.js";
import type { TaskRecord } from "../task-record.js";
import { isTerminal } from "../task-record.js";
import type { TaskSupport } from "../tool.js";
import { TOOL_DEFAULTS } from "../tool.js";

export const LEGACY_ERA = "2025-11-25";
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";

/** A task as the 2025-11-25 generation shows it in `tasks/get`, `tasks/list` and status notifications. */
export interface LegacyTask {
  taskId: string;
  status: string;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
}

/** `execution.taskSupport` of a tool in `tools/list`. */
export function legacyTaskSupport(task: TaskSupport | undefined): "required" | "optional" | "forbidden" {
  const support = task ?? TOOL_DEFAULTS.task;
  return support === "never" ? "forbidden" : support;
}

function isToolError(record: TaskRecord): boolean {
  const result = record.payload["result"] as { isError?: unknown } | undefined;
  return record.status === "completed" && result?.isError === true;
}

/** The 2025 status: a tool result with `isError: true` ends the task `failed`, as the 2025 spec asks. */
export function legacyStatusOf(record: TaskRecord): string {
  return isToolError(record) ? "failed" : record.status;
}

export function legacyTaskOf(record: TaskRecord): LegacyTask {
  return {
    taskId: record.taskId,
    status: legacyStatusOf(record),
    ...(record.statusMessage !== undefined && { statusMessage: record.statusMessage }),
    createdAt: new Date(record.createdAtMs).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAtMs).toISOString(),
    ttl: record.ttlMs,
    ...(record.pollIntervalMs !== undefined && { pollInterval: record.pollIntervalMs }),
  };
}

/** `_meta` that ties a message to its task. */
export function relatedTaskMeta(taskId: string): Record<string, unknown> {
  return { [RELATED_TASK_META_KEY]: { taskId } };
}

/**
 * The answer of `tasks/result` for a terminal task: the tool result (with the related-task `_meta`), or
 * the JSON-RPC error the call ended with.
 * @throws {ProtocolError} the task's error, or `-32603` for a cancelled task, which has no result.
 */
export function legacyResultOf(record: TaskRecord): Record<string, unknown> {
  if (!isTerminal(record)) throw new Error(`task ${record.taskId} is not terminal`);
  const error = record.payload["error"] as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  const result = record.payload["result"] as Record<string, unknown> | undefined;
  if (record.status === "failed" && error !== undefined) {
    const code = typeof error.code === "number" ? error.code : ErrorCode.internalError;
    throw new ProtocolError(code, String(error.message ?? "Task failed"), error.data);
  }
  if (result === undefined) {
    throw new ProtocolError(
      ErrorCode.internalError,
      `Task ${record.taskId} ended ${record.status} without a result`,
    );
  }
  const meta = (result["_meta"] as Record<string, unknown> | undefined) ?? {};
  return { ...result, _meta: { ...meta, ...relatedTaskMeta(record.taskId) } };
}
