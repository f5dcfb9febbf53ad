/**
 * What `redisStore` promises, proven against a real Redis: redis.test.ts runs these on one node,
 * redis-cluster.test.ts on a 3-node Redis Cluster. Leases keep a task with one owner, a stalled owner hears it
 * lost its tasks, expired refs are pruned, refs of the previous key layout are moved, and the cost of renewing
 * and of adopting stays with the shards and the lapsed tasks, not with the refs stored (counted in commands the
 * Redis nodes ran, scripts' inner commands included).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "redis";
import type { TaskRef } from "mcp-tasks";
import { LeaseLostError, redisStore, type RedisLike, type RedisTaskStore } from "mcp-tasks/store/redis";

export interface RedisTarget {
  /** A connected client shared by every store of the suite (not closed by them). */
  client: RedisLike;
  /** Every node's URL, to count the commands they ran. */
  nodes: string[];
}

const server = { url: "http://127.0.0.1:9/mcp", protocolVersion: "2026-07-28" };
export function ref(taskId: string, fields: Partial<TaskRef> = {}): TaskRef {
  return { v: 1, taskId, server, method: "tools/call", toolName: "t", answeredInputKeys: [], ...fields };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Commands run by every node since the last call (scripts' inner commands included). */
async function commandCounter(
  nodes: string[],
): Promise<{ delta(): Promise<number>; close(): Promise<void> }> {
  const clients = await Promise.all(nodes.map((url) => createClient({ url }).connect()));
  const total = async () => {
    let sum = 0;
    for (const client of clients) {
      const info = await client.info("stats");
      sum += Number(/total_commands_processed:(\d+)/.exec(info)?.[1]);
    }
    return sum;
  };
  let last = await total();
  return {
    delta: async () => {
      const now = await total();
      const delta = now - last - clients.length; // less the INFO commands themselves
      last = now;
      return delta;
    },
    close: async () => void (await Promise.all(clients.map((client) => client.close()))),
  };
}

export function describeRedisStore(where: string, target: () => RedisTarget): void {
  let prefixes = 0;
  const stores: RedisTaskStore[] = [];
  /** A store over the shared client (or over `client`), with a prefix of its test. */
  const make = (prefix: string, owner: string, leaseMs = 300, client?: RedisLike) => {
    const store = redisStore({
      client: client ?? target().client,
      prefix,
      owner,
      leaseMs,
      logger: { warn: () => undefined },
    });
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  describe(`redisStore on ${where}`, () => {
    it("the writer owns a task; nobody else can claim or overwrite it while the lease is renewed", async () => {
      const prefix = `own-${++prefixes}`;
      const a = make(prefix, "a");
      const b = make(prefix, "b");
      await a.put(ref("t1"));
      expect(await b.list(server)).toEqual([ref("t1")]);
      expect(await b.claim(ref("t1"))).toBeUndefined();
      await expect(b.put(ref("t1"))).rejects.toThrow(LeaseLostError);
      await pause(700); // past the lease: renewals keep it
      expect(await b.claim(ref("t1"))).toBeUndefined();
      expect(await b.claimLapsed(server)).toEqual([]);
      await a.put(ref("t1", { answeredInputKeys: ["q"] }));
      await a.close();
      // Closing hands the lease back: the next claim gets the latest ref, answered keys included.
      expect(await b.claim(ref("t1"))).toEqual(ref("t1", { answeredInputKeys: ["q"] }));
      await b.remove(ref("t1"));
      expect(await b.list(server)).toEqual([]);
      await b.close();
    });

    it("a worker that stalled past its lease hears which tasks were taken meanwhile; expired refs are pruned", async () => {
      const prefix = `stall-${++prefixes}`;
      let stalled = false;
      const shared = target().client;
      const stalling: RedisLike = {
        eval: (script, options) =>
          stalled ? Promise.reject(new Error("stalled")) : shared.eval(script, options),
      };
      const c = make(prefix, "c", 200, stalling);
      const lost: string[] = [];
      c.onLeaseLost((gone) => lost.push(gone.taskId));
      for (const id of ["t1", "t2", "t3", "t4"]) await c.put(ref(id));
      stalled = true;
      await pause(400);
      const other = make(prefix, "other", 200);
      expect(await other.claim(ref("t2"))).toEqual(ref("t2"));
      stalled = false;
      for (let tries = 0; tries < 50 && lost.length === 0; tries++) await pause(20);
      await pause(100);
      expect(lost).toEqual(["t2"]);
      expect(c.held).toBe(3);
      expect(await other.claimLapsed(server)).toEqual([]); // c's lease runs again over the rest
      await other.put(ref("old", { createdAt: new Date(0).toISOString(), ttlMs: 1 }));
      expect((await other.list()).map((found) => found.taskId)).not.toContain("old");
      await Promise.all([c.close(), other.close()]);
    });

    it("a worker that wakes after another finished its task cannot write the ref back, nor over another's lease", async () => {
      const prefix = `late-${++prefixes}`;
      let stalled = false;
      const shared = target().client;
      const stalling: RedisLike = {
        eval: (script, options) =>
          stalled ? Promise.reject(new Error("stalled")) : shared.eval(script, options),
      };
      const late = make(prefix, "late", 200, stalling);
      await late.put(ref("t1"));
      await late.put(ref("t2"));
      stalled = true;
      await pause(400); // past the lease: another worker adopts both
      const other = make(prefix, "other", 200);
      expect((await other.claimLapsed(server)).map((found) => found.taskId).sort()).toEqual(["t1", "t2"]);
      await other.remove(ref("t1")); // finished there
      stalled = false;
      // The late worker's input answers: refused, the removed ref stays removed, the other's ref is untouched.
      await expect(late.update(ref("t1", { answeredInputKeys: ["q"] }))).rejects.toThrow(LeaseLostError);
      await expect(late.update(ref("t2", { answeredInputKeys: ["q"] }))).rejects.toThrow(LeaseLostError);
      expect(await other.list(server)).toEqual([ref("t2")]);
      // The worker that holds the lease updates its ref.
      await other.update(ref("t2", { answeredInputKeys: ["a"] }));
      expect(await other.list(server)).toEqual([ref("t2", { answeredInputKeys: ["a"] })]);
      await Promise.all([late.close(), other.close()]);
    });

    it("refs written by the previous key layout move into the current one, and any worker adopts them", async () => {
      const prefix = `legacy-${++prefixes}`;
      const raw = target().client;
      const legacy = ["l1", "l2", "l3"].map((id) => ref(id, { answeredInputKeys: [`${id}-q`] }));
      for (const old of legacy) {
        const field = `${new URL(server.url).href}\n${old.taskId}`;
        await raw.eval(`return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])`, {
          keys: [`${prefix}:refs`],
          arguments: [field, JSON.stringify(old)],
        });
      }
      const adopter = make(prefix, "adopter");
      const taken = await adopter.claimLapsed(server);
      expect(taken.sort((x, y) => x.taskId.localeCompare(y.taskId))).toEqual(legacy);
      const left = await raw.eval(`return redis.call('EXISTS', KEYS[1])`, {
        keys: [`${prefix}:refs`],
        arguments: [],
      });
      expect(left).toBe(0);
      expect(
        await raw.eval(`return redis.call('GET', KEYS[1])`, { keys: [`${prefix}:layout`], arguments: [] }),
      ).toBe("2");
      await adopter.close();
    });

    it("renewing 2,000 leases costs a few commands per shard, and adopting 5 lapsed tasks among them costs what 5 cost", async () => {
      const prefix = `scale-${++prefixes}`;
      const counter = await commandCounter(target().nodes);
      try {
        const live = make(prefix, "live", 3000);
        const dying = make(prefix, "dying", 3000);
        await Promise.all(Array.from({ length: 2000 }, (_, index) => live.put(ref(`live-${index}`))));
        await Promise.all(Array.from({ length: 5 }, (_, index) => dying.put(ref(`dying-${index}`))));
        await counter.delta();
        await pause(1100); // one renewal round of each (every second)
        const renewing = await counter.delta();
        // Two workers, at most 16 shards each, four commands per script, one or two rounds in the window (one
        // command per lease would be 2,005 a round).
        expect(renewing).toBeLessThan(300);

        await dying.close(); // its lease ends now
        await counter.delta();
        const adopter = make(prefix, "adopter", 3000);
        const taken = await adopter.claimLapsed(server);
        const adopting = await counter.delta();
        expect(taken.map((found) => found.taskId).sort()).toEqual([
          "dying-0",
          "dying-1",
          "dying-2",
          "dying-3",
          "dying-4",
        ]);
        // 16 scripts of a few commands, plus a few per task taken: not one per stored ref (2,005 here).
        expect(adopting).toBeLessThan(200);
        await Promise.all([live.close(), adopter.close()]);
      } finally {
        await counter.close();
      }
    });
  });
}
