/**
 * `redisStore` on a 3-node Redis Cluster (started here on free loopback ports, stopped after): the store's
 * promises (redis-behaviour.ts, also run on one node by redis.test.ts) through a `createCluster()` client; one
 * server's tasks spread over the nodes; and workers sharing tasks through the cluster, one of them gone without
 * handing its leases back, while the other adopts its tasks and finishes them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, createCluster } from "redis";
import { TaskClient, type TaskHandle } from "mcp-tasks";
import { redisStore, type RedisLike } from "mcp-tasks/store/redis";
import { defineTool, startTaskServer, step, textResult, type HttpTaskServer } from "mcp-tasks/testing";
import { startRedisCluster, type RedisCluster } from "./redis-server.js";
import { describeRedisStore, ref } from "./redis-behaviour.js";

let cluster: RedisCluster;
let client: ReturnType<typeof createCluster>;
let server: HttpTaskServer;
beforeAll(async () => {
  cluster = await startRedisCluster();
  client = createCluster({ rootNodes: cluster.urls.map((url) => ({ url })) });
  await client.connect();
  server = await startTaskServer({
    tools: [
      defineTool({
        name: "work",
        task: "required",
        pollIntervalMs: 50,
        // One step per poll: the first worker polls too slowly to finish any; the adopter finishes each in ~1 s.
        steps: [step.working("busy"), step.idle(20), step.complete(textResult("ok"))],
      }),
    ],
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await client?.close();
  await cluster?.stop();
});

describeRedisStore("a 3-node Redis Cluster", () => ({ client, nodes: cluster.urls }));

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("workers sharing tasks through a Redis Cluster", () => {
  it("one server's tasks are spread over the nodes", async () => {
    const store = redisStore({ client, prefix: "spread", owner: "a" });
    await Promise.all(Array.from({ length: 200 }, (_, index) => store.put(ref(`t${index}`))));
    const sizes = await Promise.all(
      cluster.urls.map(async (url) => {
        const node = await createClient({ url }).connect();
        const size = await node.dbSize();
        await node.close();
        return size;
      }),
    );
    expect(sizes.filter((size) => size > 0).length).toBeGreaterThanOrEqual(2);
    expect(await store.list()).toHaveLength(200);
    await store.close();
  });

  it("a worker gone without handing its leases back: another adopts its tasks within the lease and finishes them", async () => {
    let cut = false;
    const cuttable: RedisLike = {
      eval: (script, options) => (cut ? Promise.reject(new Error("gone")) : client.eval(script, options)),
    };
    const quiet = { warn: () => undefined, error: () => undefined };
    const polling = { defaultIntervalMs: 50, minIntervalMs: 20, jitter: 0 };
    const a = await TaskClient.connect(server.url, {
      store: redisStore({ client: cuttable, prefix: "crash", owner: "a", leaseMs: 2000, logger: quiet }),
      polling: { minIntervalMs: 1000, jitter: 0 },
      logger: quiet,
    });
    const b = await TaskClient.connect(server.url, {
      store: redisStore({ client, prefix: "crash", owner: "b", leaseMs: 2000, logger: quiet }),
      adopt: { everyMs: 100 },
      polling,
      logger: quiet,
    });
    const adopted = new Map<string, TaskHandle>();
    b.on("task", (handle, taskId) => adopted.set(taskId, handle));
    try {
      const handles = Array.from({ length: 20 }, () => a.callTool("work"));
      await Promise.all(handles.map((handle) => handle.ref));
      // The tasks reported, which is those whose ref was stored (a refused write is not reported, and cancelled).
      const ids = handles.flatMap((handle) => (handle.taskId === undefined ? [] : [handle.taskId]));
      expect(ids.length).toBeGreaterThan(10);
      await pause(200);
      expect(adopted.size).toBe(0); // a's, while its lease runs
      cut = true; // a loses Redis for good: no renewal, no hand-back
      const goneAt = Date.now();
      await a.close();
      for (let tries = 0; tries < 400 && adopted.size < ids.length; tries++) await pause(20);
      expect([...adopted.keys()].sort()).toEqual([...ids].sort());
      expect(Date.now() - goneAt).toBeLessThan(2000 + 100 + 3000); // lease, one adoption tick, slack
      const outcomes = await Promise.all([...adopted.values()].map((handle) => handle.outcome()));
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(ids.map(() => "completed"));
      expect(await redisStore({ client, prefix: "crash" }).list()).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  }, 30_000);
});
