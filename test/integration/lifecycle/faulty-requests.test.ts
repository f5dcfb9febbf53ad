/**
 * Decision 9: requests that fail or hang (injected by a proxy in front of the reference server) never
 * keep a time limit from acting, never stretch a cancel beyond `cancelGraceMs`, and never leak an unhandled
 * rejection. Wall-clock timings are checked only as lower bounds (nothing ends before its limit); that each ends
 * at its limit and no later is pinned in fake time by test/unit/run (deadlines.test.ts, cancellation.test.ts),
 * and a client that waited for the 60 s request timeout instead would fail these tests by their own timeout.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  TaskClient,
  TaskCancelledError,
  TransportError,
  type TaskClientOptions,
} from "../../../src/index.js";
import {
  defineTool,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "../../../src/testing/index.js";
import { startFaultProxy, type FaultProxy } from "./fault-proxy.js";
import { FAST, closesAfterEach, macrotask, question } from "./helpers.js";

const track = closesAfterEach();

const tools = [
  defineTool({
    name: "finishes",
    task: "required",
    pollIntervalMs: 10,
    steps: [step.complete(textResult("ok"))],
  }),
  defineTool({ name: "stalls", task: "required", pollIntervalMs: 10, steps: [step.stall()] }),
  defineTool({
    name: "short_lived",
    task: "required",
    pollIntervalMs: 10,
    ttlMs: 200,
    steps: [step.stall()],
  }),
  defineTool({
    name: "asks",
    task: "required",
    pollIntervalMs: 10,
    steps: [step.input({ q: question }), step.stall()],
  }),
];

async function setup(options: TaskClientOptions = {}): Promise<{
  server: HttpTaskServer;
  proxy: FaultProxy;
  client: TaskClient;
}> {
  const server = track(await startTaskServer({ tools }));
  const proxy = track(await startFaultProxy(server.url));
  const client = track(
    await TaskClient.connect(proxy.url, { ...FAST, requestTimeoutMs: 60_000, ...options }),
  );
  // Warm up the code paths, so a short deadline is not spent on the first call's module loading.
  await client.callTool("finishes");
  return { server, proxy, client };
}

describe("time limits while a tasks/get hangs", () => {
  it("ends the handle with deadline_exceeded at the deadline, not at the request timeout", async () => {
    const { proxy, client } = await setup();
    proxy.fault("tasks/get", "hang");
    const started = performance.now();
    // 1 s, not less: on a loaded machine a shorter deadline can pass before the first poll is even sent.
    const handle = client.callTool("stalls", {}, { timeoutMs: 1_000 });
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("deadline_exceeded");
    expect(outcome.taskId).toEqual(expect.any(String));
    expect(performance.now() - started).toBeGreaterThanOrEqual(995); // 1 s, less timer rounding
    expect(proxy.faulted.get("tasks/get")).toBeGreaterThanOrEqual(1);
  });

  it("ends the handle with expired at the TTL backstop while the poll hangs", async () => {
    const { proxy, client } = await setup({ ttlGraceMs: 0 });
    proxy.fault("tasks/get", "hang");
    const started = performance.now();
    const handle = client.callTool("short_lived");
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("expired");
    expect(performance.now() - started).toBeGreaterThanOrEqual(195); // the 200 ms TTL, less timer rounding
    expect(proxy.faulted.get("tasks/get")).toBeGreaterThanOrEqual(1);
  });
});

describe("cancelGraceMs bounds a tasks/cancel that fails or hangs", () => {
  it("ends the handle unconfirmed and reports the refusal when tasks/cancel answers HTTP 500 forever", async () => {
    // A grace long enough for the three quick retries to give up first, so the refusal is what cancel() reports.
    const { server, proxy, client } = await setup({ cancelGraceMs: 2_000 });
    proxy.fault("tasks/cancel", { status: 500 });
    const handle = client.callTool("stalls");
    const taskId = await handle.created;
    const cancelled = await handle.cancel("stop");
    expect(cancelled.outcome.kind).toBe("cancelled");
    expect((cancelled.outcome as { error: TaskCancelledError }).error.confirmed).toBe(false);
    expect(cancelled.ack).toBeUndefined();
    expect(cancelled.error).toBeInstanceOf(TransportError);
    expect((cancelled.error as TransportError).status).toBe(500);
    expect(proxy.faulted.get("tasks/cancel")).toBeGreaterThanOrEqual(1);
    // The cancel never reached the server: the task is still running there.
    expect(server.tasks.get(taskId as string)?.status).toBe("working");
  });

  it("ends the handle within the grace when retrying a tasks/cancel that answers HTTP 500 would take longer", async () => {
    // Six retries at least a second apart: a client that waits for them settles after 6 s or more (the defect:
    // 62.8 s with the default retries and a 1 s grace). The grace must cut the retries short.
    const { server, proxy, client } = await setup({
      cancelGraceMs: 300,
      retry: { minTimeoutMs: 1_000, maxTimeoutMs: 1_000, retries: 6 },
    });
    proxy.fault("tasks/cancel", { status: 500 });
    const handle = client.callTool("stalls");
    const taskId = await handle.created;
    const started = performance.now();
    const cancelling = handle.cancel("stop").catch((error: unknown) => ({ rejected: error }));
    const outcome = await handle.outcome();
    expect(performance.now() - started).toBeGreaterThanOrEqual(295); // the 300 ms grace, less timer rounding
    expect(outcome.kind).toBe("cancelled");
    expect((outcome as { error: TaskCancelledError }).error.confirmed).toBe(false);
    expect(proxy.faulted.get("tasks/cancel")).toBeGreaterThanOrEqual(1);
    expect(server.tasks.get(taskId as string)?.status).toBe("working");
    // cancel() resolves with the same ending, no acknowledgement, the last fault as the reason, and never rejects.
    const cancelled = await cancelling;
    expect(cancelled).toMatchObject({ ack: undefined, outcome });
    expect((cancelled as { error?: unknown }).error).toBeInstanceOf(TransportError);
    expect((cancelled as { error: TransportError }).error.status).toBe(500);
  });

  it("ends the handle unconfirmed within the grace when tasks/cancel hangs", async () => {
    const { proxy, client } = await setup({ cancelGraceMs: 300 });
    proxy.fault("tasks/cancel", "hang");
    const handle = client.callTool("stalls");
    await handle.created;
    const started = performance.now();
    const cancelled = await handle.cancel("stop");
    expect(performance.now() - started).toBeGreaterThanOrEqual(295); // the 300 ms grace, less timer rounding
    expect(cancelled.outcome.kind).toBe("cancelled");
    expect((cancelled.outcome as { error: TaskCancelledError }).error.confirmed).toBe(false);
    expect(cancelled.ack).toBeUndefined();
    expect(proxy.faulted.get("tasks/cancel")).toBe(1);
  });
});

describe("unansweredInput: cancel with a tasks/cancel that fails", () => {
  const unhandled: unknown[] = [];
  const listener = (reason: unknown) => void unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on("unhandledRejection", listener);
  });
  afterEach(() => {
    process.off("unhandledRejection", listener);
  });

  async function expectNoUnhandledRejection(): Promise<void> {
    await macrotask();
    await macrotask();
    expect(unhandled).toEqual([]);
  }

  it("lets the handle be awaited without an unhandled rejection when tasks/cancel answers HTTP 500", async () => {
    const { proxy, client } = await setup({ unansweredInput: "cancel", cancelGraceMs: 300 });
    proxy.fault("tasks/cancel", { status: 500 });
    const handle = client.callTool("asks");
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("cancelled");
    // Reading only the outcome must not leave a rejection unhandled; awaiting the handle afterwards works too.
    await expectNoUnhandledRejection();
    await expect(handle).rejects.toBeInstanceOf(TaskCancelledError);
    expect(proxy.faulted.get("tasks/cancel")).toBeGreaterThanOrEqual(1);
    await expectNoUnhandledRejection();
  });

  it("lets the handle be awaited without an unhandled rejection when tasks/cancel answers a JSON-RPC error", async () => {
    const { proxy, client } = await setup({ unansweredInput: "cancel", cancelGraceMs: 300 });
    proxy.fault("tasks/cancel", { error: { code: -32000, message: "cannot cancel now" } });
    const handle = client.callTool("asks");
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("cancelled");
    // Reading only the outcome must not leave a rejection unhandled; awaiting the handle afterwards works too.
    await expectNoUnhandledRejection();
    await expect(handle).rejects.toBeInstanceOf(TaskCancelledError);
    expect(proxy.faulted.get("tasks/cancel")).toBe(1);
    await expectNoUnhandledRejection();
  });
});
