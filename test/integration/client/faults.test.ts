/**
 * HTTP-level faults through a real TaskClient: msw answers the SDK transports' own fetch calls to
 * `http://mcp.test/mcp` like a task server that misbehaves on cue. Transient faults on `tasks/get` are retried
 * until the task completes; broken frames end the handle with a typed error that names the method. Retry and
 * poll timings are a few milliseconds, so nothing sleeps for long. msw sees `fetch` only, so the URL connections
 * here take the `fetch` path (`MCP_TASKS_HTTP=fetch`).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ProtocolError, TaskClient, TransportError, type ConnectTarget, type RetryEvent } from "mcp-tasks";
import { withHttpErrorMapping, withRoutingHeaders } from "mcp-tasks/transport";
import { endedAs } from "../../fixtures/errors.js";

const ENDPOINT = "http://mcp.test/mcp";
const TASK_ID = "task-msw-0001-abcdef";
const STAMP = "2026-08-01T10:00:00.000Z";

type RpcRequest = { id: string; method: string; params?: Record<string, unknown> };
type Answer = (request: RpcRequest) => Response;

const ok = (request: RpcRequest, result: Record<string, unknown>) =>
  HttpResponse.json({ jsonrpc: "2.0", id: request.id, result });
const task = { taskId: TASK_ID, createdAt: STAMP, lastUpdatedAt: STAMP, ttlMs: null, pollIntervalMs: 1 };
const created: Answer = (request) => ok(request, { resultType: "task", ...task, status: "working" });
const completed: Answer = (request) =>
  ok(request, {
    resultType: "complete",
    ...task,
    status: "completed",
    result: { content: [{ type: "text", text: "made it" }] },
  });

/** Per-method answers; `tasks/get` takes them in order and repeats the last. */
let toolsCall: Answer = created;
let polls: Answer[] = [completed];
const seen: RpcRequest[] = [];

const mockServer = setupServer(
  http.post(ENDPOINT, async ({ request }) => {
    const body = (await request.json()) as RpcRequest;
    if (body.id === undefined) return new HttpResponse(null, { status: 202 });
    seen.push(body);
    switch (body.method) {
      case "server/discover":
        return ok(body, {
          supportedVersions: ["2026-07-28"],
          capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
        });
      case "tools/call":
        return toolsCall(body);
      case "tasks/get":
        return ((polls.length > 1 ? polls.shift() : polls[0]) as Answer)(body);
      default:
        return ok(body, {});
    }
  }),
);

beforeAll(() => {
  vi.stubEnv("MCP_TASKS_HTTP", "fetch");
  mockServer.listen({ onUnhandledRequest: "error" });
});
afterEach(() => {
  toolsCall = created;
  polls = [completed];
  seen.length = 0;
});
afterAll(() => {
  mockServer.close();
  vi.unstubAllEnvs();
});

const transports: Array<[string, () => ConnectTarget]> = [
  ["a URL (v2 transport)", () => ENDPOINT],
  [
    "the v1 transport with withRoutingHeaders(withHttpErrorMapping())",
    () => new V1Transport(new URL(ENDPOINT), { fetch: withRoutingHeaders(withHttpErrorMapping()) }),
  ],
];

const options = {
  retry: { retries: 4, minTimeoutMs: 1, maxTimeoutMs: 5, factor: 2 },
  polling: { minIntervalMs: 1, defaultIntervalMs: 1, maxIntervalMs: 5 },
};

const sentOf = (method: string) => seen.filter((request) => request.method === method);

