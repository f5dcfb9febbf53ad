/**
 * A `RedisLike` in memory for fake-timer tests of `redisStore`: the store's six Lua scripts (recognised by
 * identity) are carried out here in TypeScript, and keys expire on `Date.now()`, so vitest's fake clock drives
 * lease expiry. test/integration/store/redis.test.ts runs the real scripts on a real redis-server.
 */
import type { RedisLike } from "mcp-tasks/store/redis";
import { CLAIM, CLAIM_LAPSED, PUT, RELEASE, REMOVE, RENEW } from "../../../src/store/redis-scripts.js";

const names = new Map<string, string>([
  [PUT, "put"],
  [REMOVE, "remove"],
  [CLAIM, "claim"],
  [CLAIM_LAPSED, "claimLapsed"],
  [RENEW, "renew"],
  [RELEASE, "release"],
]);

export class FakeRedis implements RedisLike {
  readonly hashes = new Map<string, Map<string, string>>();
  private readonly strings = new Map<string, { value: string; expiresAt: number }>();
  /** Every script run, by name, in order. */
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

  hGetAll(key: string): Promise<Record<string, string>> {
    return Promise.resolve(Object.fromEntries(this.hashes.get(key) ?? []));
  }

  hDel(key: string, field: string): Promise<unknown> {
    return Promise.resolve(this.hashes.get(key)?.delete(field) ? 1 : 0);
  }

  /** The holder of a lease key, if it has not expired. */
  get(key: string): string | undefined {
    const entry = this.strings.get(key);
    if (entry === undefined) return undefined;
    if (Date.now() >= entry.expiresAt) {
      this.strings.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** SET key value PX ms (what another worker, or a test stealing a lease, does). */
  set(key: string, value: string, px: number): void {
    this.strings.set(key, { value, expiresAt: Date.now() + px });
  }

  /** Every unexpired lease key, with its holder. */
  leases(): Record<string, string> {
    const found: Record<string, string> = {};
    for (const key of [...this.strings.keys()]) {
      const holder = this.get(key);
      if (holder !== undefined) found[key] = holder;
    }
    return found;
  }

  private hash(key: string): Map<string, string> {
    let hash = this.hashes.get(key);
    if (hash === undefined) this.hashes.set(key, (hash = new Map()));
    return hash;
  }

  private run(name: string, keys: string[], args: string[]): unknown {
    const [k1 = "", k2 = ""] = keys;
    const [a1 = "", a2 = "", a3 = "", a4 = ""] = args;
    switch (name) {
      case "put": {
        const holder = this.get(k2);
        if (holder !== undefined && holder !== a3) return 0;
        this.set(k2, a3, Number(a4));
        this.hash(k1).set(a1, a2);
        return 1;
      }
      case "remove": {
        const holder = this.get(k2);
        if (holder !== undefined && holder !== a2) return 0;
        this.hash(k1).delete(a1);
        this.strings.delete(k2);
        return 1;
      }
      case "claim": {
        const ref = this.hash(k1).get(a1);
        if (ref === undefined) return null;
        const holder = this.get(k2);
        if (holder !== undefined && holder !== a2) return null;
        this.set(k2, a2, Number(a3));
        return ref;
      }
      case "claimLapsed": {
        const taken: string[] = [];
        for (const [field, ref] of this.hash(k1)) {
          if (!field.startsWith(a1)) continue;
          const lease = a4 + field;
          if (this.get(lease) !== undefined) continue;
          this.set(lease, a2, Number(a3));
          taken.push(field, ref);
        }
        return taken;
      }
      case "renew":
        return keys.map((key, index) => {
          const holder = this.get(key);
          if (holder === a1) {
            this.set(key, a1, Number(a2));
            return 1;
          }
          if (holder === undefined && this.hash(a3).has(args[3 + index] as string)) {
            this.set(key, a1, Number(a2));
            return 1;
          }
          return 0;
        });
      case "release":
        if (this.get(k1) !== a1) return 0;
        this.strings.delete(k1);
        return 1;
    }
    throw new Error(`FakeRedis: no script ${name}`);
  }
}
