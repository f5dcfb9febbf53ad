/**
 * The life of a stored ref and its lease (src/run/ref-life.ts), through real `TaskClient`s, the reference server
 * and a real redis-server on loopback: adoption holds a lease only while a live handle follows the task; a
 * release that fails to be written is retried, never turned into a stranded task; nothing of a closed client
 * runs after `close()`, even with a claim in flight and a Redis connection the caller owns; and a ref leaves the
 * store when the server said its last word, whatever the client made of the result. Timing is real here, so
 * only bounds are asserted; the fake-clock cases are in test/unit/run/ref-life.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "redis";
import { TaskClient, type TaskRef } from "mcp-tasks";
import { redisStore, type RedisLike } from "mcp-tasks/store/redis";
import {
  defineTool,
  startTaskServer,
  step,
  structuredResult,
  textResult,
  type HttpTaskServer,
} from "mcp-tasks/testing";
import { CLAIM_LAPSED, CONFIRM, RELEASE } from "../../../src/store/redis-scripts.js";
import { shardOf } from "../../../src/store/redis-layout.js";
import { startRedis, type RedisServer } from "./redis-server.js";

let redis: RedisServer;
let server: HttpTaskServer;
let legacy: HttpTaskServer;
let raw: ReturnType<typeof createClient>;

const tools = [
  defineTool({
    name: "work",
    task: "required",
    pollIntervalMs: 50,
    steps: [step.working("busy"), step.idle(100_000), step.complete(textResult("late"))],
  }),
  defineTool({
    // Completes a few polls after it is made (each tasks/get advances the script one step).
    name: "brief",
    task: "required",
    pollIntervalMs: 50,
    steps: [step.working("busy"), step.idle(3), step.complete(textResult("done"))],
  }),
  defineTool({
    // Completes with a result its own outputSchema refuses.
    name: "typed",
    task: "required",
    pollIntervalMs: 50,
    outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    steps: [step.working("busy"), step.idle(2), step.complete(structuredResult({ n: "not a number" }))],
  }),
];

beforeAll(async () => {
  redis = await startRedis();
  raw = createClient({ url: redis.url });
  await raw.connect();
  server = await startTaskServer({ tools });
  legacy = await startTaskServer({ era: "2025-11-25", tools });
});
afterAll(async () => {
  await raw?.close();
  await server?.close();
  await legacy?.close();
  await redis?.stop();
});

let prefixes = 0;
const quiet = { warn: () => undefined, error: () => undefined };
const polling = { defaultIntervalMs: 50, minIntervalMs: 20, jitter: 0 };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function storeFor(prefix: string, owner: string, leaseMs: number, client?: RedisLike) {
  return redisStore({ ...(client ? { client } : { url: redis.url }), prefix, owner, leaseMs, logger: quiet });
}

async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await pause(20);
  }
}

/** Tries to claim `ref` for `tries × 20 ms`; resolves with the claimed ref, or undefined. */
async function claimWithin(store: ReturnType<typeof storeFor>, ref: TaskRef, tries: number) {
  for (let attempt = 0; attempt < tries; attempt++) {
    const claimed = await store.claim(ref);
    if (claimed !== undefined) return claimed;
    await pause(20);
  }
  return undefined;
}

/**
 * A `RedisLike` over a real connection that counts the scripts sent, and lets a test hold some back or fail them:
 * `gate` holds adoption scripts; `frozen` holds every script (as a frozen Redis would, for this worker only) and
 * sends them in order once it resolves, so they land behind whatever other workers sent meanwhile.
 */
async function wrappedConnection() {
  const connection = createClient({ url: redis.url });
  await connection.connect();
  const control = {
    sent: 0,
    gate: undefined as Promise<void> | undefined,
    held: 0,
    frozen: undefined as Promise<void> | undefined,
    /** The scripts held by `frozen`, in order. */
    queued: [] as string[],
    fail: undefined as ((script: string) => boolean) | undefined,
  };
  const client: RedisLike = {
    eval: async (script, options) => {
      control.sent++;
      if (control.fail?.(script)) throw new Error("Redis refused the write");
      if (script === CLAIM_LAPSED && control.gate !== undefined) {
        control.held++;
        await control.gate;
      }
      if (control.frozen !== undefined) {
        control.queued.push(script);
        await control.frozen;
      }
      return connection.eval(script, options) as Promise<unknown>;
    },
  };
  return { client, control, close: () => connection.close() };
}

