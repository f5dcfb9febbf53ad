/**
 * How `close()` ends a client with a lease store (src/run/ref-life.ts), on a fake clock against the scripted
 * server and `redisStore` over fake-redis.ts: a frozen store cannot hold `close()` past `closeTimeoutMs`, and a
 * claim that lands after `close()` began leaves no timer and no handle behind. The real-Redis cases are in
 * test/integration/store/ref-life.test.ts.
 */
import { describe, expect, it, vi } from "vitest";
import type { RedisLike } from "mcp-tasks/store/redis";
import { redisStore } from "mcp-tasks/store/redis";
import { FakeRedis } from "../store/fake-redis.js";
import { CLAIM_LAPSED } from "../../../src/store/redis-scripts.js";
import { ScriptedServer, TASK_ID, connect, frame, settledFlag, useFakeTime } from "./scripted-server.js";

useFakeTime();

const SERVER = { name: "scripted", version: "1.0.0", protocolVersion: "2026-07-28" };
const quiet = { warn: () => undefined, error: () => undefined };

/** A server whose task stays `working` (polled every 100 ms). */
function workingServer(): ScriptedServer {
  return new ScriptedServer({
    "tools/call": () => frame.created({ pollIntervalMs: 100 }),
    "tasks/get": () => frame.working({ pollIntervalMs: 100 }),
  });
}

describe("close() with Redis frozen", () => {
  it("resolves after closeTimeoutMs (default 5 s), however long the store's writes hang", async () => {
    const redis = new FakeRedis();
    const store = redisStore({ client: redis, owner: "me", leaseMs: 60_000, logger: quiet });
    const client = await connect(workingServer(), { store, logger: quiet });
    const handle = client.callTool("t");
    await vi.advanceTimersByTimeAsync(0);
    expect(handle.taskId).toBe(TASK_ID); // stored, reported
    redis.fault = () => "hang"; // Redis stops answering
    const closed = settledFlag(client.close());
    await vi.advanceTimersByTimeAsync(4999);
    expect(closed()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(closed()).toBe(true);
  });

  it("honours closeTimeoutMs", async () => {
    const redis = new FakeRedis();
    const store = redisStore({ client: redis, owner: "me", leaseMs: 60_000, logger: quiet });
    const client = await connect(workingServer(), { store, logger: quiet, closeTimeoutMs: 200 });
    client.callTool("t");
    await vi.advanceTimersByTimeAsync(0);
    redis.fault = () => "hang";
    const closed = settledFlag(client.close());
    await vi.advanceTimersByTimeAsync(199);
    expect(closed()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(closed()).toBe(true);
  });
});

describe("close() that gave up on a frozen store", () => {
  it("leaves a store that sends nothing afterwards: no renewal, no queued write", async () => {
    const redis = new FakeRedis();
    const store = redisStore({ client: redis, owner: "me", leaseMs: 60_000, logger: quiet });
    const client = await connect(workingServer(), { store, logger: quiet, closeTimeoutMs: 200 });
    client.callTool("t");
    await vi.advanceTimersByTimeAsync(0);
    redis.fault = (name) => (name === "RELEASE" ? "hang" : undefined); // the handle's release never lands
    const closing = client.close();
    await vi.advanceTimersByTimeAsync(200);
    await closing;
    const sent = redis.calls.length;
    redis.fault = undefined;
    await vi.advanceTimersByTimeAsync(120_000); // six renewal periods
    expect(redis.calls.slice(sent)).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("close() while an adoption's claim is in flight", () => {
  it("the claim lands on a closed client: no handle, no renewal timer, no script afterwards", async () => {
    const redis = new FakeRedis();
    const gone = redisStore({ client: redis, owner: "gone", leaseMs: 3000, logger: quiet });
    await gone.put({
      v: 1,
      era: "modern",
      taskId: TASK_ID,
      server: SERVER,
      method: "tools/call",
      toolName: "t",
      answeredInputKeys: [],
    });
    await gone.close();
    // The caller's connection: claims wait until the test lets them through.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let held = 0;
    const connection: RedisLike = {
      eval: async (script, options) => {
        if (script === CLAIM_LAPSED) {
          held++;
          await gate;
        }
        return redis.eval(script, options);
      },
    };
    const store = redisStore({ client: connection, owner: "me", leaseMs: 3000, logger: quiet });
    const client = await connect(workingServer(), { store, adopt: { everyMs: 1000 }, logger: quiet });
    const adopted: string[] = [];
    client.on("task", (_handle, taskId) => adopted.push(taskId));
    await vi.advanceTimersByTimeAsync(1000);
    expect(held).toBeGreaterThan(0);
    const closing = client.close();
    open();
    await vi.advanceTimersByTimeAsync(0);
    await closing;
    expect(vi.getTimerCount()).toBe(0);
    const scripts = redis.calls.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(redis.calls.length).toBe(scripts);
    expect(adopted).toEqual([]);
    expect(client.tasks()).toEqual([]);
    expect(redis.running()).toEqual([]); // its lease ended with the close, not 3 s later
  });
});
