/**
 * Faults through a real TaskClient, in fake time: transient faults are retried with growing backoff and the task
 * still completes, `Retry-After` is honoured, and final faults end the handle with the right typed error.
 */
import { describe, expect, it, vi } from "vitest";
import { MissingCapabilityError, ProtocolError, TransportError, type RetryEvent } from "mcp-tasks";
import {
  ScriptedServer,
  TASK_ID,
  connect,
  frame,
  gaps,
  inOrder,
  settle,
  type Reply,
  useFakeTime,
} from "./scripted-server.js";
import { endedAs } from "../../fixtures/errors.js";

useFakeTime();

const retry = { retries: 5, minTimeoutMs: 100, factor: 2, maxTimeoutMs: 10_000 };
const internalError = frame.rpcError(-32603, "Internal error");

/**
 * A task created at 0 whose first poll (after `pollIntervalMs`, default 1000) meets `faults`, then completes. A
 * retry waits max(interval, backoff): a short interval lets the backoff show.
 */
function faultyServer(...faults: Reply[]): ScriptedServer {
  return faultyServerEvery(1000, ...faults);
}

function faultyServerEvery(pollIntervalMs: number, ...faults: Reply[]): ScriptedServer {
  return new ScriptedServer({
    "tools/call": () => frame.created({ pollIntervalMs }),
    "tasks/get": inOrder(...faults, frame.completed("survived")),
  });
}

describe("transient faults on tasks/get", () => {
  it("-32603 is retried with growing backoff and the task still completes", async () => {
    vi.spyOn(Math, "random").mockReturnValue(1); // the top of each jitter window: the full backoff
    const server = faultyServerEvery(50, internalError, internalError, internalError);
    const client = await connect(server, { retry, polling: { minIntervalMs: 10 } });
    const handle = client.callTool("compute");
    const retries: RetryEvent[] = [];
    handle.on("retry", (event) => retries.push(event));

    await vi.advanceTimersByTimeAsync(2000);
    expect(server.times("tasks/get")).toEqual([50, 150, 350, 750]);
    expect(gaps(server.times("tasks/get"))).toEqual([100, 200, 400]);
    expect(retries.map((event) => [event.method, event.attempt])).toEqual([
      ["tasks/get", 1],
      ["tasks/get", 2],
      ["tasks/get", 3],
    ]);
    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "survived" }] });
  });

  it("a transient transport error thrown by send() is retried and the task still completes", async () => {
    vi.spyOn(Math, "random").mockReturnValue(1);
    const dropped = new TransportError("tasks/get: socket hang up", { transient: true });
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const server = faultyServerEvery(50, { throws: dropped }, { throws: reset });
    const client = await connect(server, { retry, polling: { minIntervalMs: 10 } });
    const handle = client.callTool("compute");

    await vi.advanceTimersByTimeAsync(2000);
    // The two failed sends never reached the server's log of answered requests, but they were attempts.
    expect(server.times("tasks/get")).toEqual([50, 150, 350]);
    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "survived" }] });
  });

  it("Retry-After delays the next attempt at least that long", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0); // no lengthening: exactly the Retry-After
    const throttled = new TransportError("tasks/get: the server answered HTTP 429", {
      status: 429,
      retryAfterMs: 3000,
      transient: true,
    });
    const server = faultyServer({ throws: throttled });
    const client = await connect(server, { retry });
    const handle = client.callTool("compute");

    await vi.advanceTimersByTimeAsync(3999);
    expect(server.times("tasks/get")).toEqual([1000]);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.times("tasks/get")).toEqual([1000, 4000]);
    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "survived" }] });
  });

  it("a retry waits the server's interval when the backoff is shorter, and the backoff when it is longer", async () => {
    vi.spyOn(Math, "random").mockReturnValue(1);
    const server = faultyServer(...Array.from({ length: 5 }, () => internalError));
    const client = await connect(server, { retry });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(9000);
    // Backoffs 100, 200, 400, 800 and 1600 ms against the 1000 ms interval: max(interval, backoff) each time.
    expect(gaps(server.times("tasks/get"))).toEqual([1000, 1000, 1000, 1000, 1600]);
    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "survived" }] });
  });

  it("jitters retry waits: tasks that fail together do not retry in lockstep", async () => {
    let failures = 3; // the first poll of each of the three tasks
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 50 }),
      "tasks/get": () => (failures-- > 0 ? internalError : frame.completed("survived")),
    });
    const draws = [0, 0.5, 0.999];
    vi.spyOn(Math, "random").mockImplementation(() => draws.shift() ?? 0);
    const client = await connect(server, { retry, polling: { minIntervalMs: 10 } });
    const handles = [client.callTool("compute"), client.callTool("compute"), client.callTool("compute")];
    await vi.advanceTimersByTimeAsync(1200);
    const retried = server.times("tasks/get").filter((at) => at > 50);
    expect(retried).toEqual([100, 125, 149]);
    for (const handle of handles) {
      await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "survived" }] });
    }
  });

  it("by default retries 8 times, from 250 ms doubling up to 30 s, then ends the handle with the last error", async () => {
    vi.spyOn(Math, "random").mockReturnValue(1); // the top of each jitter window: the full backoff
    // Nine faults: the first poll and 8 retries; a 9th retry would have met the completed task. The 50 ms interval
    // (raised to the 100 ms floor) is shorter than every backoff, so the backoff shows.
    const server = faultyServerEvery(50, ...Array.from({ length: 9 }, () => internalError));
    const client = await connect(server); // no retry option: the documented default
    const handle = client.callTool("compute");
    const outcome = handle.outcome();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(gaps(server.times("tasks/get"))).toEqual([250, 500, 1000, 2000, 4000, 8000, 16_000, 30_000]);
    await expect(outcome).resolves.toMatchObject({
      kind: "error",
      taskId: TASK_ID,
      error: { name: "RpcError", code: -32603, method: "tasks/get" },
    });
  });

  it("a fault that outlasts the retries ends the handle with the last error", async () => {
    const server = faultyServer(...Array.from({ length: 10 }, () => internalError));
    const client = await connect(server, { retry: { ...retry, retries: 2 } });
    const handle = client.callTool("compute");
    const outcome = handle.outcome();
    await vi.advanceTimersByTimeAsync(3000); // polls at 1000, then retries at 2000 and 3000 (the interval)
    expect(server.sent("tasks/get")).toHaveLength(3);
    await expect(outcome).resolves.toMatchObject({
      kind: "error",
      taskId: TASK_ID,
      error: { name: "RpcError", code: -32603, method: "tasks/get" },
    });
  });
});

