/**
 * Where `redisStore` keeps what, so that it works on one Redis node and on a Redis Cluster alike (layout 2).
 *
 * A server's refs are spread over `SHARDS` shards by task id. Every key of one shard carries the same hash tag
 * (`{<server id>:<shard>}`), so each script touches keys of one hash slot, all passed as `KEYS`: nothing is built
 * inside a script. Per shard:
 *
 * - `refs` (hash): task id → ref JSON;
 * - `owners` (hash): task id → the owner id of the worker that follows it (absent: nobody);
 * - `held` (sorted set, every score 0): `<owner id>\n<task id>` for each owned task and `\n<task id>` for each
 *   task nobody owns, so the tasks of one owner (or of nobody) are one lexicographic range;
 * - `alive` (sorted set): owner id → the time (Redis's clock, ms) its lease ends. One lease per worker and
 *   shard covers every task it owns there: renewing costs one write per shard, whatever the number of tasks.
 *
 * Beside them: `<prefix>:servers` (the server ids ever written, for `list()` of every server) and
 * `<prefix>:layout` ("2"). Layout 1 (before 0.2) kept every ref in one hash, `<prefix>:refs`, and a key per
 * lease; `redisStore` moves such refs into layout 2 when it first opens (redis-migrate.ts).
 */

/** The layout this code reads and writes. */
export const LAYOUT = "2";

/** Shards per server: enough to spread one server's tasks over a cluster's nodes, few enough to visit all. */
export const SHARDS = 16;

/** FNV-1a over the UTF-16 code units of `text`, from `seed`: a stable, unsigned 32-bit hash. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The shard a task id belongs to. Part of the layout: changing it strands stored refs. */
export function shardOf(taskId: string): number {
  return fnv1a(taskId) % SHARDS;
}

/** A short id for a server key (its URL or name), safe inside a hash tag: 16 hex digits. */
export function serverId(serverKey: string): string {
  const hex = (value: number) => value.toString(16).padStart(8, "0");
  return hex(fnv1a(serverKey)) + hex(fnv1a(serverKey, 0x01000193));
}

/** The four keys of one shard, in the order every shard script takes them: refs, owners, held, alive. */
export function shardKeys(prefix: string, server: string, shard: number): string[] {
  const tag = `${prefix}:{${server}:${shard}}`;
  return [`${tag}:refs`, `${tag}:owners`, `${tag}:held`, `${tag}:alive`];
}

/**
 * Length of the random part that starts every owner id: a worker restarted under the same `owner` name is a new
 * owner (its predecessor's lease lapses on its own), yet may claim the tasks its name holds at once.
 */
export const INCARNATION_LENGTH = 12;

/** `owner` as stored: a fresh incarnation followed by the name. */
export function ownerId(name: string, incarnation: string): string {
  if (name.length === 0 || name.includes("\n")) {
    throw new TypeError("redisStore: `owner` must be a non-empty string without line breaks");
  }
  if (incarnation.length !== INCARNATION_LENGTH) throw new Error("redisStore: bad incarnation");
  return incarnation + name;
}
