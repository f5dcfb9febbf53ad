/**
 * `redisStore({ url })` (`mcp-tasks/store/redis`): refs shared by many workers, each live task owned through a
 * lease that only its owner renews. The worker that creates a task owns it from the first write;
 * `client.resume()` (or the client's adoption loop, `adopt: true`) claims only tasks whose owner's lease has
 * ended, so a task is followed by one worker at a time and a dead worker's tasks move on within the lease time.
 * Answered input keys travel in the ref, so another worker never asks again. Works on one Redis node and on a
 * Redis Cluster (the key layout is in redis-layout.ts). Needs the `redis` package.
 *
 * A release or a removal is written before the lease is forgotten here: one that fails is retried at each
 * renewal (the lease stays renewed meanwhile, so nobody else follows the task twice) until it is written or the
 * store closes. After `close()` nothing of the store runs: no renewal timer, and a claim that lands later is not
 * held (its lease lapses by itself); `close()` waits for the scripts in flight and the retirement of its leases
 * at most `leaseMs`, after which they would have lapsed anyway, and drops a connection it made that Redis does
 * not answer. src/run/ref-life.ts decides when the client writes, releases and removes.
 *
 * @module mcp-tasks/store/redis
 */
import { randomUUID } from "node:crypto";
import { LeaseLostError, TaskStoreError } from "../protocol/errors.js";
import { safeLogger, type Logger } from "../protocol/logging.js";
import { readTaskRef, serverIdentity, storedRefOf, type TaskRef } from "../task/ref.js";
import { DEFAULT_PRUNE_GRACE_MS, refExpired, refKey, serverKey, type TaskStore } from "./types.js";
import { INCARNATION_LENGTH, ownerId, serverId, SHARDS, shardKeys, shardOf } from "./redis-layout.js";
import { ensureLayout, type RedisLike } from "./redis-migrate.js";
import {
  CLAIM,
  CLAIM_LAPSED,
  CONFIRM,
  PUT,
  REFS,
  REGISTER_SERVER,
  RELEASE,
  REMOVE,
  RENEW,
  RETIRE,
  SERVERS,
  VERIFY,
} from "./redis-scripts.js";

/** A write refused because another worker holds the task's lease. */
export { LeaseLostError };

export type { RedisLike };

/** Options of `redisStore`: a `url` or a connected `client`, and the lease settings. */
export interface RedisStoreOptions {
  /** `redis://host:port` of one Redis node; a client is made with the `redis` package and closed with the store. */
  url?: string;
  /**
   * A connected client to use instead (it is not closed by the store): `createClient(…)`, or
   * `createCluster({ rootNodes })` for a Redis Cluster.
   */
  client?: RedisLike;
  /**
   * Prefix of every key. Default `mcp-tasks`. Workers that share tasks use the same one. A prefix containing
   * `{…}` puts every key in one hash slot of a cluster.
   */
  prefix?: string;
  /** How long a lease lasts without renewal. Default 10000; renewed every third of it. */
  leaseMs?: number;
  /**
   * This worker's name in leases. Default: a random UUID. A worker restarted under the same name may claim the
   * tasks its name holds at once (`resume()`); two live workers must not share a name.
   */
  owner?: string;
  logger?: Partial<Logger>;
  /** Allowance past `createdAt + ttlMs` before a stored ref is pruned. Default 60000. */
  pruneGraceMs?: number;
}

