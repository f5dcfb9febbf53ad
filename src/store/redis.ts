/**
 * `redisStore({ url })` (`mcp-tasks/store/redis`): refs shared by many workers, each live task owned through a
 * lease — a key with an expiry that only its owner renews. The worker that creates a task owns it from the
 * first write; `client.resume()` (or the client's adoption loop, `adopt: true`) claims only tasks whose lease
 * has lapsed, so a task is followed by one worker at a time and a dead worker's tasks move on within the lease
 * time. Answered input keys travel in the ref, so another worker never asks again. Needs the `redis` package.
 *
 * @module mcp-tasks/store/redis
 */
import { randomUUID } from "node:crypto";
import { LeaseLostError } from "../protocol/errors.js";
import { safeLogger, type Logger } from "../protocol/logging.js";
import { foreignServer, readTaskRef, type TaskRef } from "../task/ref.js";
import { DEFAULT_PRUNE_GRACE_MS, refExpired, refKey, serverKey, type TaskStore } from "./types.js";
import { CLAIM, CLAIM_LAPSED, PUT, RELEASE, REMOVE, RENEW } from "./redis-scripts.js";

/** A write refused because another worker holds the task's lease. */
export { LeaseLostError };

/** The few commands the store sends; a `redis` (node-redis) client fits. */
export interface RedisLike {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  hGetAll(key: string): Promise<Record<string, string>>;
  hDel(key: string, field: string): Promise<unknown>;
}

/** Options of `redisStore`: a `url` or a connected `client`, and the lease settings. */
export interface RedisStoreOptions {
  /** `redis://host:port`; a client is made with the `redis` package and closed with the store. */
  url?: string;
  /** A connected client to use instead (it is not closed by the store). */
  client?: RedisLike;
  /** Prefix of every key. Default `mcp-tasks`. */
  prefix?: string;
  /** How long a lease lasts without renewal. Default 10000; renewed every third of it. */
  leaseMs?: number;
  /** This worker's name in leases. Default: a random UUID. */
  owner?: string;
  logger?: Partial<Logger>;
  /** Allowance past `createdAt + ttlMs` before a stored ref is pruned. Default 60000. */
  pruneGraceMs?: number;
}

/** A `TaskStore` whose live tasks are each owned by one worker through a lease. */
export type RedisTaskStore = TaskStore & {
  /** Hands the task's lease back (if this worker still holds it) and keeps the ref: any worker may claim it. */
  release(ref: TaskRef): Promise<void>;
  /** Takes the task's lease when nobody holds it; resolves with the latest ref, or undefined. */
  claim(ref: TaskRef): Promise<TaskRef | undefined>;
  /** Takes the lease of every task of `server` whose owner stopped renewing it; resolves with their refs. */
  claimLapsed(server: TaskRef["server"]): Promise<TaskRef[]>;
  /** Called with the ref of a task whose lease this worker found no longer its own at renewal: another follows it. */
  onLeaseLost(listener: (ref: TaskRef) => void): void;
  /** Hands back every lease (other workers may adopt at once) and disconnects a client the store made. */
  close(): Promise<void>;
  /** This worker's name in leases. */
  readonly owner: string;
  /** Refs whose lease this worker holds. */
  readonly held: number;
};

/** A store in Redis shared by many workers, each live task followed by the one that holds its lease. */
export function redisStore(options: RedisStoreOptions): RedisTaskStore {
  return new RedisStore(options);
}

