/**
 * The parts of a Durable Object that `mcp-tasks/cloudflare` uses, as structural types: `ctx.storage` of a KV- or
 * SQLite-backed object and `DurableObjectState` from `@cloudflare/workers-types` both fit them (a type test holds
 * that), and nobody needs that package installed to use the entry.
 */

/** `ctx.storage`: the transactional key-value API and the object's alarm. */
export interface DurableObjectStorageLike {
  get<T = unknown>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
  list<T = unknown>(options?: { prefix?: string }): Promise<Map<string, T>>;
  getAlarm(): Promise<number | null>;
  setAlarm(scheduledTime: number | Date): Promise<void>;
  deleteAlarm(): Promise<void>;
  /** Resolves once every write so far is durable (absent on runtimes without it). */
  sync?(): Promise<void>;
}

/** `ctx` of a Durable Object (`DurableObjectState`). */
export interface DurableObjectStateLike {
  readonly storage: DurableObjectStorageLike;
}