/** A `TaskStore` whose live tasks are each owned by one worker through a lease. */
export type RedisTaskStore = TaskStore & {
  /** Hands the task's lease back (if this worker still holds it) and keeps the ref: any worker may claim it. */
  release(ref: TaskRef): Promise<void>;
  /** Writes a newer version of a ref this worker follows; `LeaseLostError` when it is gone or another's. */
  update(ref: TaskRef): Promise<void>;
  /** Takes the task's lease when nobody holds it; resolves with the latest ref, or undefined. */
  claim(ref: TaskRef): Promise<TaskRef | undefined>;
  /** Takes the lease of every task of `server` whose owner stopped renewing it; resolves with their refs. */
  claimLapsed(server: TaskRef["server"]): Promise<TaskRef[]>;
  /** Called with the ref of a task whose lease this worker found no longer its own at renewal: another follows it. */
  onLeaseLost(listener: (ref: TaskRef) => void): void;
  /**
   * Undefined while the task's lease surely runs and the snapshot is not its `last` word; else whether it is
   * still this worker's, once renewed.
   */
  fence(ref: TaskRef, last?: boolean): Promise<boolean> | undefined;
  /** Hands back every lease (other workers may adopt at once) and disconnects a client the store made. */
  close(signal?: AbortSignal): Promise<void>;
  /** This worker's name in leases. */
  readonly owner: string;
  /** Refs whose lease this worker holds. */
  readonly held: number;
};

/** A store in Redis shared by many workers, each live task followed by the one that holds its lease. */
export function redisStore(options: RedisStoreOptions): RedisTaskStore {
  return new RedisStore(options);
}

/** One shard of one server: its keys, and how many of this worker's tasks live there. */
interface Shard {
  readonly keys: string[];
  held: number;
  /** Whether this worker has a lease entry here (to end on close). */
  touched: boolean;
  /** Until when (performance.now()) this worker's lease here surely runs: its last renewal's start + leaseMs. */
  fresh: number;
  /**
   * The check of which tasks are still this worker's, after a script found its lease here had ended: until it is
   * done, a script that finds the lease running (renewed by the one that found it ended) says nothing of them.
   */
  checking: Promise<void> | undefined;
}

/** Tasks one adoption script takes at most, so no script holds Redis up for long. */
const CLAIM_BATCH = 1000;
/** Task ids one ownership check sends at most. */
const VERIFY_BATCH = 1000;