describe("transient faults on tasks/update", () => {
  const confirm = {
    method: "elicitation/create",
    params: {
      message: "Proceed?",
      requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
    },
  };
  const unavailable = {
    throws: new TransportError("tasks/update: HTTP 503", { status: 503, transient: true }),
  };

  // The wall-clock twin in test/integration/timing keeps only the lower bound; the exact waits are here.
  it("follow the client's retry option, with one retry event per retry", async () => {
    vi.spyOn(Math, "random").mockReturnValue(1); // the top of each jitter window: the full backoff
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000 }),
      "tasks/get": inOrder(frame.inputRequired({ q: confirm }), frame.completed("went ahead")),
      "tasks/update": inOrder(unavailable, unavailable, frame.ack()),
    });
    const client = await connect(server, {
      retry: { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 5, factor: 1 },
      inputHandlers: { elicitation: async () => ({ action: "accept", content: { ok: true } }) },
    });
    const handle = client.callTool("compute");
    const retries: RetryEvent[] = [];
    handle.on("retry", (event) => retries.push(event));

    await vi.advanceTimersByTimeAsync(1100);
    // The default timing would have waited 250 then 500 ms.
    expect(server.times("tasks/update")).toEqual([1000, 1005, 1010]);
    expect(retries.map((event) => [event.method, event.attempt])).toEqual([
      ["tasks/update", 1],
      ["tasks/update", 2],
    ]);
    await vi.advanceTimersByTimeAsync(2000);
    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "went ahead" }] });
  });
});

describe("final faults", () => {
  it("-32602 on tasks/get ends the handle as a not_found TaskEndedError and stops polling", async () => {
    const server = faultyServer(frame.rpcError(-32602, "Failed to retrieve task: Task has expired"));
    const client = await connect(server, { retry });
    const handle = client.callTool("compute");
    const outcome = handle.outcome();
    await vi.advanceTimersByTimeAsync(1000);

    const ended = await outcome;
    expect(ended.kind).toBe("not_found");
    expect(ended.kind === "not_found" && ended.error).toSatisfy(endedAs("not_found"));
    expect(ended).toMatchObject({ taskId: TASK_ID, error: { taskId: TASK_ID } });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.sent("tasks/get")).toHaveLength(1);
    expect(server.sent("tasks/cancel")).toHaveLength(0);
  });

  it("-32021 on tools/call ends the handle with MissingCapabilityError naming the capability", async () => {
    const server = new ScriptedServer({
      "tools/call": () =>
        frame.rpcError(-32021, "Missing required client capability", {
          requiredCapabilities: { elicitation: { form: {} } },
        }),
    });
    const client = await connect(server);
    const error = await client.callTool("confirm").then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(MissingCapabilityError);
    expect(error).toMatchObject({ code: -32021, method: "tools/call", missing: ["elicitation"] });
    expect((error as Error).message).toContain("elicitation");
    expect(server.sent("tools/call")).toHaveLength(1); // not retried
  });

  it("a tasks/get answer for another task is a ProtocolError carrying the method", async () => {
    const server = faultyServer(frame.working({ taskId: "task-someone-else-entirely" }));
    const client = await connect(server);
    const outcome = await settle(client.callTool("compute").outcome());
    expect(outcome).toMatchObject({ kind: "error", error: { name: "ProtocolError", method: "tasks/get" } });
  });

  it("a tasks/get answered with a CreateTaskResult is a ProtocolError carrying the method", async () => {
    const server = faultyServer(frame.created({ taskId: "task-stray-from-tasks-get" }));
    const client = await connect(server);
    const outcome = await settle(client.callTool("compute").outcome());
    expect(outcome.kind).toBe("error");
    expect(outcome.kind === "error" && outcome.error).toBeInstanceOf(ProtocolError);
    expect(outcome).toMatchObject({ error: { method: "tasks/get" } });
  });

  it("a malformed CreateTaskResult is a ProtocolError, and the stray task it names is cancelled", async () => {
    const server = new ScriptedServer({
      // No createdAt / lastUpdatedAt / ttlMs: not a valid task, but the server may well have made one.
      "tools/call": () => ({ result: { resultType: "task", taskId: TASK_ID, status: "working" } }),
    });
    const client = await connect(server);
    const outcome = await settle(client.callTool("compute").outcome());
    expect(outcome.kind).toBe("error");
    expect(outcome.kind === "error" && outcome.error).toBeInstanceOf(ProtocolError);
    expect(outcome).toMatchObject({ error: { method: "tools/call" } });
    await vi.advanceTimersByTimeAsync(1000);
    expect(server.sent("tasks/cancel").map((request) => request.params.taskId)).toEqual([TASK_ID]);
  });
});
