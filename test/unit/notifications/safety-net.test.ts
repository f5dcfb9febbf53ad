/**
 * The safety-net cadence under fake timers: once the server acknowledges a task on a listen stream, the client
 * polls it once (to catch what changed before the subscription) and then only every
 * `max(notificationSafetyNetMs, 10 × poll interval)`; pushed snapshots end it; a task the server left out of
 * the acknowledgement, or a broken stream, goes back to regular polling.
 */
import { describe, expect, it, vi } from "vitest";
import { TransportError, type TaskClientOptions } from "mcp-tasks";
import {
  ScriptedServer,
  TASK_ID,
  connect as connectScripted,
  frame,
  gaps,
  settle,
  useFakeTime,
  type WireRequest,
} from "../run/scripted-server.js";

useFakeTime();

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** A server that creates one task, answers polls with `working`, and keeps listens open (never answers). */
function listeningServer(pollIntervalMs = 1000): { server: ScriptedServer; listens: WireRequest[] } {
  const listens: WireRequest[] = [];
  const server = new ScriptedServer({
    "tools/call": () => frame.created({ pollIntervalMs }),
    "tasks/get": () => frame.working({ pollIntervalMs }),
    "subscriptions/listen": (request) => {
      listens.push(request);
      return { silent: true };
    },
  });
  return { server, listens };
}

/** The scripted-server helper turns notifications off for polling tests; these tests want them. */
function connect(server: ScriptedServer, options: TaskClientOptions = {}) {
  return connectScripted(server, { notifications: "auto", ...options });
}

function push(server: ScriptedServer, method: string, params: Record<string, unknown>, listen?: WireRequest) {
  const _meta = listen === undefined ? {} : { [SUBSCRIPTION_ID]: listen.id };
  server.onmessage?.({ jsonrpc: "2.0", method, params: { ...params, _meta } });
}

function acknowledge(server: ScriptedServer, listen: WireRequest, taskIds: string[]) {
  push(server, "notifications/subscriptions/acknowledged", { notifications: { taskIds } }, listen);
}

function snapshot(status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = new Date(Date.now()).toISOString();
  return { taskId: TASK_ID, status, createdAt: now, lastUpdatedAt: now, ttlMs: null, ...extra };
}