class RedisStore implements TaskStore {
  readonly owner: string;
  /** The owner id in Redis: this store's incarnation, then `owner`. */
  private readonly me: string;
  private readonly prefix: string;
  private readonly leaseMs: number;
  private readonly log: Logger;
  private readonly grace: number;
  private client: RedisLike | undefined;
  private own: { close(): Promise<unknown>; destroy(): void } | undefined;
  private closed = false;
  /** Set when close() finished or gave up: from then on not one script is sent, whatever is still queued here. */
  private gone = false;
  /** Scripts sent and not answered yet: `close()` waits for them (bounded), so a late claim is retired too. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Releases and removals whose write failed, by ref key: retried at each renewal until written. */
  private readonly unwritten = new Map<string, { ref: TaskRef; script: string; args: string[] }>();
  private opening: Promise<void> | undefined;
  /** Leases this worker holds, by ref key. */
  private readonly leases = new Map<string, { ref: TaskRef; shard: Shard }>();
  private readonly shards = new Map<string, Shard>();
  /** Servers written to the `servers` index by this store. */
  private readonly registered = new Map<string, Promise<unknown>>();
  private readonly lost = new Set<(ref: TaskRef) => void>();
  private renewer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: RedisStoreOptions) {
    if (options.url === undefined && options.client === undefined) {
      throw new TypeError("redisStore: give `url` or `client`");
    }
    this.owner = options.owner ?? randomUUID();
    this.me = ownerId(this.owner, randomUUID().replaceAll("-", "").slice(0, INCARNATION_LENGTH));
    this.prefix = options.prefix ?? "mcp-tasks";
    this.leaseMs = options.leaseMs ?? 10_000;
    this.log = safeLogger(options.logger);
    this.grace = options.pruneGraceMs ?? DEFAULT_PRUNE_GRACE_MS;
  }

  get held(): number {
    return this.leases.size;
  }

  /**
   * Connects (with `url`) and makes sure the keys are in the current layout, moving refs of the previous one.
   * A failed connection is closed, and `open` may be tried again.
   */
  async open(): Promise<void> {
    if (this.closed) {
      // Opened again after close() (a retried connect): a fresh start, with a new connection when it made one.
      this.closed = false;
      this.gone = false;
      this.opening = undefined;
      this.client = undefined;
      this.registered.clear();
      for (const shard of this.shards.values())
        Object.assign(shard, { held: 0, touched: false, fresh: 0, checking: undefined });
    }
    await this.connected();
  }

  /** Waits for the connection; refused once the store is closed (only `open()` starts it again). */
  private async connected(): Promise<void> {
    if (this.closed) throw new TaskStoreError("redisStore: the store is closed");
    this.opening ??= this.connect();
    const opening = this.opening;
    try {
      await opening;
    } catch (error) {
      if (this.opening === opening) this.opening = undefined;
      throw error;
    }
  }

  async put(ref: TaskRef): Promise<void> {
    await this.write(ref, "");
  }

  /** A newer version of a ref this worker follows: written only while it is stored and this worker's. */
  async update(ref: TaskRef): Promise<void> {
    await this.write(ref, "update");
  }

  private async write(ref: TaskRef, mode: string): Promise<void> {
    const server = serverId(serverKey(ref.server));
    await this.register(server);
    const shard = this.shard(server, ref.taskId);
    const before = shard.held;
    const at = performance.now();
    const state = await this.script(PUT, shard, ref.taskId, JSON.stringify(ref), mode);
    if (state === -1) throw new LeaseLostError("redisStore: another worker holds this task's lease");
    this.hold(refKey(ref), ref, shard);
    this.renewed(shard, state, before, at);
  }

  async remove(ref: TaskRef): Promise<void> {
    await this.letGo(ref, REMOVE, "");
  }

  /** Hands the task's lease back (if this worker still holds it) and keeps the ref: any worker may claim it now. */
  async release(ref: TaskRef): Promise<void> {
    await this.letGo(ref, RELEASE);
  }

  /**
   * Writes a release or a removal, then forgets the lease here. A failed write keeps the lease (renewed, so the
   * task is not stranded under a lease nobody releases) and is retried at each renewal; the caller hears of it.
   */
  private async letGo(ref: TaskRef, script: string, ...args: string[]): Promise<void> {
    const key = refKey(ref);
    const shard = this.leases.get(key)?.shard ?? this.shard(serverId(serverKey(ref.server)), ref.taskId);
    try {
      await this.script(script, shard, ref.taskId, ...args);
    } catch (error) {
      if (this.leases.has(key) && !this.closed) this.unwritten.set(key, { ref, script, args });
      throw error;
    }
    this.unwritten.delete(key);
    this.drop(key);
  }

  /** Every stored ref, or those of `server` by its exact identity (`serverIdentity`): none when it has none. */
  async list(server?: TaskRef["server"]): Promise<TaskRef[]> {
    if (server !== undefined && serverIdentity(server) === undefined) return [];
    await this.connected();
    const client = this.client as RedisLike;
    const servers =
      server === undefined
        ? ((await client.eval(SERVERS, { keys: [`${this.prefix}:servers`], arguments: [] })) as string[])
        : [serverId(serverKey(server))];
    const found: TaskRef[] = [];
    const now = Date.now();
    const reading = servers.flatMap((id) =>
      Array.from({ length: SHARDS }, async (_, index) => {
        const shard = this.shardAt(id, index);
        const flat = (await client.eval(REFS, {
          keys: [shard.keys[0] as string],
          arguments: [],
        })) as string[];
        for (let at = 0; at < flat.length; at += 2) {
          const taskId = flat[at] as string;
          const ref = this.read(flat[at + 1] as string);
          if (ref === undefined || refExpired(ref, now, this.grace)) {
            await this.script(REMOVE, shard, taskId, "force");
          } else if (server === undefined || storedRefOf(ref, server)) found.push(ref);
        }
      }),
    );
    await Promise.all(reading);
    return found;
  }

  /** Takes the task's lease when nobody holds it; resolves with the latest ref, or undefined. */
  async claim(ref: TaskRef): Promise<TaskRef | undefined> {
    const shard = this.shard(serverId(serverKey(ref.server)), ref.taskId);
    const before = shard.held;
    const at = performance.now();
    const answer = (await this.script(CLAIM, shard, ref.taskId)) as [number, string] | [];
    if (answer.length === 0) return undefined;
    if (this.closed) return undefined; // landed after close(): retired with the rest, or lapsing
    const latest = this.read(answer[1]);
    if (latest === undefined) {
      await this.script(REMOVE, shard, ref.taskId, "force");
      return undefined;
    }
    this.hold(refKey(latest), latest, shard);
    this.renewed(shard, answer[0], before, at);
    return latest;
  }

  /**
   * Takes every task of `server` that nobody owns or whose owner's lease ended: a few scripts per shard, each
   * costing what it takes, however many refs are stored.
   */
  async claimLapsed(server: TaskRef["server"]): Promise<TaskRef[]> {
    const id = serverId(serverKey(server));
    const claimed: TaskRef[] = [];
    const now = Date.now();
    const adopting = Array.from({ length: SHARDS }, async (_, index) => {
      const shard = this.shardAt(id, index);
      for (let more = true; more;) {
        const before = shard.held;
        const at = performance.now();
        const answer = (await this.script(CLAIM_LAPSED, shard, String(CLAIM_BATCH))) as [
          number,
          number,
          ...string[],
        ];
        more = answer[1] === 1;
        for (let at = 2; at < answer.length; at += 2) {
          const taskId = answer[at] as string;
          const ref = this.read(answer[at + 1] as string);
          if (this.closed) continue; // landed after close(): retired with the rest, or lapsing
          if (ref === undefined || refExpired(ref, now, this.grace)) {
            await this.script(REMOVE, shard, taskId, "force");
          } else {
            this.hold(refKey(ref), ref, shard);
            claimed.push(ref);
          }
        }
        if (answer.length > 2) this.renewed(shard, answer[0], before, at);
      }
    });
    // A shard that failed (a dropped connection) must not hide what the others took: those leases are held now,
    // and only a handle made for each lets go of them. The failure is thrown only when nothing was taken.
    const failed = (await Promise.allSettled(adopting)).find((result) => result.status === "rejected");
    if (failed !== undefined && claimed.length === 0) throw failed.reason;
    if (failed !== undefined) this.log.warn("redisStore: adopting from some shards failed", failed.reason);
    return claimed;
  }

  onLeaseLost(listener: (ref: TaskRef) => void): void {
    this.lost.add(listener);
  }

  /**
   * Hands back every lease (other workers may adopt at once) and disconnects a client the store made. Waits at
   * most `leaseMs` for Redis: by then every lease has lapsed anyway, and a connection of its own is dropped.
   */
  async close(signal?: AbortSignal): Promise<void> {
    // The client's close() aborts `signal` when it stops waiting: the store gives up at once.
    const giveUp = (): void => {
      this.gone = true;
      this.own?.destroy();
      this.own = undefined;
    };
    if (signal?.aborted) giveUp();
    signal?.addEventListener("abort", giveUp);
    if (this.closed) return;
    this.closed = true;
    if (this.renewer !== undefined) clearInterval(this.renewer);
    this.renewer = undefined;
    this.unwritten.clear();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const lapsed = new Promise<"lapsed">((resolve) => {
      timer = setTimeout(resolve, this.leaseMs, "lapsed");
      (timer as { unref?: () => void }).unref?.(); // the process may exit meanwhile: the leases lapse anyway
    });
    try {
      const retiring = (async () => {
        // A claim in flight lands first, so its shard is retired with the rest.
        await Promise.allSettled([...this.inFlight]);
        this.leases.clear();
        if (this.client === undefined) return;
        const touched = [...this.shards.values()].filter((shard) => shard.touched);
        await Promise.allSettled(touched.map((shard) => this.eval(RETIRE, shard)));
      })();
      if ((await Promise.race([retiring, lapsed])) === "lapsed") {
        this.log.warn("redisStore: Redis did not answer while closing; the leases lapse by themselves");
        giveUp();
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", giveUp);
    }
    this.gone = true;
    const own = this.own;
    this.own = undefined;
    await own?.close();
  }

  private async connect(): Promise<void> {
    if (this.options.client !== undefined) {
      await ensureLayout(this.options.client, this.prefix, this.log);
      this.client = this.options.client;
      return;
    }
    const { createClient } = await import("redis");
    let connected = false;
    const client = createClient({
      url: this.options.url,
      // The first connection is not retried (connect() would never settle); a dropped one is, with backoff.
      socket: { reconnectStrategy: (retries, cause) => (connected ? Math.min(50 * retries, 2000) : cause) },
    });
    client.on("error", (error: unknown) => this.log.warn("redisStore: connection error", error));
    try {
      await client.connect();
      connected = true;
      await ensureLayout(client as unknown as RedisLike, this.prefix, this.log);
    } catch (error) {
      if (client.isOpen) client.destroy();
      throw error;
    }
    this.client = client as unknown as RedisLike;
    this.own = client;
  }

  /** Runs a shard script with the caller's owner id and lease first among its arguments; refused once closed. */
  private async script(script: string, shard: Shard, ...args: string[]): Promise<unknown> {
    await this.connected();
    if (this.closed) throw new TaskStoreError("redisStore: the store is closed");
    const answer = this.eval(script, shard, ...args);
    this.inFlight.add(answer);
    try {
      return await answer;
    } finally {
      this.inFlight.delete(answer);
    }
  }

  private async eval(script: string, shard: Shard, ...args: string[]): Promise<unknown> {
    if (this.gone) throw new TaskStoreError("redisStore: the store is closed");
    const answer = await (this.client as RedisLike).eval(script, {
      keys: shard.keys,
      arguments: [this.me, String(this.leaseMs), ...args],
    });
    if (script !== REMOVE && script !== RELEASE && script !== VERIFY) shard.touched = true;
    return answer;
  }

  private register(server: string): Promise<unknown> {
    let registering = this.registered.get(server);
    if (registering === undefined) {
      registering = this.connected().then(() =>
        (this.client as RedisLike).eval(REGISTER_SERVER, {
          keys: [`${this.prefix}:servers`],
          arguments: [server],
        }),
      );
      registering.catch(() => this.registered.delete(server));
      this.registered.set(server, registering);
    }
    return registering;
  }

  private shard(server: string, taskId: string): Shard {
    return this.shardAt(server, shardOf(taskId));
  }

  private shardAt(server: string, index: number): Shard {
    const name = `${server}:${index}`;
    let shard = this.shards.get(name);
    if (shard === undefined) {
      shard = {
        keys: shardKeys(this.prefix, server, index),
        held: 0,
        touched: false,
        fresh: 0,
        checking: undefined,
      };
      this.shards.set(name, shard);
    }
    return shard;
  }

  private read(text: string): TaskRef | undefined {
    try {
      return readTaskRef(JSON.parse(text));
    } catch (error) {
      this.log.warn(`redisStore: dropping an unreadable ref`, error);
      return undefined;
    }
  }

  private hold(key: string, ref: TaskRef, shard: Shard): void {
    if (this.closed) return; // a claim that landed after close(): its lease lapses by itself
    if (!this.leases.has(key)) shard.held++;
    this.leases.set(key, { ref, shard });
    if (this.renewer !== undefined) return;
    this.renewer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.leaseMs / 3)));
    (this.renewer as { unref?: () => void }).unref?.();
  }

  /** Stops holding the task of `key` here, once its release or removal is written. */
  private drop(key: string): void {
    const held = this.leases.get(key);
    if (held === undefined) return;
    this.leases.delete(key);
    held.shard.held--;
  }

  /** One renewal per shard holding tasks of this worker, whatever their number. */
  private async renew(): Promise<void> {
    if (this.client === undefined || this.closed) return;
    await Promise.all(
      [...this.unwritten.values()].map(({ ref, script, args }) =>
        this.letGo(ref, script, ...args).catch((error: unknown) =>
          this.log.warn("redisStore: handing back a task failed again; trying again", error),
        ),
      ),
    );
    const holding = [...this.shards.values()].filter((shard) => shard.held > 0);
    await Promise.all(
      holding.map(async (shard) => {
        const before = shard.held;
        const at = performance.now();
        try {
          this.renewed(shard, await this.script(RENEW, shard), before, at);
        } catch (error) {
          this.log.warn("redisStore: renewing leases failed; trying again", error);
        }
      }),
    );
  }

  /**
   * After a script renewed this worker's lease in `shard`: when the lease had ended (or was forgotten, while
   * this worker held tasks there), others may have taken some of them; find out which, and only then count the
   * lease as surely running. A script answered meanwhile finds it running only because that one renewed it.
   */
  private renewed(shard: Shard, state: unknown, heldBefore: number, at: number): void {
    if (state === 2 || (state === 0 && heldBefore > 0)) {
      const checking: Promise<void> = this.verify(shard)
        .then(() => void (shard.fresh = Math.max(shard.fresh, at + this.leaseMs)))
        .catch((error: unknown) =>
          this.log.warn("redisStore: checking which leases are still held failed", error),
        )
        .finally(() => {
          if (shard.checking === checking) shard.checking = undefined;
        });
      shard.checking = checking;
    } else if (shard.checking === undefined) shard.fresh = Math.max(shard.fresh, at + this.leaseMs);
  }

  /**
   * Fencing: undefined while this worker's lease on the task surely runs (by its own monotonic clock) and the
   * snapshot is not the task's `last` word; else renews the lease and checks that the task is still this
   * worker's, resolving false (the task dropped as lost, listeners told) when another worker took it meanwhile.
   * The last word always asks Redis: a report made by the worker's clock alone while Redis is frozen would be
   * followed by a removal that lands after the lease lapsed, behind another worker's adoption, and that worker
   * would report the task again.
   */
  fence(ref: TaskRef, last = false): Promise<boolean> | undefined {
    const key = refKey(ref);
    const held = this.leases.get(key);
    const { shard } = held ?? {};
    if (shard === undefined) return undefined;
    if (!last && shard.checking === undefined && performance.now() < shard.fresh) return undefined;
    return (async () => {
      const before = shard.held;
      const at = performance.now();
      const [state, owned] = (await this.script(CONFIRM, shard, ref.taskId)) as [number, number];
      // A lease that had ended: others may have taken any task of the shard, so all are checked.
      this.renewed(shard, state, before, at);
      if (owned !== 1) {
        const now = this.leases.get(key); // a newer version of the ref may have replaced `held`
        if (now !== undefined) this.lose(key, now);
      }
      await shard.checking;
      return this.leases.has(key);
    })();
  }

  private async verify(shard: Shard): Promise<void> {
    if (this.closed) return;
    const mine = [...this.leases].filter(([, held]) => held.shard === shard);
    for (let first = 0; first < mine.length; first += VERIFY_BATCH) {
      const batch = mine.slice(first, first + VERIFY_BATCH);
      const ids = batch.map(([, held]) => held.ref.taskId);
      const owned = (await this.script(VERIFY, shard, ...ids)) as number[];
      batch.forEach(([key, held], index) => {
        if (owned[index] !== 1 && this.leases.get(key) === held) this.lose(key, held);
      });
    }
  }

  private lose(key: string, held: { ref: TaskRef; shard: Shard }): void {
    this.leases.delete(key);
    this.unwritten.delete(key);
    held.shard.held--;
    this.log.warn("redisStore: lost the lease of a task; another worker follows it now");
    for (const listener of this.lost) listener(held.ref);
  }
}