describe.each(transports)("faults through %s", (_label, target) => {
  let client: TaskClient;
  beforeAll(async () => {
    client = await TaskClient.connect(target(), options);
  });
  afterAll(async () => {
    await client.close();
  });

  /** Calls a tool, records its retries, and returns how the handle ended. */
  async function run() {
    const handle = client.callTool("job");
    const retries: RetryEvent[] = [];
    handle.on("retry", (event) => retries.push(event));
    return { outcome: await handle.outcome(), retries };
  }

  it("retries HTTP 503 on tasks/get and the task completes", async () => {
    const unavailable = () => new HttpResponse("upstream down", { status: 503 });
    polls = [unavailable, unavailable, completed];
    const { outcome, retries } = await run();
    expect(outcome).toMatchObject({ kind: "completed", result: { content: [{ text: "made it" }] } });
    expect(retries.map((event) => event.error)).toEqual([
      expect.objectContaining({ name: "TransportError", status: 503, transient: true }),
      expect.objectContaining({ name: "TransportError", status: 503, transient: true }),
    ]);
    expect(sentOf("tasks/get")).toHaveLength(3);
  });

  it("retries HTTP 429 with Retry-After, reading the delay, and the task completes", async () => {
    polls = [
      () => new HttpResponse("slow down", { status: 429, headers: { "Retry-After": "1" } }),
      completed,
    ];
    const { outcome, retries } = await run();
    expect(outcome.kind).toBe("completed");
    expect(retries).toHaveLength(1);
    expect(retries[0]?.error).toMatchObject({ status: 429, retryAfterMs: 1000, transient: true });
  });

  it("retries a connection reset on tasks/get and the task completes", async () => {
    polls = [() => HttpResponse.error(), completed];
    const { outcome, retries } = await run();
    expect(outcome.kind).toBe("completed");
    expect(retries[0]?.error).toBeInstanceOf(TransportError);
  });

  it("retries a cut-off JSON body once and the task completes", async () => {
    const cutOff = () =>
      new HttpResponse('{"jsonrpc":"2.0","id":', { headers: { "content-type": "application/json" } });
    polls = [cutOff, completed];
    const { outcome } = await run();
    expect(outcome.kind).toBe("completed");
  });

  it("ends with a TransportError naming tasks/get when every body is malformed JSON", async () => {
    polls = [() => new HttpResponse("{not json", { headers: { "content-type": "application/json" } })];
    const { outcome } = await run();
    expect(outcome.kind).toBe("error");
    expect(outcome.kind === "error" && outcome.error).toBeInstanceOf(TransportError);
    expect(outcome.kind === "error" && outcome.error.message).toMatch(/^tasks\/get: /);
    expect(sentOf("tasks/get")).toHaveLength(options.retry.retries + 1);
  });

  it("ends with a ProtocolError carrying the method and frame when a task state violates the schema", async () => {
    const frame = {
      resultType: "complete",
      taskId: TASK_ID,
      status: "working",
      createdAt: STAMP,
      ttlMs: null,
    };
    polls = [(request) => ok(request, frame)];
    const { outcome } = await run();
    expect(outcome.kind).toBe("error");
    expect(outcome.kind === "error" && outcome.error).toBeInstanceOf(ProtocolError);
    expect(outcome).toMatchObject({ taskId: TASK_ID, error: { method: "tasks/get", frame } });
    expect(sentOf("tasks/get")).toHaveLength(1); // a broken frame is not retried
  });

  it("ends with a ProtocolError when a completed task's result is not a CallToolResult", async () => {
    polls = [
      (request) =>
        ok(request, { resultType: "complete", ...task, status: "completed", result: { content: "x" } }),
    ];
    const { outcome } = await run();
    expect(outcome).toMatchObject({ kind: "error", error: { name: "ProtocolError", method: "tasks/get" } });
  });

  it("ends with a ProtocolError when the answer is not a JSON-RPC message", async () => {
    polls = [(request) => HttpResponse.json({ id: request.id, answer: 42 })];
    const { outcome } = await run();
    expect(outcome).toMatchObject({ kind: "error", error: { name: "ProtocolError", method: "tasks/get" } });
  });

  it("ends with a ProtocolError naming tools/call when the immediate result violates the schema", async () => {
    toolsCall = (request) => ok(request, { content: [{ type: "text" }] });
    const { outcome } = await run();
    expect(outcome).toMatchObject({ kind: "error", error: { name: "ProtocolError", method: "tools/call" } });
  });

  it("does not retry tools/call: a 503 there may hide a task, so it ends with the TransportError", async () => {
    toolsCall = () => new HttpResponse("down", { status: 503 });
    const { outcome } = await run();
    expect(outcome).toMatchObject({ kind: "error", error: { name: "TransportError", status: 503 } });
    expect(sentOf("tools/call")).toHaveLength(1);
  });

  it("reads a -32602 error body on HTTP 404 as a not_found TaskEndedError", async () => {
    polls = [
      (request) =>
        HttpResponse.json(
          { jsonrpc: "2.0", id: request.id, error: { code: -32602, message: "Task not found" } },
          { status: 404 },
        ),
    ];
    const { outcome } = await run();
    expect(outcome.kind).toBe("not_found");
    expect(outcome.kind === "not_found" && outcome.error).toSatisfy(endedAs("not_found"));
  });
});
