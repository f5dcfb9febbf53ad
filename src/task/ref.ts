/**
 * `TaskRef`: the name of a task on its server, as plain JSON. A handle observes a task while this process runs;
 * a ref outlives it: store it, send it to another process, and `client.task(ref)` or `client.cancel(ref)` acts
 * on the same task later.
 */
import { McpTasksError } from "../protocol/errors.js";
import type { HttpSession } from "../session/types.js";

/**
 * A task's name on its server, as plain JSON: what a store keeps and `client.task(ref)` follows. `Name` is the
 * tool's name as a type where it is known (the ref of a handle from a client with a `Tools` type), so
 * `client.task(ref)` types the result again.
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
  /**
   * The Streamable HTTP session the task was created in, on a 2025-11-25 server that gave one (`Mcp-Session-Id`
   * and the protocol version negotiated in it). Servers built on the official SDK keep a task for the session
   * that created it, so a client following this ref sends the task's requests in that session. A secret like
   * the task id: never logged whole. Absent for 2026-07-28 tasks (that revision has no sessions), for stdio, and
   * in refs written before this field existed.
   */
  session?: HttpSession;
}

export type { HttpSession };

/**
 * Longest session id or protocol version a ref may carry. Both travel as header values; the transport spec
 * allows visible ASCII only in a session id, and real ones are UUIDs or JWTs, far below this.
 */
export const MAX_SESSION_FIELD_LENGTH = 1024;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** Whether `value` can be sent as `Mcp-Session-Id` (or `MCP-Protocol-Version`): visible ASCII, bounded. */
export function isSessionField(value: unknown): value is string {
  return typeof value === "string" && value.length <= MAX_SESSION_FIELD_LENGTH && VISIBLE_ASCII.test(value);
}

/** A malformed ref, or one that names a task on another server. */
export class TaskRefError extends McpTasksError {
  static override readonly errorName: string = "TaskRefError";
}

/**
 * Checks a value that claims to be a `TaskRef` (typically `JSON.parse` of a stored one or of one another process
 * sent) and returns a new ref holding only the fields listed in `REF_FIELDS`: anything else in the input is
 * dropped, so a ref from elsewhere cannot smuggle in data that some reader of refs would trust. Throws
 * `TaskRefError` naming the first problem.
 */
export function readTaskRef(value: unknown): TaskRef {
  if (!isObject(value)) throw new TaskRefError("invalid task ref: a task ref must be an object");
  if (value["v"] !== 1) {
    throw new TaskRefError(
      `invalid task ref: unsupported task ref version ${JSON.stringify(value["v"])} (this library reads version 1)`,
    );
  }
  return readFields(value, REF_FIELDS, "") as unknown as TaskRef;
}

/** Reads one field: its value (undefined leaves it out), or `fail` with what is wrong with it. */
type FieldReader = (value: unknown, fail: (problem: string) => never) => unknown;
type Fields<T> = { readonly [K in keyof Required<T>]: FieldReader };

/**
 * Every field a `TaskRef` may carry and how it is read. Typed by `TaskRef`'s keys, so a new field does not
 * compile until it is listed here, and a field that is not listed never leaves `readTaskRef`.
 */
const SERVER_FIELDS: Fields<TaskRef["server"]> = {
  url: optional(string),
  name: optional(string),
  version: optional(string),
  protocolVersion: string,
};

const REF_FIELDS: Fields<TaskRef> = {
  v: () => 1,
  taskId: (value, fail) =>
    typeof value === "string" && value.length > 0 ? value : fail("must be a non-empty string"),
  server: (value, fail) =>
    isObject(value) ? readFields(value, SERVER_FIELDS, "server.") : fail("must be an object"),
  method: string,
  toolName: string,
  createdAt: optional(string),
  ttlMs: (value, fail) =>
    value === undefined || value === null || typeof value === "number"
      ? value
      : fail("must be a number or null"),
  answeredInputKeys: (value, fail) =>
    value === undefined
      ? []
      : Array.isArray(value)
        ? value.filter((key) => typeof key === "string")
        : fail("must be an array of strings"),
  era: (value, fail) =>
    value === undefined || value === "modern" || value === "legacy"
      ? value
      : fail('must be "modern" or "legacy"'),
  pendingInputAnswers: optional((value, fail) =>
    // Own entries only, onto a plain object: a `__proto__` key stays a key.
    isObject(value) ? Object.fromEntries(Object.entries(value)) : fail("must be an object"),
  ),
  // Only its two fields, both fit to travel as header values: the session goes into `Mcp-Session-Id`.
  session: optional((value, fail) =>
    isObject(value) && isSessionField(value["id"]) && isSessionField(value["protocolVersion"])
      ? { id: value["id"], protocolVersion: value["protocolVersion"] }
      : fail("must be { id, protocolVersion }, both visible ASCII"),
  ),
};

function readFields(
  input: Record<string, unknown>,
  fields: Record<string, FieldReader>,
  prefix: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(fields)) {
    const value = read(Object.hasOwn(input, name) ? input[name] : undefined, (problem) => {
      throw new TaskRefError(`invalid task ref: \`${prefix}${name}\` ${problem}`);
    });
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function string(value: unknown, fail: (problem: string) => never): string {
  return typeof value === "string" ? value : fail("must be a string");
}

function optional(read: FieldReader): FieldReader {
  return (value, fail) => (value === undefined ? undefined : read(value, fail));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The identity stored refs are matched to their server by (DESIGN decision 12: a stored ref is handed only to its
 * own server): the endpoint's URL for a connection that has one, else the name the server gave in its
 * `serverInfo`. A connection with neither (stdio or an SDK transport to a server that sent no `serverInfo`) has
 * none: it cannot tell its server from any other, so no stored ref is its. A URL identity never equals a name
 * identity: a stdio server named like an HTTP one is not that server. Filed under the same key as the stores'
 * (`serverKey`), so a store sharded by server holds one identity's refs together.
 */
export function serverIdentity(server: TaskRef["server"]): string | undefined {
  if (server.url !== undefined) {
    try {
      return new URL(server.url).href;
    } catch {
      return server.url;
    }
  }
  return server.name === undefined || server.name === "" ? undefined : `name:${server.name}`;
}

/**
 * Whether a stored ref is one of `here`'s tasks, to hand to `resume()` or adoption: both have an identity, and it
 * is the same. (A ref the caller hands `client.task(ref)` itself is checked by `foreignServer`, which refuses only
 * a ref known to name another server.)
 */
export function storedRefOf(ref: TaskRef, here: TaskRef["server"]): boolean {
  const identity = serverIdentity(here);
  return identity !== undefined && serverIdentity(ref.server) === identity;
}

/**
 * Why `ref` cannot be used on a client connected to `here`, or undefined when it can. Servers are the same when
 * their URLs match (when both are known), otherwise when their names match.
 */
export function foreignServer(ref: TaskRef, here: TaskRef["server"]): string | undefined {
  const there = ref.server;
  if (there.url !== undefined && here.url !== undefined) {
    return serverIdentity(there) === serverIdentity(here)
      ? undefined
      : `the ref names a task on ${there.url}, not ${here.url}`;
  }
  if (there.name !== undefined && here.name !== undefined && there.name !== here.name) {
    return `the ref names a task on server "${there.name}", not "${here.name}"`;
  }
  return undefined;
}
