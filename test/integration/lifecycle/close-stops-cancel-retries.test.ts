/**
 * `close()` leaves no timer of the client's behind, even while a `tasks/cancel` that no handle waits for is
 * retrying a transient fault (CI failure of the lifecycle property, seed 877212735: a store that refused a new
 * task's ref, so the client cancelled that task, and the proxy dropped the `tasks/cancel`; the retry's backoff
 * outlived `close()`). The same goes for `handle.cancel()` after the handle ended and for `client.cancel(ref)`:
 * their retries stop at `close()`, and they settle at once instead of waiting out the backoff. A real TaskClient
 * against the reference server, behind the fault proxy that drops every `tasks/cancel`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TaskClient, TaskEndedError } from "../../../src/index.js";
import type { TaskStore } from "../../../src/store/index.js";
import { memoryStore } from "../../../src/store/index.js";
import { defineTool, startTaskServer, step } from "../../../src/testing/index.js";
import { startFaultProxy } from "./fault-proxy.js";
import { closesAfterEach, macrotask } from "./helpers.js";
import { endedAs } from "../../fixtures/errors.js";

const track = closesAfterEach();

/** A retry waits 10 s: far longer than any test here, so a timer left by close() is still there to count. */
const SLOW_RETRY = { minTimeoutMs: 10_000, maxTimeoutMs: 10_000, retries: 3 };

/** Timers that keep the process alive. */
const liveTimers = (): number => process.getActiveResourcesInfo().filter((type) => type === "Timeout").length;

/** `tasks/cancel` requests whose `fetch` failed (the proxy dropped them), counted where the client sees it. */
let cancelsFailed = 0;
beforeEach(() => {
  cancelsFailed = 0;
  // Counted on the global `fetch`, which MCP_TASKS_HTTP=fetch makes the client use on Node.
  vi.stubEnv("MCP_TASKS_HTTP", "fetch");
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const sent = realFetch(input, init);
    if (typeof init?.body === "string" && init.body.includes('"tasks/cancel"'))
      sent.catch(() => void (cancelsFailed += 1));
    return sent;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** Until the dropped `tasks/cancel` failed, and its retry's backoff began (one macrotask later). */
async function retryWaiting(): Promise<void> {
  await expect.poll(() => cancelsFailed, { timeout: 5_000, interval: 5 }).toBe(1);
  await macrotask();
}

async function setup(store?: TaskStore) {
  const server = track(
    await startTaskServer({
      tools: [defineTool({ name: "stalls", task: "required", pollIntervalMs: 50, steps: [step.stall()] })],
    }),
  );
  const proxy = track(await startFaultProxy(server.url));
  proxy.fault("tasks/cancel", "drop");
  const client = track(
    await TaskClient.connect(proxy.url, {
      retry: SLOW_RETRY,
      notifications: "off",
      logger: { error: () => undefined, warn: () => undefined },
      ...(store !== undefined && { store }),
    }),
  );
  return { server, client };
}

describe("close() while a tasks/cancel waits to retry a dropped connection", () => {
  it("stops the retries of the cancel sent for a task whose ref the store refused", async () => {
    const inner = memoryStore();
    const { client } = await setup({
      put: () => Promise.reject(new Error("disk full")),
      remove: (ref) => inner.remove(ref),
      list: (of) => inner.list(of),
    });
    const timersBefore = liveTimers();
    const outcome = await client.callTool("stalls").outcome();
    expect(outcome).toMatchObject({ kind: "error", error: { name: "TaskStoreError" } });
    await retryWaiting();

    await client.close();
    expect(liveTimers(), "timers left by the client after close()").toBeLessThanOrEqual(timersBefore);
  });

  it("settles handle.cancel() after the end at once, and leaves no timer", async () => {
    const { client } = await setup();
    const handle = client.callTool("stalls", {}, { timeoutMs: 200 });
    expect((await handle.outcome()).kind).toBe("deadline_exceeded");
    const timersBefore = liveTimers();
    const cancelled = handle.cancel();
    await retryWaiting();

    await client.close();
    expect(liveTimers(), "timers left by the client after close()").toBeLessThanOrEqual(timersBefore);
    const result = await cancelled;
    expect(result.ack).toBeUndefined();
    expect(result.error).toBeDefined();
  });

  it("rejects client.cancel(ref) at once with a closed TaskEndedError carrying the task id, and leaves no timer", async () => {
    const { client } = await setup();
    const handle = client.callTool("stalls");
    const taskId = (await handle.created) as string;
    handle.detach();
    expect((await handle.outcome()).kind).toBe("detached");
    const timersBefore = liveTimers();
    const cancelled = client.cancel(taskId);
    cancelled.catch(() => undefined); // looked at below, after close()
    await retryWaiting();

    await client.close();
    expect(liveTimers(), "timers left by the client after close()").toBeLessThanOrEqual(timersBefore);
    const error: unknown = await cancelled.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toSatisfy(endedAs("closed"));
    expect((error as TaskEndedError).taskId).toBe(taskId);
  });
});
