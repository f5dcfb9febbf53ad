/**
 * A client whose store has leases (`redisStore` over fake-redis.ts), on a fake clock against the scripted
 * server: the `adopt.everyMs` loop takes lapsed tasks over; a worker that loses a task's lease stops acting on
 * it at once (no poll, no input answer, no cancel) while another takes it over; and a handle that ends here
 * while its task may still run hands the lease back, so another worker can follow the task at once.
 */
import { describe, expect, it, vi } from "vitest";
import type { TaskClient, TaskHandle, TaskRef } from "mcp-tasks";
import { redisStore, type RedisLike, type RedisTaskStore } from "mcp-tasks/store/redis";
import { CONFIRM, RENEW } from "../../../src/store/redis-scripts.js";
import { FakeRedis } from "../store/fake-redis.js";
import {
  ScriptedServer,
  TASK_ID,
  connect,
  frame,
  inOrder,
  settle,
  useFakeTime,
  type Reply,
} from "./scripted-server.js";

useFakeTime();

/** How the scripted server names itself: refs of its tasks carry this. */
const SERVER = { name: "scripted", version: "1.0.0", protocolVersion: "2026-07-28" };
const LONG_LEASE = 60_000; // no lease lapses by itself in these tests unless a test makes it

function ref(taskId = TASK_ID): TaskRef {
  return {
    v: 1,
    era: "modern",
    taskId,
    server: SERVER,
    method: "tools/call",
    toolName: "t",
    answeredInputKeys: [],
  };
}

function stores(redis: FakeRedis, leaseMs = LONG_LEASE) {
  const made: RedisTaskStore[] = [];
  const make = (owner: string) => {
    const store = redisStore({ client: redis, owner, leaseMs, logger: { warn: () => undefined } });
    made.push(store);
    return store;
  };
  return { make, made };
}

/** A server whose task stays `working` (polled every 100 ms). */
function workingServer(): ScriptedServer {
  return new ScriptedServer({
    "tools/call": () => frame.created({ pollIntervalMs: 100 }),
    "tasks/get": () => frame.working({ pollIntervalMs: 100 }),
  });
}

/** The id of every request of `method` naming the task. */
const named = (server: ScriptedServer, method: string) =>
  server.sent(method).filter((request) => request.params.taskId === TASK_ID);

