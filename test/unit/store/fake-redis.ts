/**
 * A `RedisLike` in memory for fake-timer tests of `redisStore`: the store's Lua scripts (recognised by identity)
 * are carried out here in TypeScript, step for step, and Redis's clock is `Date.now()`, so vitest's fake clock
 * drives leases. test/integration/store/redis.test.ts runs the real scripts on a real redis-server and a real
 * Redis Cluster.
 */
import type { RedisLike } from "mcp-tasks/store/redis";
import * as scripts from "../../../src/store/redis-scripts.js";
import * as layout from "../../../src/store/redis-migrate.js";
import { INCARNATION_LENGTH } from "../../../src/store/redis-layout.js";

const names = new Map<string, string>([
  ...Object.entries(scripts).map(([name, text]) => [text as string, name] as [string, string]),
  ...Object.entries(layout)
    .filter(([, value]) => typeof value === "string")
    .map(([name, text]) => [text as string, `layout.${name}`] as [string, string]),
]);

type Hash = Map<string, string>;
type ZSet = Map<string, number>;

export class FakeRedis implements RedisLike {
  readonly hashes = new Map<string, Hash>();
  readonly zsets = new Map<string, ZSet>();
  readonly sets = new Map<string, Set<string>>();
  readonly strings = new Map<string, string>();
  /** Every script run, by name (PUT, RENEW, …), in order. */
  readonly calls: string[] = [];
  /** Makes a script fail (reject with the returned error) or hang (a promise that never settles). */
  fault: ((name: string) => Error | "hang" | undefined) | undefined;

  eval(script: string, { keys, arguments: args }: { keys: string[]; arguments: string[] }): Promise<unknown> {
    const name = names.get(script);
    if (name === undefined) return Promise.reject(new Error("FakeRedis: unknown script"));
    this.calls.push(name);
    const fault = this.fault?.(name);
    if (fault === "hang") return new Promise(() => undefined);
    if (fault !== undefined) return Promise.reject(fault);
    return Promise.resolve(this.run(name, keys, args));
  }

  /** The owner name (owner id without its incarnation) of every task that has one, by task id. */
  owners(): Record<string, string> {
    const found: Record<string, string> = {};
    for (const [key, hash] of this.hashes) {
      if (!key.endsWith(":owners")) continue;
      for (const [id, owner] of hash) found[id] = owner.slice(INCARNATION_LENGTH);
    }
    return found;
  }

  /** Owner names whose lease is running now, in any shard. */
  running(): string[] {
    const names = new Set<string>();
    for (const [key, zset] of this.zsets) {
      if (!key.endsWith(":alive")) continue;
      for (const [owner, ends] of zset) if (ends > Date.now()) names.add(owner.slice(INCARNATION_LENGTH));
    }
    return [...names].sort();
  }

  /** Ends the lease of every owner named `name`, as if it had stalled past it. */
  lapse(name: string): void {
    for (const [key, zset] of this.zsets) {
      if (!key.endsWith(":alive")) continue;
      for (const owner of zset.keys()) if (owner.slice(INCARNATION_LENGTH) === name) zset.set(owner, 0);
    }
  }

  private hash(key: string): Hash {
    let hash = this.hashes.get(key);
    if (hash === undefined) this.hashes.set(key, (hash = new Map()));
    return hash;
  }

  private zset(key: string): ZSet {
    let zset = this.zsets.get(key);
    if (zset === undefined) this.zsets.set(key, (zset = new Map()));
    return zset;
  }

  private run(name: string, keys: string[], args: string[]): unknown {
    if (name.startsWith("layout.")) return this.runLayout(name.slice("layout.".length), keys, args);
    if (name === "REGISTER_SERVER") {
      const set = this.sets.get(keys[0] as string) ?? new Set<string>();
      this.sets.set(keys[0] as string, set);
      return set.has(args[0] as string) ? 0 : (set.add(args[0] as string), 1);
    }
    if (name === "SERVERS") return [...(this.sets.get(keys[0] as string) ?? [])];
    if (name === "REFS") return [...this.hash(keys[0] as string)].flat();
    return this.runShard(name, keys, args);
  }