describe("the safety net while a task is pushed", () => {
  it("polls once after the acknowledgement, then every 30 s by default", async () => {
    const { server, listens } = listeningServer();
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(20); // the batch window: one listen goes out
    expect(listens).toHaveLength(1);
    const listen = listens[0] as WireRequest;
    expect(listen.params).toMatchObject({ notifications: { taskIds: [TASK_ID] } });
    expect(listen.params["_meta"]).toMatchObject({
      "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
    });

    acknowledge(server, listen, [TASK_ID]);
    await vi.advanceTimersByTimeAsync(100_000);
    const polls = server.times("tasks/get");
    expect(polls[0]).toBe(20); // the catch-up poll, right after the acknowledgement
    expect(gaps(polls)).toEqual([30_000, 30_000, 30_000]);

    push(server, "notifications/tasks", snapshot("completed", { result: { content: [] } }), listen);
    await expect(settle(Promise.resolve(handle))).resolves.toEqual({ content: [] });
    expect(server.times("tasks/get")).toHaveLength(4);
  });

  it("polls at the task's interval until a late acknowledgement, then once, then at the safety net", async () => {
    const { server, listens } = listeningServer(100);
    const client = await connect(server);
    client.callTool("compute");
    await vi.advanceTimersByTimeAsync(350); // the listen went out at 20 ms; no acknowledgement yet
    expect(server.times("tasks/get")).toEqual([100, 200, 300]);
    acknowledge(server, listens[0] as WireRequest, [TASK_ID]);
    await vi.advanceTimersByTimeAsync(31_000);
    // The catch-up poll at once, then nothing until max(30 s, 10 × 100 ms) has passed.
    expect(server.times("tasks/get")).toEqual([100, 200, 300, 350, 30_350]);
  });

  it("is max(notificationSafetyNetMs, 10 × the task's poll interval)", async () => {
    const { server, listens } = listeningServer(5000);
    const client = await connect(server, { notificationSafetyNetMs: 10_000 });
    client.callTool("compute");
    await vi.advanceTimersByTimeAsync(20);
    acknowledge(server, listens[0] as WireRequest, [TASK_ID]);
    await vi.advanceTimersByTimeAsync(190_000);
    expect(gaps(server.times("tasks/get"))).toEqual([50_000, 50_000, 50_000]);

    const { server: fast, listens: fastListens } = listeningServer(100);
    const other = await connect(fast, { notificationSafetyNetMs: 10_000 });
    other.callTool("compute");
    await vi.advanceTimersByTimeAsync(20);
    acknowledge(fast, fastListens[0] as WireRequest, [TASK_ID]);
    await vi.advanceTimersByTimeAsync(35_000);
    expect(gaps(fast.times("tasks/get"))).toEqual([10_000, 10_000, 10_000]);
  });

  it("keeps regular polling for a task the acknowledgement leaves out, and closes the empty stream", async () => {
    const { server, listens } = listeningServer();
    const client = await connect(server);
    client.callTool("compute");
    await vi.advanceTimersByTimeAsync(20);
    acknowledge(server, listens[0] as WireRequest, []);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(server.times("tasks/get")).toEqual([1000, 2000, 3000, 4000, 5000]);
    // Scripted transports have no per-request stream: the listen is ended with notifications/cancelled.
    expect(server.notifications).toContain("notifications/cancelled");
  });

  it("drops a stale or duplicate pushed snapshot and lets the first terminal one win", async () => {
    const { server, listens } = listeningServer();
    const client = await connect(server);
    const handle = client.callTool("compute");
    const messages: Array<string | undefined> = [];
    handle.on("update", (update) => messages.push(update.statusMessage));
    await vi.advanceTimersByTimeAsync(20);
    const listen = listens[0] as WireRequest;
    acknowledge(server, listen, [TASK_ID]);
    await vi.advanceTimersByTimeAsync(1000);
    const older = snapshot("working", { statusMessage: "older" });
    await vi.advanceTimersByTimeAsync(1000);
    const newer = snapshot("working", { statusMessage: "newer" });
    push(server, "notifications/tasks", newer, listen);
    push(server, "notifications/tasks", newer, listen);
    push(server, "notifications/tasks", older, listen);
    push(server, "notifications/tasks", snapshot("failed", { error: { code: 1, message: "no" } }), listen);
    push(server, "notifications/tasks", snapshot("completed", { result: { content: [] } }), listen);
    const outcome = await settle(handle.outcome());
    expect(outcome.kind).toBe("failed");
    expect(messages.filter((message) => message === "newer")).toHaveLength(1);
    expect(messages).not.toContain("older");
  });

  it("polls at once and listens again when a stream that proved itself breaks", async () => {
    const { server, listens } = listeningServer();
    let first = true;
    server.on("subscriptions/listen", (request) => {
      listens.push(request);
      if (!first) return { silent: true };
      first = false;
      // The server ends the listen (its empty result) after 35 s, while the task is still live: the stream had
      // stayed open past notificationSafetyNetMs (30 s), so it worked.
      return { afterMs: 35_000, reply: { result: { resultType: "complete" } } };
    });
    const client = await connect(server, { retry: { minTimeoutMs: 1000 } });
    client.callTool("compute");
    await vi.advanceTimersByTimeAsync(20);
    acknowledge(server, listens[0] as WireRequest, [TASK_ID]);
    await vi.advanceTimersByTimeAsync(34_000);
    expect(server.times("tasks/get")).toEqual([20, 30_020]); // the catch-up poll and one safety-net poll
    await vi.advanceTimersByTimeAsync(1_000); // the listen (sent at 10) ends at 35 010
    const [, , atBreak] = server.times("tasks/get");
    expect(atBreak).toBeGreaterThanOrEqual(35_010);
    expect(atBreak).toBeLessThan(35_020); // at once, not at the regular 1 s cadence
    await vi.advanceTimersByTimeAsync(2_100); // backoff: 1000 ms with up to 100 % jitter
    expect(listens).toHaveLength(2);
  });

  it("keeps the interval when a stream ends before it proved itself, and re-listens with backoff", async () => {
    const { server, listens } = listeningServer();
    let first = true;
    server.on("subscriptions/listen", (request) => {
      listens.push(request);
      if (!first) return { silent: true };
      first = false;
      return { afterMs: 300, reply: { result: { resultType: "complete" } } };
    });
    const client = await connect(server, { retry: { minTimeoutMs: 1000 } });
    client.callTool("compute");
    await vi.advanceTimersByTimeAsync(20);
    acknowledge(server, listens[0] as WireRequest, [TASK_ID]);
    await vi.advanceTimersByTimeAsync(1_500); // the listen ended at 310
    // Not at 310: the stream pushed for 290 ms and can have lost no more than that; the interval since the
    // catch-up poll (20 ms) covers it.
    expect(server.times("tasks/get")).toEqual([20, 1020]);
    await vi.advanceTimersByTimeAsync(1_700); // backoff: 1000 ms with up to 100 % jitter
    expect(listens).toHaveLength(2);
    // Acknowledged again, the task is polled at its interval until this stream has proved itself (30 s).
    acknowledge(server, listens[1] as WireRequest, [TASK_ID]);
    const before = server.times("tasks/get").length;
    await vi.advanceTimersByTimeAsync(3_000);
    expect(server.times("tasks/get").length - before).toBe(3);
  });

  it("a stale working pushed with the input_required one's stamp neither aborts the handler nor asks again", async () => {
    const stamp = new Date(Date.now()).toISOString();
    const asking = {
      taskId: TASK_ID,
      status: "input_required",
      createdAt: stamp,
      lastUpdatedAt: stamp,
      ttlMs: null,
      inputRequests: {
        q: {
          method: "elicitation/create",
          params: { mode: "form", message: "Go?", requestedSchema: { type: "object", properties: {} } },
        },
      },
    };
    const staleWorking = {
      taskId: TASK_ID,
      status: "working",
      createdAt: stamp,
      lastUpdatedAt: stamp,
      ttlMs: null,
    };
    const { server, listens } = listeningServer();
    server.on("tasks/get", () => ({ result: { resultType: "complete", ...asking } }));
    let asked = 0;
    let aborted = 0;
    const client = await connect(server, {
      inputHandlers: {
        elicitation: (_request, context) => {
          asked += 1;
          context.signal.addEventListener("abort", () => void (aborted += 1));
          return new Promise(() => undefined); // the user never answers in this test
        },
      },
    });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(20);
    const listen = listens[0] as WireRequest;
    acknowledge(server, listen, [TASK_ID]);
    push(server, "notifications/tasks", asking, listen);
    await vi.advanceTimersByTimeAsync(10); // the handler is running
    expect(asked).toBe(1);
    push(server, "notifications/tasks", staleWorking, listen);
    await vi.advanceTimersByTimeAsync(65_000); // two safety-net polls answer input_required again
    expect(server.times("tasks/get").length).toBeGreaterThanOrEqual(3);
    expect(handle.status).toBe("input_required");
    expect(aborted).toBe(0);
    expect(asked).toBe(1);
    handle.detach();
  });
  it("polls a pushed task at its interval again once a cancel began, while its answer is awaited", async () => {
    const { server, listens } = listeningServer();
    server.on("tasks/cancel", () => ({ silent: true })); // the cancel is never answered
    const client = await connect(server, { cancelGraceMs: 10_000 });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(20);
    acknowledge(server, listens[0] as WireRequest, [TASK_ID]);
    await vi.advanceTimersByTimeAsync(4_980);
    expect(server.times("tasks/get")).toEqual([20]); // the catch-up poll; the safety net is 30 s away
    const cancelled = handle.cancel("stop");
    await vi.advanceTimersByTimeAsync(3_000);
    // The interval since the last poll has passed: at once, then every 1000 ms (not a burst, not 30 s).
    expect(server.times("tasks/get")).toEqual([20, 5000, 6000, 7000, 8000]);
    await vi.advanceTimersByTimeAsync(8_000);
    await expect(cancelled).resolves.toMatchObject({ outcome: { kind: "cancelled" } });
  });
});

