/**
 * The `TaskStore` seam (DESIGN decision 12, "durable before visible"): where a client keeps the refs of its
 * unfinished tasks so another process can pick them up. The client writes a ref before the handle reports the
 * task, rewrites it when input is answered, and removes it when the server has said its last word. This file
 * is runtime-neutral: the file store lives behind the Node-only entry `mcp-tasks/store`.
 */
import type { TaskRef } from "../task/ref.js";

export interface TaskStore {
  /**
   * Records a ref (a new task, or a newer version of one already stored, keyed by server and task id). Resolves
   * only once the ref would survive the process being killed.
   */
  put(ref: TaskRef): Promise<void>;
  /** Forgets a task that has ended. Removing a ref that is not stored is not an error. */
  remove(ref: TaskRef): Promise<void>;
  /** Every stored ref, or those of one server. Refs past `createdAt + ttlMs` (plus the store's grace) are pruned. */
  list(server?: TaskRef["server"]): Promise<TaskRef[]>;
  /** Takes what the store needs (a directory lock, a connection); called by `TaskClient.connect`. */
  open?(): Promise<void>;
  /** Lets go of what the store holds (a lock, a connection). */
  close?(): Promise<void>;
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

/** One string per server: its URL when known, else its name. */
export function serverKey(server: TaskRef["server"]): string {
  if (server.url !== undefined) {
    try {
      return new URL(server.url).href;
    } catch {
      return server.url;
    }
  }
  return `name:${server.name ?? ""}`;
}
