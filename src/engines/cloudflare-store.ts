/**
 * `durableObjectStore(storage)`: the `TaskStore` over a Durable Object's transactional storage (DESIGN decisions 12
 * and 21, "durable before visible", "engines hold the ref"). This file owns how a task's record is kept there: one
 * key per task (a hash of its server and task id, so no server-chosen text becomes a key), holding the ref and
 * what the alarm follower (cloudflare-follower.ts) adds to it. Only the object itself reads or writes its storage,
 * so the refs are private to it. The types are structural: no Cloudflare package is needed at run time.
 */
import { readTaskRef, type TaskRef } from "mcp-tasks";
import type { TaskStore } from "mcp-tasks/store";
import type { DurableObjectStorageLike } from "./cloudflare-types.js";

/** Options of `durableObjectStore`. */
export interface DurableObjectStoreOptions {
  /** Prefix of every key the store writes, so the object's own keys never meet them. Default `"mcp-tasks:"`. */
  prefix?: string;
}

/** What is kept per task: the ref, and the follower's state for it. */
export interface TaskRecord {
  ref: TaskRef;
  /** When the follower polls the task next (epoch ms). */
  nextPollAt?: number;
  /** A cancel the user asked for: `requested` until the server acknowledged it, then `sent`. */
  cancel?: "requested" | "sent";
  /** Answers the user gave for input keys, kept until the server acknowledged them. */
  answers?: Record<string, unknown>;
  /** Input keys the user was told about (the `input` event goes out once per key). */
  asked?: string[];
  /** The status and message last reported, so a status event goes out only for a change. */
  seen?: string;
  /** Failed rounds in a row (transport faults), for the follower's backoff. */
  failures?: number;
  /** The server has said its last word: the follower reports the ending, then deletes the record. */
  over?: true;
}

/** The store plus what the follower needs of its records. @internal */
export interface RecordStore extends TaskStore {
  readonly prefix: string;
  keyOf(ref: Pick<TaskRef, "server" | "taskId">): Promise<string>;
  records(): Promise<Map<string, TaskRecord>>;
  /** Rewrites a record's follower fields (a record that is gone stays gone). */
  patch(key: string, change: (record: TaskRecord) => void): Promise<TaskRecord | undefined>;
  /** Deletes a record for good: a write of the client still on its way cannot bring it back. */
  forget(key: string): Promise<void>;
}

/**
 * A `TaskStore` over `ctx.storage` of a Durable Object (KV- or SQLite-backed). `put` resolves once the write is
 * committed (`storage.sync()`, where the runtime has it); until then the runtime's output gate holds every message
 * the object sends, so no poll, response or event leaves before the ref is stored. Use it as
 * `TaskClient.connect(url, { store: durableObjectStore(ctx.storage) })`, or let `durableTasks` make it.
 */
export function durableObjectStore(
  storage: DurableObjectStorageLike,
  options: DurableObjectStoreOptions = {},
): TaskStore {
  return recordStore(storage, options, false);
}

/**
 * The store behind both entries. With `keepEnded`, `remove` leaves the record alone: the follower, which decides
 * the same way when the server has said its last word, deletes it once the user heard of the ending (`forget`),
 * so an eviction in between loses nothing.
 * @internal
 */
export function recordStore(
  storage: DurableObjectStorageLike,
  options: DurableObjectStoreOptions,
  keepEnded: boolean,
  /** Called before a new record's write resolves (the follower sets the alarm there). */
  created: () => Promise<void> = () => Promise.resolve(),
): RecordStore {
  const prefix = options.prefix ?? "mcp-tasks:";
  if (typeof prefix !== "string") throw new TypeError("durableObjectStore: `prefix` must be a string");
  const keyOf = async (ref: Pick<TaskRef, "server" | "taskId">) =>
    `${prefix}task:${await sha256(`${identity(ref.server)}\n${ref.taskId}`)}`;
  const commit = async () => {
    await storage.sync?.();
  };
  /** Keys forgotten by this instance: a late write of the client for them is dropped. */
  const forgotten = new Set<string>();
  const store: RecordStore = {
    prefix,
    keyOf,
    async put(ref) {
      const key = await keyOf(ref);
      if (forgotten.has(key)) return;
      const stored = await storage.get<TaskRecord>(key);
      const record = stored ?? { ref };
      record.ref = structuredClone(ref);
      await storage.put(key, record);
      if (stored === undefined) await created();
      await commit();
    },
    async remove(ref) {
      if (keepEnded) return;
      await storage.delete(await keyOf(ref));
      await commit();
    },
    async list(server) {
      const found: TaskRef[] = [];
      const wanted = server === undefined ? undefined : identity(server);
      for (const record of (await store.records()).values()) {
        if (record.over) continue;
        if (wanted === undefined || identity(record.ref.server) === wanted) found.push(record.ref);
      }
      return found;
    },
    async records() {
      const raw = await storage.list<unknown>({ prefix: `${prefix}task:` });
      const records = new Map<string, TaskRecord>();
      for (const [key, value] of raw) {
        const record = readRecord(value);
        if (record !== undefined) records.set(key, record);
      }
      return records;
    },
    async forget(key) {
      forgotten.add(key);
      await storage.delete(key);
      await commit();
    },
    async patch(key, change) {
      const record = readRecord(await storage.get<unknown>(key));
      if (record === undefined) return undefined;
      change(record);
      await storage.put(key, record);
      await commit();
      return record;
    },
  };
  return store;
}

/** A stored record, its ref read like any ref from elsewhere; undefined for anything else. */
function readRecord(value: unknown): TaskRecord | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  try {
    return { ...(value as TaskRecord), ref: readTaskRef((value as { ref?: unknown }).ref) };
  } catch {
    return undefined;
  }
}

/** The server a ref names, as one string: its URL when known, else its name. */
function identity(server: TaskRef["server"]): string {
  if (server.url !== undefined) {
    try {
      return new URL(server.url).href;
    } catch {
      return server.url;
    }
  }
  return `name:${server.name ?? ""}`;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
