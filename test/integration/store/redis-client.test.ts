/**
 * `redisStore` through real `TaskClient`s, a real redis-server (started here on a free loopback port) and the
 * reference server. A worker that loses a task's lease stops acting on it — no poll, no input answer, no
 * cancel — and another worker takes it over (decision 12); a handle that ends here while its task may still run
 * hands its lease back at once (decision 15); a failed connect leaves no Redis connection.
 * Timing is real, so only counts and lower bounds are asserted; the fake-clock twins are in
 * test/unit/run/leases.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "redis";
import { TaskClient, type TaskHandle, type TaskRef } from "mcp-tasks";
import { redisStore, type RedisLike } from "mcp-tasks/store/redis";
import {
  defineTool,
  elicitForm,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "mcp-tasks/testing";
import { startRedis, type RedisServer } from "./redis-server.js";

let redis: RedisServer;
let server: HttpTaskServer;
let raw: ReturnType<typeof createClient>;
const question = elicitForm("Proceed?", { ok: { type: "boolean" } }, ["ok"]);

beforeAll(async () => {
  redis = await startRedis();
  raw = createClient({ url: redis.url });
  await raw.connect();
  server = await startTaskServer({
    tools: [
      defineTool({
        name: "work",
        task: "required",
        pollIntervalMs: 50,
        steps: [step.working("busy"), step.idle(100_000), step.complete(textResult("late"))],
      }),
      defineTool({
        // Busy for 40 polls, then asks; whoever follows the task then answers.
        name: "later",
        task: "required",
        pollIntervalMs: 50,
        steps: [
          step.working("busy"),
          step.idle(40),
          step.input({ q: question }),
          step.complete(textResult("ok")),
        ],
      }),
      defineTool({
        name: "flaky",
        task: "required",
        pollIntervalMs: 50,
        steps: [step.working("busy"), step.pollErrors(1000)],
      }),
      defineTool({
        name: "stubborn",
        task: "required",
        pollIntervalMs: 50,
        onCancel: "ignore",
        steps: [step.working("busy"), step.idle(100_000)],
      }),
    ],
  });
});
afterAll(async () => {
  await raw?.close();
  await server?.close();
  await redis?.stop();
});

let prefixes = 0;
/** A store of its own key prefix per test, so tests never see each other's tasks. */
function storeFor(prefix: string, owner: string, leaseMs: number, client?: RedisLike) {
  return redisStore({
    ...(client ? { client } : { url: redis.url }),
    prefix,
    owner,
    leaseMs,
    logger: { warn: () => undefined },
  });
}

/** The requests of `method` for `taskId` that the worker named `worker` sent. */
function sentBy(worker: string, method: string, taskId: string | undefined): number {
  return server.requests.forMethod(method).filter((request) => {
    const params = (request.body as { params: Record<string, unknown> }).params;
    const meta = params._meta as Record<string, { name?: string }> | undefined;
    return params.taskId === taskId && meta?.["io.modelcontextprotocol/clientInfo"]?.name === worker;
  }).length;
}

/**
 * Marks every HTTP request a worker sends with whether its handle had ended by then (`x-sent-after-end`, kept
 * by the server's request log): "no poll after the end" is about what the worker sends after it, and a poll
 * already on its way when the handle ends may reach the server's log later.
 */
function endMarker(): { ended: () => void; headers: () => Record<string, string> } {
  let ended = false;
  return {
    ended: () => void (ended = true),
    headers: () => ({ "x-sent-after-end": ended ? "yes" : "no" }),
  };
}