describe("the adoption loop (adopt: { everyMs })", () => {
  it("takes this server's lapsed tasks every everyMs, once each, and stops when the client closes", async () => {
    const redis = new FakeRedis();
    const { make } = stores(redis);
    const gone = make("gone");
    await gone.put(ref());
    await gone.put({ ...ref("elsewhere"), server: { ...SERVER, name: "another" } });
    await gone.close(); // its leases are free now
    const server = workingServer();
    const client = await connect(server, { store: make("me"), adopt: { everyMs: 1000 } });
    const adopted: string[] = [];
    client.on("task", (_handle, taskId) => adopted.push(taskId));
    // One adoption round is one script per shard of the server (16).
    const loops = () => redis.calls.filter((call) => call === "CLAIM_LAPSED").length / 16;

    await vi.advanceTimersByTimeAsync(999);
    expect(loops()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(loops()).toBe(1);
    expect(adopted).toEqual([TASK_ID]); // this server's task, not the other's
    await vi.advanceTimersByTimeAsync(100);
    expect(named(server, "tasks/get").length).toBeGreaterThan(0);

    await vi.advanceTimersByTimeAsync(4000);
    expect(loops()).toBe(5);
    expect(adopted).toEqual([TASK_ID]);
    expect(client.activeTasks).toBe(1);

    await client.close();
    await vi.advanceTimersByTimeAsync(5000);
    expect(loops()).toBe(5);
  });

  it("skips a tick while the last adoption is still running, and goes on after one that failed", async () => {
    const redis = new FakeRedis();
    const { make } = stores(redis);
    const warn = vi.fn();
    const client = await connect(workingServer(), {
      store: make("me"),
      adopt: { everyMs: 1000 },
      logger: { warn },
    });
    const loops = () => redis.calls.filter((call) => call === "CLAIM_LAPSED").length / 16;
    let mode: "fail" | "hang" = "fail";
    redis.fault = (name) => {
      if (name !== "CLAIM_LAPSED") return undefined;
      return mode === "fail" ? new Error("redis went away") : "hang";
    };
    await vi.advanceTimersByTimeAsync(1000);
    expect(loops()).toBe(1);
    expect(warn).toHaveBeenCalledWith("adopting stored tasks failed", expect.any(Error));
    mode = "hang";
    await vi.advanceTimersByTimeAsync(1000); // this one hangs
    await vi.advanceTimersByTimeAsync(5000); // five ticks come and go while it does
    expect(loops()).toBe(2);
    // The store waits for the hung claim; close() waits for the store at most closeTimeoutMs (5 s).
    const closing = client.close();
    await vi.advanceTimersByTimeAsync(5000);
    await closing;
  });
});

describe("a worker that loses a task's lease", () => {
  it("stolen while it polls: the handle detaches, and no poll, update or cancel goes out from it after", async () => {
    const redis = new FakeRedis();
    const { make } = stores(redis, 300);
    const server = workingServer();
    const client = await connect(server, { store: make("me") });
    const handle = client.callTool("t");
    await settle(handle.ref);
    await vi.advanceTimersByTimeAsync(250); // polled a few times
    // Its lease ends between two renewals (a stall, a clock jump on the Redis server), and a thief takes the task.
    redis.lapse("me");
    const thief = make("thief");
    expect(await thief.claim((await handle.ref) as TaskRef)).toMatchObject({ taskId: TASK_ID });
    await vi.advanceTimersByTimeAsync(100); // the next renewal sees the thief
    expect(handle.isSettled).toBe(true);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "detached", taskId: TASK_ID });
    const polls = named(server, "tasks/get").length;
    expect(polls).toBeGreaterThan(0);

    await vi.advanceTimersByTimeAsync(10_000);
    expect(named(server, "tasks/get")).toHaveLength(polls);
    expect(named(server, "tasks/update")).toEqual([]);
    expect(named(server, "tasks/cancel")).toEqual([]);
    expect(redis.owners()).toEqual({ [TASK_ID]: "thief" }); // the thief's lease was left alone
    expect(redis.running()).toEqual(["thief"]);
  });

  it("expired while it stalled and taken by another worker: it stops; the other follows the task to its end", async () => {
    const redis = new FakeRedis();
    const { make } = stores(redis, 300);
    let done = false;
    const script = {
      "tools/call": () => frame.created({ pollIntervalMs: 100 }),
      "tasks/get": () => (done ? frame.completed("42") : frame.working({ pollIntervalMs: 100 })),
    };
    const first = new ScriptedServer(script);
    const second = new ScriptedServer(script);
    const a = await connect(first, { store: make("a") });
    const b = await connect(second, { store: make("b"), adopt: { everyMs: 100 } });
    const taken: string[] = [];
    b.on("task", (_handle, taskId) => taken.push(taskId));
    const handle = a.callTool("t");
    await settle(handle.ref);
    redis.fault = (name) => (name === "RENEW" ? new Error("a stalls") : undefined);
    await vi.advanceTimersByTimeAsync(400); // a's lease lapses; b's loop claims the task
    expect(taken).toEqual([TASK_ID]);
    redis.fault = undefined;
    await vi.advanceTimersByTimeAsync(100); // a's renewal now finds b holding the lease
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "detached" });
    const pollsOfA = named(first, "tasks/get").length;
    done = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(named(first, "tasks/get")).toHaveLength(pollsOfA);
    expect(named(second, "tasks/get").length).toBeGreaterThan(0);
    expect(b.activeTasks).toBe(0); // b saw it complete
    expect(await make("c").list()).toEqual([]); // and removed its ref
  });

  it("woken past its lease, it polls and sees the task completed, but reports nothing until its lease is renewed", async () => {
    const redis = new FakeRedis();
    // a's renewals and lease checks hang (its process is stopped); they land, late, when `wake` is called.
    let stalled = false;
    const late: (() => void)[] = [];
    const frozen: RedisLike = {
      eval: (script, options) =>
        stalled && (script === RENEW || script === CONFIRM)
          ? new Promise((resolve) => late.push(() => resolve(redis.eval(script, options))))
          : redis.eval(script, options),
    };
    const storeOfA = redisStore({
      client: frozen,
      owner: "a",
      leaseMs: 300,
      logger: { warn: () => undefined },
    });
    let done = false;
    const script = {
      "tools/call": () => frame.created({ pollIntervalMs: 100 }),
      "tasks/get": () => (done ? frame.completed("42") : frame.working({ pollIntervalMs: 100 })),
    };
    const first = new ScriptedServer(script);
    const second = new ScriptedServer(script);
    const a = await connect(first, { store: storeOfA });
    const b = await connect(second, { store: stores(redis, 300).make("b"), adopt: { everyMs: 100 } });
    const outcomes: string[] = [];
    b.on("settled", (_handle, outcome) => outcomes.push(`b ${outcome.kind}`));
    const handle = a.callTool("t");
    void handle.outcome().then((outcome) => outcomes.push(`a ${outcome.kind}`));
    await settle(handle.ref);
    stalled = true;
    await vi.advanceTimersByTimeAsync(400); // a's lease lapses; b adopts the task
    done = true;
    await vi.advanceTimersByTimeAsync(300); // b reports it; a polls, sees it completed, its renewal still out
    expect(named(first, "tasks/get").length).toBeGreaterThan(0);
    expect(outcomes).toEqual(["b completed"]);
    stalled = false;
    for (const wake of late.splice(0)) wake(); // a's renewals land: the lease is b's
    await vi.advanceTimersByTimeAsync(100);
    expect(outcomes).toEqual(["b completed", "a detached"]);
  });

  it("an answer ready after the lease was stolen is not sent (its write is refused), and the handle detaches", async () => {
    const redis = new FakeRedis();
    const { make } = stores(redis);
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 100 }),
      "tasks/get": inOrder(
        frame.working({ pollIntervalMs: 100 }),
        inputRequired({ q: { method: "elicitation/create", params: elicitParams } }),
      ),
      "tasks/update": () => ({ result: {} }),
    });
    let stealing = false;
    const steal = async () => {
      if (!stealing) return;
      redis.lapse("me");
      await make("thief").claim({ ...ref(), taskId: TASK_ID });
    };
    const client: TaskClient = await connect(server, {
      store: make("me"),
      inputHandlers: {
        elicitation: async () => {
          await steal(); // another worker takes the task while the user is answering
          return { action: "accept", content: { ok: true } };
        },
      },
      logger: { error: () => undefined },
    });
    const handle = client.callTool("t");
    await settle(handle.ref);
    stealing = true;
    // Long before the next renewal (every 20 s) could notice: the refused write itself stops the handle.
    await vi.advanceTimersByTimeAsync(1000);
    expect(handle.isSettled).toBe(true);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "detached", taskId: TASK_ID });
    expect(named(server, "tasks/update")).toEqual([]);
    expect(named(server, "tasks/cancel")).toEqual([]);
  });
});