  private runLayout(name: string, keys: string[], args: string[]): unknown {
    const key = keys[0] as string;
    switch (name) {
      case "GET":
        return this.strings.get(key) ?? null;
      case "SET":
        this.strings.set(key, args[0] as string);
        return "OK";
      case "SET_NX":
      case "SET_NX_FOREVER":
        if (this.strings.has(key)) return null;
        this.strings.set(key, args[0] as string);
        return "OK";
      case "PEXPIRE":
        return 1;
      case "LENGTH":
        return this.hashes.get(key)?.size ?? 0;
      case "SCAN":
        return ["0", [...this.hash(key)].flat()];
      case "FORGET":
        for (const field of args) this.hash(key).delete(field);
        return args.length;
      case "PLACE": {
        const [refs, , held] = keys as [string, string, string, string];
        if (this.hash(refs).has(args[0] as string)) return 1;
        this.hash(refs).set(args[0] as string, args[1] as string);
        this.zset(held).set(`\n${args[0]}`, 0);
        return 1;
      }
    }
    throw new Error(`FakeRedis: no layout script ${name}`);
  }

  /** The shard scripts of redis-scripts.ts, line for line. */
  private runShard(name: string, keys: string[], args: string[]): unknown {
    const [refs, owners, held, alive] = [
      this.hash(keys[0] as string),
      this.hash(keys[1] as string),
      this.zset(keys[2] as string),
      this.zset(keys[3] as string),
    ];
    const now = Date.now();
    const [me = "", lease = "0", a3 = "", a4 = "", a5 = ""] = args;
    const running = (owner: string) => (alive.get(owner) ?? -Infinity) > now;
    const free = (owner: string | undefined) =>
      owner === undefined ||
      owner === me ||
      owner.slice(INCARNATION_LENGTH) === me.slice(INCARNATION_LENGTH) ||
      !running(owner);
    const renew = () => {
      const ends = alive.get(me);
      alive.set(me, now + Number(lease));
      return ends === undefined ? 0 : ends > now ? 1 : 2;
    };
    const take = (owner: string | undefined, id: string) => {
      if (owner === me) return;
      held.delete(`${owner ?? ""}\n${id}`);
      owners.set(id, me);
      held.set(`${me}\n${id}`, 0);
    };
    const ofOwner = (owner: string, limit: number) =>
      [...held.keys()]
        .filter((member) => member.startsWith(`${owner}\n`))
        .sort()
        .slice(0, limit);
    switch (name) {
      case "PUT": {
        const owner = owners.get(a3);
        if (a5 === "update" && (owner !== me || !refs.has(a3))) return -1;
        if (!free(owner)) return -1;
        const state = renew();
        refs.set(a3, a4);
        take(owner, a3);
        return state;
      }
      case "REMOVE": {
        const owner = owners.get(a3);
        if (a4 !== "force" && !free(owner)) return 0;
        refs.delete(a3);
        owners.delete(a3);
        held.delete(`${owner ?? ""}\n${a3}`);
        return 1;
      }
      case "RELEASE":
        if (owners.get(a3) !== me) return 0;
        owners.delete(a3);
        held.delete(`${me}\n${a3}`);
        if (refs.has(a3)) held.set(`\n${a3}`, 0);
        return 1;
      case "CLAIM": {
        const ref = refs.get(a3);
        if (ref === undefined) return [];
        const owner = owners.get(a3);
        if (!free(owner)) return [];
        const state = renew();
        take(owner, a3);
        return [state, ref];
      }
      case "CLAIM_LAPSED": {
        const most = Number(a3);
        const taken: string[] = [];
        let count = 0;
        let more = 0;
        const dead = [...alive]
          .filter(([, ends]) => ends <= now)
          .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, most)
          .map(([owner]) => owner);
        if (dead.length === most) more = 1;
        for (const owner of ["", ...dead]) {
          if (owner === me) continue;
          const room = most - count;
          if (room <= 0) {
            more = 1;
            break;
          }
          const members = ofOwner(owner, room);
          for (const member of members) {
            const id = member.slice(owner.length + 1);
            const ref = refs.get(id);
            if (ref !== undefined) {
              take(owner === "" ? undefined : owner, id);
              count++;
              taken.push(id, ref);
            } else {
              held.delete(member);
              owners.delete(id);
            }
          }
          if (members.length < room) {
            if (owner !== "") alive.delete(owner);
          } else {
            more = 1;
            break;
          }
        }
        const state = count > 0 ? renew() : 1;
        return [state, more, ...taken];
      }
      case "RENEW":
        return renew();
      case "CONFIRM": {
        const state = renew();
        return [state, owners.get(a3) === me ? 1 : 0];
      }
      case "VERIFY":
        return args.slice(2).map((id) => (owners.get(id) === me ? 1 : 0));
      case "RETIRE":
        if (ofOwner(me, 1).length > 0) alive.set(me, 0);
        else alive.delete(me);
        return 1;
    }
    throw new Error(`FakeRedis: no script ${name}`);
  }
}
