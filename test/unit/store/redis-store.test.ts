/**
 * `redisStore` leases on a fake clock (fake-redis.ts carries out the store's scripts): renewal keeps a task
 * with its owner at one script per shard, a stalled owner loses it to whoever claims it and hears so, a lapsed
 * lease nobody took is simply kept, `claim` and `claimLapsed` take only what nobody holds, and `release` hands
 * a lease back at once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TaskRef } from "mcp-tasks";
import { LeaseLostError } from "mcp-tasks/store";
import { redisStore, type RedisLike, type RedisTaskStore } from "mcp-tasks/store/redis";
import { FakeRedis } from "./fake-redis.js";
import { shardOf } from "../../../src/store/redis-layout.js";
import { VERIFY } from "../../../src/store/redis-scripts.js";

const server = { url: "http://127.0.0.1:9/mcp", protocolVersion: "2026-07-28" };
const elsewhere = { url: "http://127.0.0.1:10/mcp", protocolVersion: "2026-07-28" };
function ref(taskId: string, fields: Partial<TaskRef> = {}): TaskRef {
  return { v: 1, taskId, server, method: "tools/call", toolName: "t", answeredInputKeys: [], ...fields };
}

const LEASE_MS = 300; // renewed every 100 ms
let redis: FakeRedis;
const stores: RedisTaskStore[] = [];
function worker(owner: string): RedisTaskStore {
  const store = redisStore({ client: redis, owner, leaseMs: LEASE_MS, logger: { warn: () => undefined } });
  stores.push(store);
  return store;
}

beforeEach(() => {
  vi.useFakeTimers();
  redis = new FakeRedis();
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  vi.useRealTimers();
});

describe("redisStore leases", () => {
  it("the writer owns a task and renews its lease every third of it, for as long as it lives", async () => {
    const a = worker("a");
    const b = worker("b");
    await a.put(ref("t1"));
    expect(a.held).toBe(1);
    await vi.advanceTimersByTimeAsync(10_000); // 33 lease times
    expect(redis.calls.filter((call) => call === "RENEW")).toHaveLength(100);
    expect(await b.claim(ref("t1"))).toBeUndefined();
    expect(await b.claimLapsed(server)).toEqual([]);
    await expect(b.put(ref("t1"))).rejects.toThrow(LeaseLostError);
  });

  it("an owner that stops renewing loses the task to the first claim after the lease, and hears so", async () => {
    const a = worker("a");
    const b = worker("b");
    const lost: string[] = [];
    a.onLeaseLost((gone) => lost.push(gone.taskId));
    await a.put(ref("t1", { answeredInputKeys: ["q"] }));
    redis.fault = (name) => (name === "RENEW" ? new Error("stalled") : undefined);
    await vi.advanceTimersByTimeAsync(LEASE_MS - 1);
    expect(await b.claimLapsed(server)).toEqual([]); // not yet: the lease has a millisecond left
    await vi.advanceTimersByTimeAsync(1);
    expect(await b.claimLapsed(server)).toEqual([ref("t1", { answeredInputKeys: ["q"] })]);
    expect(lost).toEqual([]);
    redis.fault = undefined;
    await vi.advanceTimersByTimeAsync(100); // a's next renewal finds b there
    expect(lost).toEqual(["t1"]);
    expect(a.held).toBe(0);
    expect(b.held).toBe(1);
    await expect(a.put(ref("t1"))).rejects.toThrow(LeaseLostError);
  });

  it("a lease that lapsed while its owner stalled, and that nobody took, is simply kept", async () => {
    const a = worker("a");
    const b = worker("b");
    const lost = vi.fn();
    a.onLeaseLost(lost);
    await a.put(ref("t1"));
    redis.fault = (name) => (name === "RENEW" ? new Error("stalled") : undefined);
    await vi.advanceTimersByTimeAsync(2 * LEASE_MS);
    expect(redis.running()).toEqual([]); // lapsed
    redis.fault = undefined;
    await vi.advanceTimersByTimeAsync(100);
    expect(lost).not.toHaveBeenCalled();
    expect(redis.running()).toEqual(["a"]);
    expect(await b.claim(ref("t1"))).toBeUndefined();
  });

  it("claim takes only a lease nobody holds, answers the latest ref, and the claimant renews it", async () => {
    const a = worker("a");
    const b = worker("b");
    expect(await b.claim(ref("never-stored"))).toBeUndefined();
    await a.put(ref("t1"));
    await a.put(ref("t1", { answeredInputKeys: ["q"] }));
    expect(await b.claim(ref("t1"))).toBeUndefined();
    await a.close(); // hands every lease back
    expect(await b.claim(ref("t1"))).toEqual(ref("t1", { answeredInputKeys: ["q"] }));
    await vi.advanceTimersByTimeAsync(5 * LEASE_MS);
    expect(redis.running()).toEqual(["b"]);
    expect(redis.owners()).toEqual({ t1: "b" });
    expect(await worker("c").claim(ref("t1"))).toBeUndefined();
  });

  it("claimLapsed takes one server's unheld refs with one script per shard, prunes expired ones, skips the rest", async () => {
    const a = worker("a");
    const b = worker("b");
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    await a.put(ref("held"));
    await a.put(ref("free"));
    await a.put(ref("expired", { createdAt: old, ttlMs: 1000 }));
    await a.put(ref("other-server", { server: elsewhere }));
    await a.close();
    await worker("c").put(ref("held")); // someone else follows this one now
    redis.calls.length = 0;
    const taken = await b.claimLapsed(server);
    expect(taken.map((found) => found.taskId).sort()).toEqual(["free"]);
    expect(redis.calls.filter((call) => call === "CLAIM_LAPSED")).toHaveLength(16);
    expect((await b.list()).map((found) => found.taskId).sort()).toEqual(["free", "held", "other-server"]);
  });

  it("release hands the lease back at once and keeps the ref; the releaser stops renewing it", async () => {
    const a = worker("a");
    const b = worker("b");
    const lost = vi.fn();
    a.onLeaseLost(lost);
    await a.put(ref("t1"));
    await a.release(ref("t1"));
    expect(a.held).toBe(0);
    expect(await b.claim(ref("t1"))).toEqual(ref("t1"));
    await vi.advanceTimersByTimeAsync(5 * LEASE_MS);
    expect(lost).not.toHaveBeenCalled(); // it let go: nothing to lose
    expect(redis.owners()).toEqual({ t1: "b" });
    expect(redis.running()).toEqual(["b"]);
  });

  it("release by a worker that no longer holds the lease leaves the new owner's lease alone", async () => {
    const a = worker("a");
    const b = worker("b");
    await a.put(ref("t1"));
    redis.fault = (name) => (name === "RENEW" ? new Error("stalled") : undefined);
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(await b.claimLapsed(server)).toHaveLength(1);
    redis.fault = undefined;
    await a.release(ref("t1"));
    expect(redis.owners()).toEqual({ t1: "b" });
  });

  it("remove deletes the ref and its lease; a lease holder's remove is refused to others", async () => {
    const a = worker("a");
    const b = worker("b");
    await a.put(ref("t1"));
    await b.remove(ref("t1")); // not b's: nothing happens
    expect((await b.list()).map((found) => found.taskId)).toEqual(["t1"]);
    await a.remove(ref("t1"));
    expect(await b.list()).toEqual([]);
    expect(redis.owners()).toEqual({});
  });
});

describe("redisStore at scale", () => {
  it("renews every lease of a worker with one script per shard it holds tasks in, however many tasks", async () => {
    const a = worker("a");
    for (let index = 0; index < 1000; index++) await a.put(ref(`t${index}`));
    redis.calls.length = 0;
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3); // one renewal round
    expect(redis.calls).toEqual(Array.from({ length: 16 }, () => "RENEW"));
    await vi.advanceTimersByTimeAsync(10 * LEASE_MS);
    expect(await worker("b").claimLapsed(server)).toEqual([]);
    expect(a.held).toBe(1000);
  });

  it("a worker stalled past its lease hears of exactly the tasks others took meanwhile, and keeps the rest", async () => {
    const a = worker("a");
    const lost: string[] = [];
    a.onLeaseLost((gone) => lost.push(gone.taskId));
    for (let index = 0; index < 40; index++) await a.put(ref(`t${index}`));
    redis.fault = (name) => (name === "RENEW" ? new Error("stalled") : undefined);
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    const b = worker("b");
    const taken = [await b.claim(ref("t3")), await b.claim(ref("t17"))].map((found) => found?.taskId);
    expect(taken).toEqual(["t3", "t17"]);
    redis.fault = undefined;
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3);
    expect(lost.sort()).toEqual(["t17", "t3"]);
    expect(a.held).toBe(38);
    expect(await b.claimLapsed(server)).toEqual([]); // a's lease runs again over the other 38
    await expect(a.put(ref("t3"))).rejects.toThrow(LeaseLostError);
  });

  it("a worker restarted under the same name claims its predecessor's tasks at once; another name waits for the lease", async () => {
    let dead = false;
    const connection: RedisLike = {
      eval: (script, options) => (dead ? Promise.reject(new Error("dead")) : redis.eval(script, options)),
    };
    const first = redisStore({
      client: connection,
      owner: "w",
      leaseMs: LEASE_MS,
      logger: { warn: () => {} },
    });
    stores.push(first);
    await first.put(ref("t1"));
    await first.put(ref("t2"));
    dead = true; // the process dies without closing: its lease runs on for LEASE_MS
    expect(await worker("x").claim(ref("t1"))).toBeUndefined();
    const again = worker("w");
    expect(await again.claim(ref("t1"))).toEqual(ref("t1"));
    expect(await worker("x").claimLapsed(server)).toEqual([]);
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    // The predecessor's lease ended: t2, which nobody claimed, goes to whoever adopts first.
    expect((await worker("x").claimLapsed(server)).map((found) => found.taskId)).toEqual(["t2"]);
    expect(redis.owners()).toEqual({ t1: "w", t2: "x" });
  });

  it("a closed store refuses writes and runs no timer; open() starts it again", async () => {
    const a = worker("a");
    await a.put(ref("t1"));
    await a.close();
    expect(vi.getTimerCount()).toBe(0);
    await expect(a.put(ref("t2"))).rejects.toThrow(/closed/);
    expect(await worker("b").claim(ref("t1"))).toEqual(ref("t1")); // handed back by the close
    await a.open?.();
    await a.put(ref("t3"));
    expect(a.held).toBe(1);
    expect(redis.owners()).toMatchObject({ t3: "a" });
  });

  it("a close() that gave up on a frozen Redis sends nothing afterwards, not even what was queued", async () => {
    let sent = 0;
    let frozen = false;
    const queued: (() => void)[] = [];
    const client: RedisLike = {
      eval: (script, options) => {
        sent++;
        if (!frozen) return redis.eval(script, options);
        return new Promise((resolve) => queued.push(() => resolve(redis.eval(script, options))));
      },
    };
    const a = redisStore({ client, owner: "a", leaseMs: LEASE_MS, logger: { warn: () => undefined } });
    await a.put(ref("t1"));
    frozen = true;
    const releasing = a.release(ref("t1")).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(0); // sent, unanswered: Redis is frozen
    const closing = a.close();
    await vi.advanceTimersByTimeAsync(LEASE_MS); // close() stops waiting: the lease lapses by itself
    await closing;
    const atClose = sent;
    frozen = false;
    for (const thaw of queued.splice(0)) thaw(); // Redis wakes and answers the release
    await releasing;
    await vi.advanceTimersByTimeAsync(10 * LEASE_MS);
    expect(sent).toBe(atClose);
  });

  it("fencing: a worker past its lease deadline renews before acting, and drops a task taken meanwhile as lost", async () => {
    const a = worker("a");
    const lost: string[] = [];
    a.onLeaseLost((found) => lost.push(found.taskId));
    await a.put(ref("t1"));
    await a.put(ref("t2", { server: elsewhere }));
    expect(a.fence(ref("t1"))).toBeUndefined(); // renewed just now: act at once
    redis.fault = (name) => (name === "RENEW" ? new Error("stalled") : undefined);
    await vi.advanceTimersByTimeAsync(LEASE_MS); // a's renewals fail: its deadline passes
    expect(await worker("b").claim(ref("t1"))).toEqual(ref("t1"));
    redis.fault = undefined;
    // a wakes before its next renewal: it must not report t1, which b follows now.
    const fencing = a.fence(ref("t1"));
    expect(fencing).toBeInstanceOf(Promise);
    expect(await fencing).toBe(false);
    expect(lost).toEqual(["t1"]);
    expect(a.held).toBe(1);
    const fencing2 = a.fence(ref("t2", { server: elsewhere }));
    await a.put(ref("t2", { server: elsewhere, answeredInputKeys: ["k"] })); // a newer version meanwhile
    expect(await fencing2).toBe(true); // nobody took it: renewed, still a's
    expect(a.fence(ref("t2", { server: elsewhere }))).toBeUndefined();
  });

  it("fencing a task's last word always asks Redis, even while the lease surely runs by the worker's clock", async () => {
    const a = worker("a");
    const lost: string[] = [];
    a.onLeaseLost((found) => lost.push(found.taskId));
    await a.put(ref("t1"));
    await a.put(ref("t2"));
    expect(a.fence(ref("t1"))).toBeUndefined(); // renewed just now: a snapshot that is not the last is acted on
    const calls = redis.calls.length;
    expect(await a.fence(ref("t1"), true)).toBe(true);
    expect(redis.calls.slice(calls)).toEqual(["CONFIRM"]); // one script, whatever the shard holds
    // Another incarnation of a's name took t2 (a restarted worker may): a's clock says its lease runs, Redis not.
    expect(await worker("a").claim(ref("t2"))).toEqual(ref("t2"));
    expect(a.fence(ref("t2"))).toBeUndefined();
    expect(await a.fence(ref("t2"), true)).toBe(false);
    expect(lost).toEqual(["t2"]);
    expect(a.held).toBe(1);
  });

  it("after its lease lapsed, a worker acts on no task of the shard by its own clock until it knows which are its own", async () => {
    // Two tasks in one shard: x is taken by another worker while a stalls, y stays a's.
    const ids = Array.from({ length: 100 }, (_, index) => `t${String(index)}`);
    const x = ids[0] as string;
    const y = ids.find((id) => id !== x && shardOf(id) === shardOf(x)) as string;
    let open: (() => void) | undefined;
    let slow = false;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const client: RedisLike = {
      eval: async (script, options) => {
        if (script === VERIFY && slow) await gate; // the check of the shard is slow
        return redis.eval(script, options);
      },
    };
    const a = redisStore({ client, owner: "a", leaseMs: LEASE_MS, logger: { warn: () => undefined } });
    stores.push(a);
    await a.put(ref(x));
    await a.put(ref(y));
    redis.fault = (name) => (name === "RENEW" ? new Error("stalled") : undefined);
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(await worker("b").claim(ref(x))).toEqual(ref(x));
    redis.fault = undefined;
    slow = true;
    // a wakes: its first script finds the lease ended (and renews it), so the shard's tasks are checked...
    const first = a.fence(ref(y));
    await vi.advanceTimersByTimeAsync(0);
    // ...and one answered meanwhile finds the lease running, only because the first renewed it.
    await a.update(ref(y, { answeredInputKeys: ["k"] }));
    const second = a.fence(ref(x));
    expect(second).toBeInstanceOf(Promise); // x is b's now: a must not act on it by its clock
    open?.();
    expect(await first).toBe(true);
    expect(await second).toBe(false);
    expect(a.fence(ref(y))).toBeUndefined(); // checked: the lease surely runs again
  });

  it("an adoption round that fails in one shard still hands over what the other shards took", async () => {
    const gone = worker("gone");
    await gone.put(ref("t1"));
    await gone.put(ref("t2"));
    redis.lapse("gone");
    const taken = new Set([shardOf("t1"), shardOf("t2")]);
    const failing = [...Array(16).keys()].find((index) => !taken.has(index)) as number;
    let round = 0;
    // The connection drops while one shard's script is out (a Redis restart): the others were answered.
    redis.fault = (name) =>
      name === "CLAIM_LAPSED" && round++ === failing ? new Error("connection dropped") : undefined;
    const b = worker("b");
    const claimed = await b.claimLapsed(server);
    expect(claimed.map((found) => found.taskId).sort()).toEqual(["t1", "t2"]);
    expect(b.held).toBe(2); // each held lease has a ref the caller now follows (or hands back)
  });

  it("list(server) hands out only refs of exactly that server, and none to a server without an identity", async () => {
    const a = worker("a");
    const nameless = { protocolVersion: "2026-07-28" };
    await a.put(ref("t1"));
    await a.put(ref("t2", { server: nameless }));
    await a.put(ref("t3", { server: { name: "scripted", protocolVersion: "2026-07-28" } }));
    // A ref whose own server is not the one its keys were filed under (written by hand, or by another tool).
    const misfiled = ref("t4", { server: { name: "scripted", protocolVersion: "2026-07-28" } });
    const hash = [...redis.hashes].find(([key, refs]) => key.endsWith(":refs") && refs.has("t1"));
    hash?.[1].set("t4", JSON.stringify(misfiled));
    expect((await a.list(server)).map((found) => found.taskId)).toEqual(["t1"]);
    expect(await a.list(nameless)).toEqual([]);
    expect(
      (await a.list({ name: "scripted", protocolVersion: "2026-07-28" })).map((found) => found.taskId),
    ).toEqual(["t3"]);
    expect((await a.list()).map((found) => found.taskId).sort()).toEqual(["t1", "t2", "t3", "t4"]);
  });

  it("a failed release keeps the lease and is written again at the next renewal", async () => {
    const a = worker("a");
    await a.put(ref("t1"));
    redis.fault = (name) => (name === "RELEASE" ? new Error("Redis refused") : undefined);
    await expect(a.release(ref("t1"))).rejects.toThrow("Redis refused");
    expect(a.held).toBe(1); // not forgotten: still renewed, nobody else follows it meanwhile
    expect(await worker("b").claim(ref("t1"))).toBeUndefined();
    redis.fault = undefined;
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3);
    expect(a.held).toBe(0);
    expect(await worker("c").claim(ref("t1"))).toEqual(ref("t1"));
  });

  it("refuses an owner name with a line break", () => {
    expect(() => redisStore({ client: redis, owner: "a\nb" })).toThrow(TypeError);
  });
});