describe("a handle that ends here while its task may still run hands its lease back", () => {
  // Each ending is reached on a task that stays `working`; the lease would otherwise last a minute.
  it.each([
    [
      "detach()",
      "detached",
      (client: TaskClient): TaskHandle => client.callTool("t"),
      (handle: TaskHandle): void => handle.detach(),
    ],
    [
      "a deadline",
      "deadline_exceeded",
      (client: TaskClient): TaskHandle => client.callTool("t", {}, { timeoutMs: 500 }),
      () => undefined,
    ],
    [
      "an unconfirmed cancel",
      "cancelled",
      (client: TaskClient): TaskHandle => client.callTool("t"),
      (handle: TaskHandle): void => void handle.cancel(),
    ],
    [
      "poll retries exhausted",
      "error",
      (client: TaskClient): TaskHandle => client.callTool("t"),
      () => undefined,
    ],
  ] as const)("%s (%s): another worker claims the task at once", async (_what, kind, call, end) => {
    const redis = new FakeRedis();
    const { make } = stores(redis);
    const server = workingServer();
    if (kind === "error") server.on("tasks/get", () => frame.rpcError(-32603, "internal"));
    const client = await connect(server, {
      store: make("me"),
      cancelGraceMs: 500,
      retry: { retries: 2, minTimeoutMs: 10, maxTimeoutMs: 20 },
      logger: { error: () => undefined, warn: () => undefined },
    });
    const handle = call(client);
    const stored = (await settle(handle.ref)) as TaskRef;
    expect(await make("other").claim(stored)).toBeUndefined(); // ours while the handle lives
    end(handle);
    await expect(settle(handle.outcome())).resolves.toMatchObject({ kind, taskId: TASK_ID });
    await vi.advanceTimersByTimeAsync(0);
    expect(await make("other").claim(stored)).toEqual(stored);
  });

  it("a task the server finished leaves the store instead", async () => {
    const redis = new FakeRedis();
    const { make } = stores(redis);
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 100 }),
      "tasks/get": () => frame.completed("42"),
    });
    const client = await connect(server, { store: make("me") });
    await expect(settle(client.callTool("t").outcome())).resolves.toMatchObject({ kind: "completed" });
    await vi.advanceTimersByTimeAsync(0);
    expect(await make("other").list()).toEqual([]);
    expect(redis.owners()).toEqual({});
  });
});

const elicitParams = {
  mode: "form",
  message: "Proceed?",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
};

function inputRequired(inputRequests: Record<string, unknown>): Reply {
  const working = frame.working({ pollIntervalMs: 100 }) as { result: Record<string, unknown> };
  return { result: { ...working.result, status: "input_required", inputRequests } };
}
