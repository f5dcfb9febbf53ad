/**
 * The `TaskStore` seam (DESIGN decisions 12 and 15, "durable before visible", "store contracts are honest"):
 * where a client keeps the refs of its unfinished tasks so another process can pick them up. The client writes
 * a ref before the handle reports the task, rewrites it before input answers leave and when they are
 * acknowledged, removes it when the server has said its last word, and releases it when the handle ends
 * locally while the task may still run: src/run/ref-life.ts owns these rules. This file is runtime-neutral: the file store lives behind the
 * Node-only entry `mcp-tasks/store`.
 */
import { serverIdentity, type TaskRef } from "../task/ref.js";

/**
 * Where a client keeps task refs. Every method may reject; the client decides what a failure means, and never
 * treats a rejected write as done:
 *
 * - a new task whose `put` rejects is not reported: its handle ends with `TaskStoreError` (carrying the task
 *   id), and the client sends `tasks/cancel` for it unless the rejection was a `LeaseLostError`;
 * - input answers whose `put` rejects are not sent (the `tasks/update` waits for the next snapshot that still
 *   lists the keys, and counts as a failed update);
 * - a `LeaseLostError` from a later write ends the handle as `detached` at once: another worker owns the task;
 * - a failed `remove` or `release` is logged: the ref stays, which loses nothing. A store with leases forgets a
 *   lease only once its release or removal is written, and writes a failed one again (`redisStore`: at each
 *   renewal), so a task is never stranded under a lease nobody hands back.
 */
export interface TaskStore {
  /**
   * Records a ref (a new task, or a newer version of one already stored, keyed by server and task id).
   * Resolves only once the ref would survive the process being killed; rejects when it was not stored (the
   * previous version, if any, must then still be readable). A store with leases rejects with `LeaseLostError`
   * when another worker owns the task.
   */
  put(ref: TaskRef): Promise<void>;
  /**
   * Stores with leases: writes a newer version of a ref this worker follows, only while the ref is still stored
   * and this worker holds its lease; else rejects with `LeaseLostError` (a worker that wakes late never brings
   * back a ref another worker removed). Optional: the client uses `put` without it.
   */
  update?(ref: TaskRef): Promise<void>;
  /** Forgets a task that has ended. Removing a ref that is not stored is not an error. */
  remove(ref: TaskRef): Promise<void>;
  /**
   * Stores with leases: the handle ended here (detached, deadline, poll retries exhausted, unconfirmed cancel,
   * an error, the client closing) while the task may still run. Hand back what this process holds on it (the
   * lease) and keep the ref, so `resume()` or another worker's adoption can follow the task. Optional; stores
   * without ownership leave it out.
   */
  release?(ref: TaskRef): Promise<void>;
  /**
   * Every stored ref, or those of one server: those with its identity (`serverIdentity`), none for a server that
   * has no identity. Refs past `createdAt + ttlMs` (plus the store's grace) are pruned.
   */
  list(server?: TaskRef["server"]): Promise<TaskRef[]>;
  /**
   * Takes what the store needs (a directory lock, a connection); called by `TaskClient.connect`. A rejected
   * `open` leaves nothing open. When `connect` fails after `open` resolved, the client calls `close`.
   */
  open?(): Promise<void>;
  /**
   * Lets go of what the store holds (a lock, a connection, every lease). Afterwards nothing of the store runs (no
   * timer) and a claim that lands late is not held; `open` may start it again. The client aborts `signal` when it
   * stops waiting (`closeTimeoutMs`): from then on the store sends nothing, not even what is queued in it.
   */
  close?(signal?: AbortSignal): Promise<void>;
  /**
   * Stores shared by many workers: take the task's lease if nobody holds it, and resolve with its latest ref
   * (undefined when another worker owns it or it is gone). `resume()` follows only what it claimed.
   */
  claim?(ref: TaskRef): Promise<TaskRef | undefined>;
  /**
   * Stores with leases: take, in one go, every lease of `server`'s refs that nobody holds, and resolve with the
   * refs taken. The adoption loop uses it instead of `list` plus one `claim` per ref.
   */
  claimLapsed?(server: TaskRef["server"]): Promise<TaskRef[]>;
  /** Stores with leases: `listener` hears of a task whose lease this worker lost; the client stops following it. */
  onLeaseLost?(listener: (ref: TaskRef) => void): void;
  /**
   * Fencing, for stores with leases: undefined while this worker's lease on the task surely runs; past its
   * deadline, a promise of whether the lease was renewed (true) or is lost (false, and `onLeaseLost` listeners
   * hear of it). The client acts on a task's snapshot (reports it, answers its input) only once this allows it.
   * With `last` (a terminal snapshot: it is reported, then the ref removed) the store itself is asked whatever
   * the worker's clock says, so that a worker whose store stalls never reports what another worker will adopt.
   */
  fence?(ref: TaskRef, last?: boolean): Promise<boolean> | undefined;
}

/** Default allowance past `createdAt + ttlMs` before a stored ref is considered expired. */
export const DEFAULT_PRUNE_GRACE_MS = 60_000;

/** Whether a ref's task is past its time to live (plus `graceMs`) at `now` (epoch ms). */
export function refExpired(ref: TaskRef, now: number, graceMs: number): boolean {
  if (typeof ref.ttlMs !== "number" || ref.createdAt === undefined) return false;
  const created = Date.parse(ref.createdAt);
  return Number.isFinite(created) && now > created + ref.ttlMs + graceMs;
}

/** The identity a store files a ref under: its server and its task id. */
export function refKey(ref: TaskRef): string {
  return `${serverKey(ref.server)}\n${ref.taskId}`;
}

/** One string per server: its identity (`serverIdentity`: its URL when known, else its name), or `name:`. */
export function serverKey(server: TaskRef["server"]): string {
  return serverIdentity(server) ?? "name:";
}