describe("a one-shot poll owed during a failed poll (decision 14)", () => {
  it("waits the server's Retry-After, not the owed poll's 'at once'", async () => {
    const { server, listens } = listeningServer(1000);
    const unavailable = new TransportError("tasks/get: the server answered HTTP 503", {
      status: 503,
      transient: true,
      retryAfterMs: 5000,
    });
    let polls = 0;
    // The first poll is in flight 300 ms and then fails: 503, Retry-After: 5.
    server.on("tasks/get", () =>
      ++polls === 1 ? { rejectsAfterMs: 300, error: unavailable } : frame.working({ pollIntervalMs: 1000 }),
    );
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(1100); // the listen went out at 10 ms; the first poll at 1000 ms
    expect(server.times("tasks/get")).toEqual([1000]);
    acknowledge(server, listens[0] as WireRequest, [TASK_ID]); // during the poll: its catch-up poll is owed
    await vi.advanceTimersByTimeAsync(5_150);
    expect(server.times("tasks/get")).toEqual([1000]); // not at 1300 ms, when the poll failed
    await vi.advanceTimersByTimeAsync(2_600);
    // The owed catch-up poll waits the 5 s from the failure (1300 ms), lengthened by up to half of it (jitter).
    const [, retried] = server.times("tasks/get");
    expect(retried).toBeGreaterThanOrEqual(6300);
    expect(retried).toBeLessThanOrEqual(8800);
    handle.detach();
  });
});