describe("adoption claims only what this client can follow", () => {
  it("a ref of another protocol era is handed back at once, not held and renewed by a worker that cannot follow it", async () => {
    const prefix = `unfollowable-${++prefixes}`;
    // A ref a 2026-07-28 worker wrote for this server, found by a worker whose connection speaks 2025-11-25
    // (a rolling upgrade): the older worker cannot follow it.
    const ref: TaskRef = {
      v: 1,
      era: "modern",
      taskId: "made-by-a-newer-worker",
      server: { url: legacy.url, protocolVersion: "2026-07-28" },
      method: "tools/call",
      toolName: "work",
      answeredInputKeys: [],
    };
    const newer = storeFor(prefix, "newer", 60_000);
    await newer.put(ref);
    await newer.close(); // its lease is free now
    const warnings: unknown[][] = [];
    const store = storeFor(prefix, "older", 60_000);
    const older = await TaskClient.connect(legacy.url, {
      store,
      polling,
      adopt: { everyMs: 100 },
      logger: { warn: (...args: unknown[]) => warnings.push(args), error: () => undefined },
    });
    const other = storeFor(prefix, "capable", 60_000);
    try {
      await until(() => warnings.length > 0, "the older worker to try the ref");
      expect(older.tasks()).toEqual([]);
      // The older worker's lease would last a minute: only handing it back lets a capable worker in.
      expect(await claimWithin(other, ref, 100)).toMatchObject({ taskId: ref.taskId });
      await until(() => store.held === 0, "the hand-back to be counted");
      expect(store.held).toBe(0);
    } finally {
      await older.close();
      await other.close();
    }
  }, 30_000);
});

describe("a release whose write fails", () => {
  it("is retried, not forgotten, while the worker's lease of that shard is renewed for its other tasks", async () => {
    const prefix = `release-fails-${++prefixes}`;
    const { client, control, close } = await wrappedConnection();
    const store = storeFor(prefix, "A", 300, client); // renewed every 100 ms
    const a = await TaskClient.connect(server.url, { store, polling, logger: quiet });
    const other = storeFor(prefix, "B", 60_000);
    try {
      // 17 tasks over 16 shards: two of them share a shard, so that shard's lease stays renewed.
      const handles = Array.from({ length: 17 }, () => a.callTool("work"));
      const refs = (await Promise.all(handles.map((handle) => handle.ref))) as TaskRef[];
      const shards = refs.map((ref) => shardOf(ref.taskId));
      const index = shards.findIndex((shard, at) => shards.indexOf(shard) !== at);
      const released = refs[index] as TaskRef;
      let failures = 0;
      control.fail = (script) => script === RELEASE && failures++ === 0; // the first release write fails
      (handles[index] as (typeof handles)[number]).detach();
      await until(() => failures > 0, "the release to be tried");
      expect(await claimWithin(other, released, 100)).toMatchObject({ taskId: released.taskId });
      // Redis has the release once another worker can claim it; the worker counts it when the answer is read.
      await until(() => store.held === 16, "the retried release to be counted");
      expect(store.held).toBe(16);
    } finally {
      control.fail = undefined;
      await a.close();
      await other.close();
      await close();
    }
  }, 30_000);
});

