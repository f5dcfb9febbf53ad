/** `memoryStore()`: a `TaskStore` in a `Map`, for tests and for code that only needs the seam. Not durable. */
import { storedRefOf, type TaskRef } from "../task/ref.js";
import { DEFAULT_PRUNE_GRACE_MS, refExpired, refKey, type TaskStore } from "./types.js";

/** Options of `memoryStore`. */
export interface MemoryStoreOptions {
  /** Allowance past `createdAt + ttlMs` before a ref is pruned. Default 60000. */
  pruneGraceMs?: number;
  /** The clock that decides expiry, in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** A store that keeps refs in this process only; `size` counts them. */
export function memoryStore(options: MemoryStoreOptions = {}): TaskStore & { readonly size: number } {
  const refs = new Map<string, TaskRef>();
  const grace = options.pruneGraceMs ?? DEFAULT_PRUNE_GRACE_MS;
  const now = options.now ?? Date.now;
  return {
    get size() {
      return refs.size;
    },
    put(ref) {
      refs.set(refKey(ref), structuredClone(ref));
      return Promise.resolve();
    },
    remove(ref) {
      refs.delete(refKey(ref));
      return Promise.resolve();
    },
    list(server) {
      const at = now();
      const found: TaskRef[] = [];
      for (const [key, ref] of refs) {
        if (refExpired(ref, at, grace)) refs.delete(key);
        else if (server === undefined || storedRefOf(ref, server)) found.push(structuredClone(ref));
      }
      return Promise.resolve(found);
    },
  };
}
