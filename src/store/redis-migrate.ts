/**
 * The first `redisStore` to open a prefix makes sure its keys are in layout 2 (redis-layout.ts). Refs that an
 * earlier version left in layout 1 (one hash, `<prefix>:refs`) move into their shards as tasks nobody owns, so
 * any worker adopts them; the layout-1 lease keys are left to expire on their own. One store moves them (under a
 * lock in `<prefix>:layout`); the others wait for it. Workers of the earlier version must be stopped first: what
 * they write afterwards goes to the old hash, which no one reads any more.
 */
import type { Logger } from "../protocol/logging.js";
import { readTaskRef } from "../task/ref.js";
import { LAYOUT, serverId, shardKeys, shardOf } from "./redis-layout.js";
import { REGISTER_SERVER } from "./redis-scripts.js";
import { serverKey } from "./types.js";

/**
 * The one command `redisStore` sends (`EVAL`, every key passed in `keys`): a connected node-redis client fits,
 * `createClient()` for one node as well as `createCluster()` for a Redis Cluster.
 */
export interface RedisLike {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

export const GET = `return redis.call('GET', KEYS[1])`;
export const SET = `return redis.call('SET', KEYS[1], ARGV[1])`;
/** Claims an empty prefix for layout 2, or takes the migration lock: 'OK' when done. */
export const SET_NX = `return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])`;
export const SET_NX_FOREVER = `return redis.call('SET', KEYS[1], ARGV[1], 'NX')`;
export const PEXPIRE = `return redis.call('PEXPIRE', KEYS[1], ARGV[1])`;
export const LENGTH = `return redis.call('HLEN', KEYS[1])`;
export const SCAN = `return redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])`;
export const FORGET = `return redis.call('HDEL', KEYS[1], unpack(ARGV))`;
/** KEYS: a shard's refs, owners, held, alive. ARGV: task id, ref JSON. Stores the ref as nobody's, unless stored. */
export const PLACE = `if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('ZADD', KEYS[3], 0, '\\n' .. ARGV[1])
end
return 1`;

const LOCK_MS = 60_000;
const BATCH = 500;

/** Resolves once the prefix is in layout 2; rejects when it holds a layout this version does not know. */
export async function ensureLayout(client: RedisLike, prefix: string, log: Logger): Promise<void> {
  const layoutKey = `${prefix}:layout`;
  const legacyKey = `${prefix}:refs`;
  const one = (script: string, key: string, ...args: string[]) =>
    client.eval(script, { keys: [key], arguments: args });
  const lockedBy = `migrating ${Math.random().toString(36).slice(2)}`;
  for (let waited = 0; waited <= LOCK_MS + 5000; waited += 100) {
    const layout = await one(GET, layoutKey);
    if (layout === LAYOUT) return;
    if (layout === null) {
      if ((await one(LENGTH, legacyKey)) === 0) {
        await one(SET_NX_FOREVER, layoutKey, LAYOUT);
        continue;
      }
      if ((await one(SET_NX, layoutKey, lockedBy, String(LOCK_MS))) === "OK") {
        const moved = await migrate(
          client,
          prefix,
          legacyKey,
          () => one(PEXPIRE, layoutKey, String(LOCK_MS)),
          log,
        );
        await one(SET, layoutKey, LAYOUT);
        log.warn(
          `redisStore: moved ${moved} refs of the previous key layout under "${prefix}" into layout ${LAYOUT}`,
        );
        return;
      }
    } else if (typeof layout !== "string" || !layout.startsWith("migrating ")) {
      throw new Error(
        `redisStore: the keys under "${prefix}" are in layout ${JSON.stringify(layout)}; this version reads layout ${LAYOUT}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // another store is moving the refs
  }
  throw new Error(`redisStore: the refs under "${prefix}" were not moved to layout ${LAYOUT} in time`);
}

async function migrate(
  client: RedisLike,
  prefix: string,
  legacyKey: string,
  keepLock: () => Promise<unknown>,
  log: Logger,
): Promise<number> {
  let moved = 0;
  let cursor = "0";
  const servers = new Set<string>();
  do {
    const [next, flat] = (await client.eval(SCAN, {
      keys: [legacyKey],
      arguments: [cursor, String(BATCH)],
    })) as [string, string[]];
    cursor = next;
    const fields: string[] = [];
    const placing: Promise<unknown>[] = [];
    for (let index = 0; index < flat.length; index += 2) {
      fields.push(flat[index] as string);
      try {
        const ref = readTaskRef(JSON.parse(flat[index + 1] as string));
        const server = serverId(serverKey(ref.server));
        servers.add(server);
        const keys = shardKeys(prefix, server, shardOf(ref.taskId));
        placing.push(client.eval(PLACE, { keys, arguments: [ref.taskId, JSON.stringify(ref)] }));
        moved++;
      } catch (error) {
        log.warn("redisStore: dropping an unreadable ref of the previous key layout", error);
      }
    }
    await Promise.all(placing);
    for (const server of servers)
      await client.eval(REGISTER_SERVER, { keys: [`${prefix}:servers`], arguments: [server] });
    servers.clear();
    if (fields.length > 0) await client.eval(FORGET, { keys: [legacyKey], arguments: fields });
    await keepLock();
  } while (cursor !== "0");
  return moved;
}
