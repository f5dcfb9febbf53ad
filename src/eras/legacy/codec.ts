/**
 * The 2025-11-25 task shapes, read at the boundary and mapped onto the internal (2026-07-28) ones, so the
 * lifecycle and the handle never learn which generation a task came from. The renames: `ttl` → `ttlMs`,
 * `pollInterval` → `pollIntervalMs`; a `CreateTaskResult` nests its task under `task` and has no `resultType`.
 * Unknown fields are kept. Advisory fields are read leniently (as on 2026 servers); identity and status are
 * strict, and a bad frame becomes a `ProtocolError` naming the method and carrying the frame. A creation answer
 * that cannot be read but has a string task id becomes a `ProtocolError` carrying that id, never dropped.
 */
import type { CallToolResult, CreateTaskResult, JSONRPCErrorObject, Task } from "../../schema/index.js";
import { validators } from "../../schema/validators.js";
import { describeIssues } from "../../protocol/issues.js";
import { ResultKind } from "../../protocol/constants.js";
import { ProtocolError, RpcError, orphanedTask } from "../../protocol/errors.js";
import { normaliseAdvisoryFields, parseCallToolResult, type Warn } from "../../protocol/codec.js";
import { MAX_JSON_DEPTH, nestedDeeperThan, tooDeep } from "../../protocol/depth.js";

export const LegacyMethod = {
  tasksGet: "tasks/get",
  tasksResult: "tasks/result",
  tasksList: "tasks/list",
  tasksCancel: "tasks/cancel",
  statusNotification: "notifications/tasks/status",
} as const;

/** The `_meta` key that ties a 2025-era message to its task. */
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";

/** A 2025 task (flat, as `tasks/get`, `tasks/cancel`, `tasks/list` entries and status notifications carry it) → internal. */
export function parseLegacyTask(method: string, raw: unknown, warn?: Warn): Task {
  const frame = requireObject(method, raw);
  const renamed = renameFields(frame);
  const task = normaliseAdvisoryFields(method, renamed, warn);
  const parsed = validators().taskSchema.safeParse(task);
  if (!parsed.success) {
    throw new ProtocolError(
      `the answer is not a valid 2025-11-25 Task (${describeIssues(parsed.error)})`,
      method,
      raw,
      {
        cause: parsed.error,
      },
    );
  }
  return task as unknown as Task;
}

/** A 2025 `CreateTaskResult` (`{ task: {…} }`) → the internal flat `CreateTaskResult`. */
export function parseLegacyCreateTaskResult(method: string, raw: Record<string, unknown>, warn?: Warn) {
  const nested = raw.task;
  const strayId = taskIdIn(nested);
  if (nestedDeeperThan(raw, MAX_JSON_DEPTH)) {
    throw orphanedTask(`answered with a CreateTaskResult that ${tooDeep()}`, method, undefined, strayId);
  }
  let task: Task;
  try {
    task = parseLegacyTask(method, nested, warn);
  } catch (error) {
    throw orphanedTask(
      `answered with an invalid 2025-11-25 CreateTaskResult (${(error as Error).message})`,
      method,
      raw,
      strayId,
      { cause: error },
    );
  }
  const created: Record<string, unknown> = { ...task, resultType: ResultKind.task };
  if (raw._meta !== undefined) created._meta = raw._meta;
  return created as unknown as CreateTaskResult;
}

/**
 * Whether a `tools/call` answer is a 2025 `CreateTaskResult`: a `task` object and no content of its own (an
 * empty `content`, which some SDK servers add to every tool answer, counts as none).
 */
export function isLegacyCreateTaskResult(raw: Record<string, unknown>): boolean {
  const task = raw.task;
  if (typeof task !== "object" || task === null || Array.isArray(task)) return false;
  const content = raw.content;
  return content === undefined || (Array.isArray(content) && content.length === 0);
}

/**
 * The task a plain `CallToolResult` points at without being asked: the related-task `_meta` entry, or a `task`
 * object beside the content (a placeholder answer). Undefined when the result is just a result.
 */
export function unrequestedTaskIdOf(raw: Record<string, unknown>): string | undefined {
  const meta = raw._meta;
  if (typeof meta === "object" && meta !== null) {
    const related = taskIdIn((meta as Record<string, unknown>)[RELATED_TASK_META_KEY]);
    if (related !== undefined) return related;
  }
  return taskIdIn(raw.task);
}

/** What `tasks/result` gave for a terminal task: the tool's result, or the JSON-RPC error of the request. */
export type LegacyPayload = { result: CallToolResult } | { error: JSONRPCErrorObject };

/** Reads the answer of `tasks/result`: a `CallToolResult` (its related-task `_meta` kept, as sent). */
export function parseLegacyPayload(raw: unknown): LegacyPayload {
  return { result: parseCallToolResult(raw, LegacyMethod.tasksResult) };
}

/** A JSON-RPC error answer of `tasks/result` is the failed request's own error: the payload, not a fault. */
export function payloadOfError(error: unknown): LegacyPayload | undefined {
  if (!(error instanceof RpcError)) return undefined;
  const payload: JSONRPCErrorObject = { code: error.code, message: error.rpcMessage };
  if (error.data !== undefined) payload.data = error.data;
  return { error: payload };
}

/** One page of `tasks/list`. */
export function parseLegacyTaskPage(raw: unknown, warn?: Warn): { tasks: Task[]; nextCursor?: string } {
  const method = LegacyMethod.tasksList;
  const frame = requireObject(method, raw);
  if (!Array.isArray(frame.tasks)) throw new ProtocolError("`tasks` is not an array", method, raw);
  const tasks = frame.tasks.map((entry) => parseLegacyTask(method, entry, warn));
  const next = frame.nextCursor;
  if (next !== undefined && typeof next !== "string") {
    throw new ProtocolError("`nextCursor` is not a string", method, raw);
  }
  return next === undefined || next === "" ? { tasks } : { tasks, nextCursor: next };
}

/* ---- helpers ---------------------------------------------------------------------------------------- */

function renameFields(frame: Record<string, unknown>): Record<string, unknown> {
  const { ttl, pollInterval, ...rest } = frame;
  const renamed: Record<string, unknown> = rest;
  // A missing ttl is read as "unknown lifetime" (null); the 2025 schema requires the key but null is allowed.
  if (!("ttlMs" in rest)) renamed.ttlMs = ttl === undefined ? null : ttl;
  if (pollInterval !== undefined && !("pollIntervalMs" in rest)) renamed.pollIntervalMs = pollInterval;
  return renamed;
}

function taskIdIn(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const id = (value as Record<string, unknown>).taskId;
  return typeof id === "string" && id.length > 0 ? id : undefined;
}

/** The frame as an object, nested no deeper than `MAX_JSON_DEPTH` (src/protocol/depth.ts). */
function requireObject(method: string, frame: unknown): Record<string, unknown> {
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) {
    throw new ProtocolError("answered with something that is not an object", method, frame);
  }
  if (nestedDeeperThan(frame, MAX_JSON_DEPTH)) {
    throw new ProtocolError(`answered with JSON that ${tooDeep()}`, method, undefined);
  }
  return frame as Record<string, unknown>;
}