class RedisStore implements TaskStore {
  readonly owner: string;
  private readonly prefix: string;
  private readonly leaseMs: number;
  private readonly log: Logger;
  private readonly grace: number;
  private client: RedisLike | undefined;
  private own: { close(): Promise<unknown> } | undefined;
  private opening: Promise<void> | undefined;
  /** Leases this worker holds, by ref key. */
  private readonly leases = new Map<string, TaskRef>();
  private readonly lost = new Set<(ref: TaskRef) => void>();
  private renewer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: RedisStoreOptions) {
    if (options.url === undefined && options.client === undefined) {
      throw new TypeError("redisStore: give `url` or `client`");
    }
    this.owner = options.owner ?? randomUUID();
    this.prefix = options.prefix ?? "mcp-tasks";
    this.leaseMs = options.leaseMs ?? 10_000;
    this.log = safeLogger(options.logger);
    this.grace = options.pruneGraceMs ?? DEFAULT_PRUNE_GRACE_MS;
  }

  get held(): number {
    return this.leases.size;
  }

  /** Connects (with `url`). A failed connection is closed, and `open` may be tried again. */
  async open(): Promise<void> {
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
    const key = refKey(ref);
    const lease = String(this.leaseMs);
    const done = await this.script(
      PUT,
      [this.refs, this.lease(key)],
      [key, JSON.stringify(ref), this.owner, lease],
    );
    if (done !== 1) throw new LeaseLostError("redisStore: another worker holds this task's lease");
    this.hold(key, ref);
  }

  async remove(ref: TaskRef): Promise<void> {
    const key = refKey(ref);
    this.leases.delete(key);
    await this.script(REMOVE, [this.refs, this.lease(key)], [key, this.owner]);
  }

  /** Hands the task's lease back (if this worker still holds it) and keeps the ref: any worker may claim it now. */
  async release(ref: TaskRef): Promise<void> {
    const key = refKey(ref);
    this.leases.delete(key);
    await this.script(RELEASE, [this.lease(key)], [this.owner]);
  }

  async list(server?: TaskRef["server"]): Promise<TaskRef[]> {
    await this.open();
    const client = this.client as RedisLike;
    const found: TaskRef[] = [];
    const now = Date.now();
    for (const [key, text] of Object.entries(await client.hGetAll(this.refs))) {
      let ref: TaskRef;
      try {
        ref = readTaskRef(JSON.parse(text));
      } catch (error) {
        this.log.warn(`redisStore: dropping an unreadable ref`, error);
        await client.hDel(this.refs, key);
        continue;
      }
      if (refExpired(ref, now, this.grace)) await client.hDel(this.refs, key);
      else if (server === undefined || foreignServer(ref, server) === undefined) found.push(ref);
    }
    return found;
  }

  /** Takes the task's lease when nobody holds it; resolves with the latest ref, or undefined. */
  async claim(ref: TaskRef): Promise<TaskRef | undefined> {
    const key = refKey(ref);
    const lease = String(this.leaseMs);
    const text = await this.script(CLAIM, [this.refs, this.lease(key)], [key, this.owner, lease]);
    if (typeof text !== "string") return undefined;
    const latest = readTaskRef(JSON.parse(text));
    this.hold(key, latest);
    return latest;
  }

  async claimLapsed(server: TaskRef["server"]): Promise<TaskRef[]> {
    const prefix = `${serverKey(server)}\n`;
    const args = [prefix, this.owner, String(this.leaseMs), this.lease("")];
    const taken = (await this.script(CLAIM_LAPSED, [this.refs], args)) as string[];
    const claimed: TaskRef[] = [];
    const now = Date.now();
    for (let index = 0; index < taken.length; index += 2) {
      const key = taken[index] as string;
      let ref: TaskRef | undefined;
      try {
        ref = readTaskRef(JSON.parse(taken[index + 1] as string));
      } catch (error) {
        this.log.warn(`redisStore: dropping an unreadable ref`, error);
      }
      if (ref === undefined || refExpired(ref, now, this.grace)) {
        await this.script(REMOVE, [this.refs, this.lease(key)], [key, this.owner]);
      } else if (foreignServer(ref, server) !== undefined) {
        await this.script(RELEASE, [this.lease(key)], [this.owner]);
      } else {
        this.hold(key, ref);
        claimed.push(ref);
      }
    }
    return claimed;
  }

  onLeaseLost(listener: (ref: TaskRef) => void): void {
    this.lost.add(listener);
  }

  /** Hands back every lease (other workers may adopt at once) and disconnects a client the store made. */
  async close(): Promise<void> {
    if (this.renewer !== undefined) clearInterval(this.renewer);
    this.renewer = undefined;
    const client = this.client;
    if (client !== undefined) {
      const keys = [...this.leases.keys()];
      this.leases.clear();
      await Promise.allSettled(
        keys.map((key) => client.eval(RELEASE, { keys: [this.lease(key)], arguments: [this.owner] })),
      );
    }
    await this.own?.close();
    this.own = undefined;
  }

  private get refs(): string {
    return `${this.prefix}:refs`;
  }

  private lease(key: string): string {
    return `${this.prefix}:lease:${key}`;
  }

  private async connect(): Promise<void> {
    if (this.options.client !== undefined) {
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
    } catch (error) {
      if (client.isOpen) client.destroy();
      throw error;
    }
    connected = true;
    this.client = client as unknown as RedisLike;
    this.own = client;
  }

  private async script(script: string, keys: string[], args: string[]): Promise<unknown> {
    await this.open();
    return (this.client as RedisLike).eval(script, { keys, arguments: args });
  }

  private hold(key: string, ref: TaskRef): void {
    this.leases.set(key, ref);
    if (this.renewer !== undefined) return;
    this.renewer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.leaseMs / 3)));
    (this.renewer as { unref?: () => void }).unref?.();
  }

  private async renew(): Promise<void> {
    const client = this.client;
    const held = [...this.leases];
    if (client === undefined || held.length === 0) return;
    let kept: unknown;
    try {
      const keys = held.map(([key]) => this.lease(key));
      const fields = held.map(([key]) => key);
      kept = await client.eval(RENEW, {
        keys,
        arguments: [this.owner, String(this.leaseMs), this.refs, ...fields],
      });
    } catch (error) {
      this.log.warn("redisStore: renewing leases failed; trying again", error);
      return;
    }
    held.forEach(([key, ref], index) => {
      if ((kept as unknown[])[index] === 1 || !this.leases.has(key)) return;
      this.leases.delete(key);
      this.log.warn("redisStore: lost the lease of a task; another worker follows it now");
      for (const listener of this.lost) listener(ref);
    });
  }
}
