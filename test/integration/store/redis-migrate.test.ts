/**
 * The move from the previous key layout (one hash, `<prefix>:refs`) into the current one, against a real
 * `redis-server`: every ref moves, however many scan batches the old hash takes, and the old hash is gone after.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "redis";
import type { TaskRef } from "mcp-tasks";
import { redisStore } from "mcp-tasks/store/redis";
import { startRedis, type RedisServer } from "./redis-server.js";

const server = { url: "http://127.0.0.1:9/mcp", protocolVersion: "2026-07-28" };
const ref = (taskId: string): TaskRef => ({
  v: 1,
  taskId,
  server,
  method: "tools/call",
  toolName: "t",
  answeredInputKeys: [`${taskId}-q`],
});

let redis: RedisServer;
let client: ReturnType<typeof createClient>;
beforeAll(async () => {
  redis = await startRedis();
  client = createClient({ url: redis.url });
  await client.connect();
});
afterAll(async () => {
  await client?.close();
  await redis?.stop();
});

describe("refs of the previous key layout", () => {
  it("all 1,200 move, far more than one scan batch (500)", async () => {
    const prefix = "many";
    const legacy = Array.from({ length: 1200 }, (_, index) => ref(`old-${index}`));
    // The previous layout: one field per ref, `<server URL>\n<task id>`.
    const pairs = legacy.flatMap((old) => [
      `${new URL(server.url).href}\n${old.taskId}`,
      JSON.stringify(old),
    ]);
    for (let at = 0; at < pairs.length; at += 400) {
      await client.eval(`return redis.call('HSET', KEYS[1], unpack(ARGV))`, {
        keys: [`${prefix}:refs`],
        arguments: pairs.slice(at, at + 400),
      });
    }
    expect(await client.hLen(`${prefix}:refs`)).toBe(1200);

    const warnings: string[] = [];
    const store = redisStore({
      client,
      prefix,
      owner: "reader",
      logger: { warn: (message: string) => void warnings.push(message) },
    });
    try {
      const listed = await store.list(server);
      expect(listed.length).toBe(1200);
      expect(new Set(listed.map((found) => found.taskId))).toEqual(new Set(legacy.map((old) => old.taskId)));
      expect(listed.find((found) => found.taskId === "old-1199")).toEqual(ref("old-1199"));
      expect(await client.exists(`${prefix}:refs`)).toBe(0);
      expect(await client.get(`${prefix}:layout`)).toBe("2");
      expect(warnings).toContain(
        'redisStore: moved 1200 refs of the previous key layout under "many" into layout 2',
      );
    } finally {
      await store.close();
    }
  });
});