describe("close() while an adoption is in flight, on a Redis connection the caller owns", () => {
  it("hands the late claim back, makes no handle, and sends nothing to Redis afterwards", async () => {
    const prefix = `close-adopting-${++prefixes}`;
    // A task whose worker went away: its lease is free.
    const gone = await TaskClient.connect(server.url, {
      store: storeFor(prefix, "gone", 60_000),
      polling,
      logger: quiet,
    });
    const ref = (await gone.callTool("work").ref) as TaskRef;
    await gone.close();

    const { client, control, close } = await wrappedConnection();
    let open!: () => void;
    control.gate = new Promise<void>((resolve) => (open = resolve));
    const worker = await TaskClient.connect(server.url, {
      store: storeFor(prefix, "W", 300, client),
      polling,
      adopt: { everyMs: 100 },
      logger: quiet,
    });
    const adopted: string[] = [];
    worker.on("task", (_handle, taskId) => adopted.push(taskId));
    const other = storeFor(prefix, "B", 60_000);
    try {
      await until(() => control.held > 0, "an adoption to be in flight");
      const closing = worker.close();
      open(); // the claim lands after close() began
      await closing;
      const sentAtClose = control.sent;
      // Handed back by the close itself, not lapsing 300 ms later.
      expect(await other.claim(ref)).toMatchObject({ taskId: ref.taskId });
      await pause(1000); // ten renewal periods of the closed worker's lease
      expect(control.sent).toBe(sentAtClose);
      expect(adopted).toEqual([]);
    } finally {
      open();
      await worker.close();
      await other.close();
      await close();
    }
  }, 30_000);
});

describe("a ref leaves the store when the server has said its last word", () => {
  it("a completed task whose result fails its outputSchema: removed, not released, and never followed again", async () => {
    const prefix = `last-word-${++prefixes}`;
    const store = storeFor(prefix, "A", 60_000);
    const a = await TaskClient.connect(server.url, { store, polling, logger: quiet });
    const handle = a.callTool("typed");
    const ref = (await handle.ref) as TaskRef;
    expect(await handle.outcome()).toMatchObject({ kind: "error", taskId: ref.taskId });
    await a.close();
    const b = await TaskClient.connect(server.url, {
      store: storeFor(prefix, "B", 60_000),
      polling,
      logger: quiet,
    });
    try {
      expect(await b.resume()).toEqual([]);
      const reader = storeFor(prefix, "reader", 60_000);
      expect(await reader.list()).toEqual([]);
      await reader.close();
    } finally {
      await b.close();
    }
  }, 30_000);
});

describe("a task that ends while its worker cannot reach Redis", () => {
  it("is reported once: by the worker that adopts it, not also by its old owner whose removal lands late", async () => {
    const prefix = `frozen-end-${++prefixes}`;
    const { client, control, close } = await wrappedConnection();
    const a = await TaskClient.connect(server.url, {
      store: storeFor(prefix, "A", 1_500, client),
      polling,
      logger: quiet,
    });
    const b = await TaskClient.connect(server.url, {
      store: storeFor(prefix, "B", 60_000),
      polling,
      logger: quiet,
    });
    let thaw!: () => void;
    try {
      const owned = a.callTool("brief");
      const ref = (await owned.ref) as TaskRef;
      // Redis freezes for A just after it stored the ref: by its own clock A's lease runs for 1.5 s more, long
      // enough to see the task complete a few polls later.
      control.frozen = new Promise<void>((resolve) => (thaw = resolve));
      let aOutcome: string | undefined;
      void owned.outcome().then((outcome) => (aOutcome = outcome.kind));
      await until(
        () => aOutcome !== undefined || control.queued.includes(CONFIRM),
        "A to see the task's last word",
      );
      // Its lease lapses in Redis; B claims the task and follows it to the end.
      let adopted: Awaited<ReturnType<typeof b.resume>> = [];
      await until(async () => (adopted = await b.resume()).length > 0, "B to claim the task");
      expect(await adopted[0]?.outcome()).toMatchObject({ kind: "completed", taskId: ref.taskId });
      // Redis answers A again: whatever A sent lands behind B's claim.
      thaw();
      control.frozen = undefined;
      const outcome = await owned.outcome();
      expect(outcome).toMatchObject({ kind: "detached", taskId: ref.taskId });
      const reader = storeFor(prefix, "reader", 60_000);
      expect(await reader.list()).toEqual([]);
      await reader.close();
    } finally {
      thaw?.();
      control.frozen = undefined;
      await a.close();
      await b.close();
      await close();
    }
  }, 30_000);
});
