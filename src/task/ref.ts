/**
 * `TaskRef`: the name of a task on its server, as plain JSON. A handle observes a task while this process runs;
 * a ref outlives it: store it, send it to another process, and `client.task(ref)` or `client.cancel(ref)` acts
 * on the same task later.
 */
import { McpTasksError } from "../protocol/errors.js";

/**
 * A task's reference. `Name` is the tool's name as a type where it is known (the ref of a handle from a client
 * with a `Tools` type), so `client.task(ref)` types the result again.
 */
export interface TaskRef<Name extends string = string> {
  /** The format version of this object. */
  v: 1;
  taskId: string;
  /** Which server holds the task. `url` is set for Streamable HTTP connections. */
  server: { url?: string; name?: string; version?: string; protocolVersion: string };
  /** The request that created the task (`tools/call`). */
  method: string;
  toolName: Name;
  /** As the server reported them; absent when the ref was made from a bare task id. */
  createdAt?: string;
  ttlMs?: number | null;
  /** Input request keys already answered, so a resumed handle never asks the user twice. */
  answeredInputKeys: string[];
  /**
   * The protocol generation the task was created under: `legacy` (2025-11-25 tasks) is followed with the 2025
   * requests. Absent (refs written before this field existed) means `modern`.
   */
  era?: "modern" | "legacy";
  /**
   * Answers given but not yet acknowledged by the server (a `tasks/update` was on its way), by input key: a
   * resumed handle re-sends them while the server still lists the key, and never asks for them again.
   */
  pendingInputAnswers?: Record<string, unknown>;
}

/** A malformed ref, or one that names a task on another server. */
export class TaskRefError extends McpTasksError {
  override name = "TaskRefError";
}

/**
 * Checks a value that claims to be a `TaskRef` (typically `JSON.parse` of a stored one) and returns it typed.
 * Throws `TaskRefError` naming the first problem.
 */
export function readTaskRef(value: unknown): TaskRef {
  const ref = value as Partial<TaskRef> | null;
  const problem =
    typeof ref !== "object" || ref === null
      ? "a task ref must be an object"
      : ref.v !== 1
        ? `unsupported task ref version ${JSON.stringify(ref.v)} (this library reads version 1)`
        : typeof ref.taskId !== "string" || ref.taskId.length === 0
          ? "`taskId` must be a non-empty string"
          : typeof ref.server !== "object" || ref.server === null
            ? "`server` must be an object"
            : typeof ref.method !== "string"
              ? "`method` must be a string"
              : !Array.isArray(ref.answeredInputKeys ?? [])
                ? "`answeredInputKeys` must be an array of strings"
                : ref.era !== undefined && ref.era !== "modern" && ref.era !== "legacy"
                  ? '`era` must be "modern" or "legacy"'
                  : ref.pendingInputAnswers !== undefined &&
                      (typeof ref.pendingInputAnswers !== "object" ||
                        ref.pendingInputAnswers === null ||
                        Array.isArray(ref.pendingInputAnswers))
                    ? "`pendingInputAnswers` must be an object"
                    : undefined;
  if (problem !== undefined) throw new TaskRefError(`invalid task ref: ${problem}`);
  const checked = ref as TaskRef;
  return {
    ...checked,
    answeredInputKeys: (checked.answeredInputKeys ?? []).filter((k) => typeof k === "string"),
  };
}

/**
 * Why `ref` cannot be used on a client connected to `here`, or undefined when it can. Servers are the same when
 * their URLs match (when both are known), otherwise when their names match.
 */
export function foreignServer(ref: TaskRef, here: TaskRef["server"]): string | undefined {
  const there = ref.server;
  if (there.url !== undefined && here.url !== undefined) {
    return sameUrl(there.url, here.url) ? undefined : `the ref names a task on ${there.url}, not ${here.url}`;
  }
  if (there.name !== undefined && here.name !== undefined && there.name !== here.name) {
    return `the ref names a task on server "${there.name}", not "${here.name}"`;
  }
  return undefined;
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}
