/**
 * Every store keeps the HTTP session a 2025-11-25 task was created in (`TaskRef.session`): the next process needs
 * it to follow the task on a server that binds tasks to sessions. A ref written before the field existed reads
 * back as it was. Memory, file and Redis (a real `redis-server` on a free loopback port).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TaskRef } from "mcp-tasks";
import type { TaskStore } from "mcp-tasks/store";
import { fileStore, memoryStore } from "mcp-tasks/store";
import { redisStore } from "mcp-tasks/store/redis";
import { startRedis, type RedisServer } from "./redis-server.js";

const server = { url: "http://127.0.0.1:9/mcp", protocolVersion: "2025-11-25" };
const session = { id: "3f0c2a9e-5b1d-4c8e-9a7f-2d6b8e1c4a55", protocolVersion: "2025-11-25" };
const ref = (taskId: string, fields: Partial<TaskRef> = {}): TaskRef => ({
  v: 1,
  taskId,
  server,
  method: "tools/call",
  toolName: "t",
  answeredInputKeys: [],
  era: "legacy",
  ...fields,
});

let redis: RedisServer;
const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-ref-session-"));
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Each backing hands out stores over the same refs: the writer's, then a later process's. */
const backings: [string, () => () => TaskStore][] = [
  [
    "memoryStore",
    () => {
      const one = memoryStore();
      return () => one;
    },
  ],
  [
    "fileStore",
    () => {
      const at = join(dir, randomUUID());
      return () => fileStore(at);
    },
  ],
  [
    "redisStore",
    () => {
      const prefix = `ref-session-${randomUUID()}`;
      return () => redisStore({ url: redis.url, prefix });
    },
  ],
];

describe.each(backings)("%s", (_name, backing) => {
  it("lists a ref with the session its task was created in, and an older ref without one as it was", async () => {
    const storeOf = backing();
    const writer = storeOf();
    await writer.open?.();
    await writer.put(ref("bound", { session }));
    await writer.put(ref("older"));
    await writer.close?.();
    const reader = storeOf();
    await reader.open?.();
    try {
      const listed = await reader.list(server);
      expect(listed.find((r) => r.taskId === "bound")).toEqual(ref("bound", { session }));
      const older = listed.find((r) => r.taskId === "older");
      expect(older).toEqual(ref("older"));
      expect(older !== undefined && "session" in older).toBe(false);
    } finally {
      await reader.close?.();
    }
  });
});