/** The requests of `method` for `taskId` that `worker` sent after its handle had ended. */
function sentAfterEnd(worker: string, method: string, taskId: string | undefined): number {
  return server.requests.forMethod(method).filter((request) => {
    const params = (request.body as { params: Record<string, unknown> }).params;
    const meta = params._meta as Record<string, { name?: string }> | undefined;
    return (
      params.taskId === taskId &&
      meta?.["io.modelcontextprotocol/clientInfo"]?.name === worker &&
      request.headers["x-sent-after-end"] === "yes"
    );
  }).length;
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const polling = { defaultIntervalMs: 50, minIntervalMs: 20, jitter: 0 };
const accept = () => Promise.resolve({ action: "accept" as const, content: { ok: true } });

function worker(name: string, store: ReturnType<typeof storeFor>, extra: Record<string, unknown> = {}) {
  return TaskClient.connect(server.url, {
    clientInfo: { name, version: "1.0.0" },
    store,
    polling,
    inputHandlers: { elicitation: accept },
    logger: { warn: () => undefined, error: () => undefined },
    ...extra,
  });
}

describe("a worker whose lease is lost while a handle polls", () => {
  it("stolen: the handle detaches, and the worker sends no poll, update or cancel for the task after", async () => {
    const prefix = `stolen-${++prefixes}`;
    const marker = endMarker();
    // A's renewals can be held back, so its lease ends at a moment the test chooses.
    const connection = createClient({ url: redis.url });
    await connection.connect();
    let stalled = false;
    const stalling: RedisLike = {
      eval: (script, options) =>
        stalled && script.endsWith("return renew()")
          ? Promise.reject(new Error("stalled"))
          : (connection.eval(script, options) as Promise<unknown>),
    };
    const a = await worker("A-stolen", storeFor(prefix, "A", 300, stalling), { headers: marker.headers });
    const thief = storeFor(prefix, "thief", 60_000);
    await thief.open?.();
    try {
      // No input in this task: only the store's lease-lost notice can stop the handle (the refused write of an
      // answer would be another way, tested below and in client-store.test.ts).
      const handle = a.callTool("work");
      handle.on("settled", marker.ended);
      const ref = (await handle.ref) as TaskRef;
      await until(() => sentBy("A-stolen", "tasks/get", ref.taskId) >= 3, "A to poll");
      // A's lease ends between two renewals (as after a stall, or a jump of the Redis server's clock), and a
      // thief takes the task before A renews again.
      stalled = true;
      for (const alive of await raw.keys(`${prefix}:*:alive`)) {
        for (const owner of await raw.zRange(alive, 0, -1)) await raw.zAdd(alive, { score: 0, value: owner });
      }
      expect(await thief.claim(ref)).toMatchObject({ taskId: ref.taskId });
      stalled = false;
      const outcome = await Promise.race([handle.outcome(), pause(10_000).then(() => undefined)]);
      expect(outcome).toMatchObject({ kind: "detached", taskId: ref.taskId });
      await pause(1000); // 20 poll intervals, for a poll that should not come
      expect(sentAfterEnd("A-stolen", "tasks/get", ref.taskId)).toBe(0);
      expect(sentBy("A-stolen", "tasks/update", ref.taskId)).toBe(0);
      expect(sentBy("A-stolen", "tasks/cancel", ref.taskId)).toBe(0);
      expect(await thief.claim(ref)).toMatchObject({ taskId: ref.taskId }); // still the thief's
      expect(await storeFor(prefix, "B", 60_000).claim(ref)).toBeUndefined();
      await thief.close();
    } finally {
      await a.close();
      await connection.close();
    }
  }, 60_000);

  it("expired while the worker stalled: another worker adopts the task, answers its input and finishes it; the first stops", async () => {
    const prefix = `expired-${++prefixes}`;
    // Worker A's renewals can be held back, as if its process stalled.
    const connection = createClient({ url: redis.url });
    await connection.connect();
    let stalled = false;
    const renewal = (script: string) => script.endsWith("return renew()"); // the store's renewal script
    const stalling: RedisLike = {
      eval: (script, options) =>
        stalled && renewal(script)
          ? Promise.reject(new Error("stalled"))
          : (connection.eval(script, options) as Promise<unknown>),
    };
    const marker = endMarker();
    const a = await worker("A-expired", storeFor(prefix, "A", 400, stalling), { headers: marker.headers });
    const b = await worker("B-expired", storeFor(prefix, "B", 400), { adopt: { everyMs: 100 } });
    try {
      const adopted: TaskHandle[] = [];
      b.on("task", (handle) => adopted.push(handle));
      const handle = a.callTool("later");
      handle.on("settled", marker.ended);
      const ref = (await handle.ref) as TaskRef;
      await until(() => sentBy("A-expired", "tasks/get", ref.taskId) >= 3, "A to poll");
      stalled = true;
      await until(() => adopted.length === 1, "B to adopt the task");
      stalled = false;
      const outcomeOfA = await Promise.race([handle.outcome(), pause(10_000).then(() => undefined)]);
      expect(outcomeOfA).toMatchObject({ kind: "detached", taskId: ref.taskId });

      const outcomeOfB = await (adopted[0] as TaskHandle).outcome();
      expect(outcomeOfB).toMatchObject({ kind: "completed", taskId: ref.taskId, result: textResult("ok") });
      expect(sentAfterEnd("A-expired", "tasks/get", ref.taskId)).toBe(0);
      expect(sentBy("A-expired", "tasks/update", ref.taskId)).toBe(0);
      expect(sentBy("A-expired", "tasks/cancel", ref.taskId)).toBe(0);
      expect(sentBy("B-expired", "tasks/update", ref.taskId)).toBe(1);
    } finally {
      await a.close();
      await b.close();
      await connection.close();
    }
  }, 60_000);
});

describe("a handle that ends here while its task may still run", () => {
  const endings: Array<[string, string, string, Record<string, unknown>, (handle: TaskHandle) => void]> = [
    ["detach()", "detached", "work", {}, (handle) => handle.detach()],
    ["a deadline", "deadline_exceeded", "work", { timeoutMs: 3000 }, () => undefined],
    ["an unconfirmed cancel", "cancelled", "stubborn", {}, (handle) => void handle.cancel()],
    ["poll retries exhausted", "error", "flaky", {}, () => undefined],
  ];
  it.each(endings)(
    "%s (%s) hands the lease back: another worker claims the task at once",
    async (_what, kind, tool, options, end) => {
      const prefix = `release-${++prefixes}`;
      const a = await worker(`A-release-${prefixes}`, storeFor(prefix, "A", 60_000), {
        cancelGraceMs: 300,
        retry: { retries: 1, minTimeoutMs: 10, maxTimeoutMs: 20 },
      });
      const other = storeFor(prefix, "B", 60_000);
      const handle = a.callTool(tool, {}, options);
      const ref = (await handle.ref) as TaskRef;
      if (!handle.isSettled) expect(await other.claim(ref)).toBeUndefined(); // A's while its handle lives
      end(handle);
      await expect(handle.outcome()).resolves.toMatchObject({ kind, taskId: ref.taskId });
      // The lease would last a minute: only a release lets B in now.
      let claimed: TaskRef | undefined;
      for (let tries = 0; tries < 50 && claimed === undefined; tries++) {
        claimed = await other.claim(ref);
        if (claimed === undefined) await pause(20);
      }
      expect(claimed).toMatchObject({ taskId: ref.taskId });
      await a.close();
      await other.close();
    },
    30_000,
  );
});

describe("a failed connect with a Redis store", () => {
  const connections = async () => (await raw.clientList()).length;

  it("leaves no Redis connection open, and a fresh store connects afterwards", async () => {
    const before = await connections();
    await expect(
      TaskClient.connect("http://127.0.0.1:1/mcp", { store: redisStore({ url: redis.url }) }),
    ).rejects.toThrow();
    let now = await connections();
    for (let tries = 0; tries < 50 && now > before; tries++) {
      await pause(20);
      now = await connections();
    }
    expect(now).toBe(before);
    const client = await TaskClient.connect(server.url, { store: redisStore({ url: redis.url }) });
    expect(await connections()).toBe(before + 1);
    await client.close();
  });

  it("fails, rather than retrying forever, when Redis cannot be reached", async () => {
    const store = redisStore({ url: "redis://127.0.0.1:1" });
    const failed = await Promise.race([
      TaskClient.connect(server.url, { store }).then(
        () => "connected",
        (error: Error) => error.message,
      ),
      pause(10_000).then(() => "still trying after 10 s"),
    ]);
    expect(failed).toMatch(/ECONNREFUSED/);
  });
});
