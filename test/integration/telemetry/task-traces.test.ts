/**
 * Telemetry end to end: a TaskClient with `telemetry` on against the reference server with its own tracer, both
 * writing to one in-memory exporter, over Streamable HTTP on 127.0.0.1. Each task's life is one span with its
 * requests as CLIENT children and the server's SERVER spans under those, in one trace; every request carries
 * W3C trace context in `_meta`, from the span it belongs to (the server's request log shows it).
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { TaskClient, type TaskClientOptions } from "mcp-tasks";
import {
  defineTool,
  elicitForm,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
  type RecordedRequest,
} from "mcp-tasks/testing";
import {
  CLIENT,
  INTERNAL,
  SERVER,
  childrenOf,
  clientSpanFor,
  id,
  inMemoryOtel,
  metaOf,
  only,
  parentOf,
  serverSpanFor,
  traceOf,
  traceparentOf,
  type Otel,
} from "./otel.js";

const question = elicitForm("Delete it?", { ok: { type: "boolean" } }, ["ok"]);
const another = elicitForm("Really?", { ok: { type: "boolean" } }, ["ok"]);
const tools = [
  defineTool({
    name: "build",
    task: "required",
    steps: [step.pollInterval(5), step.working("Building"), step.complete(textResult("built"))],
  }),
  defineTool({
    name: "breaks",
    task: "required",
    steps: [step.pollInterval(5), step.fail({ code: -32603, message: "boom" })],
  }),
  defineTool({ name: "endless", task: "required", steps: [step.pollInterval(5), step.stall()] }),
  defineTool({
    name: "confirm",
    task: "required",
    steps: [step.pollInterval(5), step.input({ q: question }), step.complete(textResult("deleted"))],
  }),
  defineTool({
    name: "confirm_twice",
    task: "required",
    steps: [step.pollInterval(5), step.input({ a: question, b: another }), step.complete(textResult("sure"))],
  }),
  defineTool({
    name: "flaky",
    task: "required",
    steps: [step.pollInterval(5), step.pollErrors(1), step.complete(textResult("fine"))],
  }),
];

const redacted = (taskId: string) => `${taskId.slice(0, 4)}…${taskId.slice(-2)}`;

const fast: TaskClientOptions = {
  polling: { minIntervalMs: 1, defaultIntervalMs: 5, maxIntervalMs: 20, jitter: 0 },
  retry: { retries: 3, minTimeoutMs: 1, maxTimeoutMs: 5 },
  notifications: "off",
};

let otel: Otel;
let client: TaskClient | undefined;

beforeAll(() => {
  otel = inMemoryOtel();
});
beforeEach(() => otel.exporter.reset());
afterEach(async () => {
  await client?.close();
  client = undefined;
});

async function connect(server: HttpTaskServer, options: TaskClientOptions = {}): Promise<TaskClient> {
  client = await TaskClient.connect(server.url, {
    ...fast,
    telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
    ...options,
  });
  return client;
}

/** Waits until the server has ended the span of every request it logged (it ends them as answers go out). */
async function serverSpansOf(server: HttpTaskServer, method: string): Promise<ReadableSpan[]> {
  const requests = server.requests.forMethod(method);
  await vi.waitFor(() => {
    for (const request of requests) expect(serverSpanFor(otel.spans(), request.id)).toBeDefined();
  });
  return requests.map((request) => serverSpanFor(otel.spans(), request.id) as ReadableSpan);
}

function eventsOf(span: ReadableSpan): [string, Record<string, unknown>][] {
  return span.events.map((event) => [event.name, { ...event.attributes }]);
}

describe("against a 2026-07-28 server", () => {
  let server: HttpTaskServer;
  beforeAll(async () => {
    server = await startTaskServer({ tools, tracerProvider: otel.tracerProvider });
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(() => server.requests.clear());

  const connection = () => ({
    "network.transport": "tcp",
    "network.protocol.name": "http",
    "server.address": "127.0.0.1",
    "server.port": server.port,
    "mcp.protocol.version": "2026-07-28",
  });

  it("a task that completes is one span with its call as a CLIENT child and the server's span under that", async () => {
    const handle = (await connect(server)).callTool("build", {});
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("completed");
    const taskId = handle.taskId as string;
    const spans = otel.spans();

    const task = only(spans, "task build", INTERNAL);
    expect(parentOf(task)).toBeUndefined(); // no active context: a root
    expect(task.attributes).toEqual({
      ...connection(),
      "gen_ai.tool.name": "build",
      "mcp_tasks.task.id": redacted(taskId),
      "mcp_tasks.task.outcome": "completed",
      "mcp_tasks.task.status": "completed",
    });
    expect(task.status.code).toBe(0); // UNSET: success is not marked
    expect(eventsOf(task)).toEqual([
      ["mcp_tasks.task.created", { "mcp_tasks.task.id": redacted(taskId) }],
      ["mcp_tasks.task.status", { "mcp_tasks.task.status": "working" }],
      ["mcp_tasks.task.status", { "mcp_tasks.task.status": "completed" }],
    ]);

    const [call] = server.requests.forMethod("tools/call") as [RecordedRequest];
    const callSpan = only(spans, "tools/call build", CLIENT);
    expect(parentOf(callSpan)).toBe(id(task));
    expect(callSpan.attributes).toEqual({
      ...connection(),
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "build",
      "gen_ai.operation.name": "execute_tool",
      "jsonrpc.request.id": call.id,
    });
    const [serverCall] = await serverSpansOf(server, "tools/call");
    expect(serverCall?.name).toBe("tools/call build");
    expect(serverCall?.kind).toBe(SERVER);
    expect(parentOf(serverCall as ReadableSpan)).toBe(id(callSpan));
    expect(traceOf(serverCall as ReadableSpan)).toBe(traceOf(task));

    // Polls (default "errors": none failed) have no client span; the server's poll spans hang off the task span.
    expect(spans.filter((span) => span.kind === CLIENT && span.name.startsWith("tasks/get"))).toEqual([]);
    const polls = await serverSpansOf(server, "tasks/get");
    expect(polls.length).toBeGreaterThanOrEqual(2);
    for (const poll of polls) expect(parentOf(poll)).toBe(id(task));
  });

  it("a task that fails ends its span with ERROR and the JSON-RPC code as error.type", async () => {
    const outcome = await (await connect(server)).callTool("breaks", {}).outcome();
    expect(outcome.kind).toBe("failed");
    const task = only(otel.spans(), "task breaks", INTERNAL);
    expect(task.attributes).toMatchObject({
      "mcp_tasks.task.outcome": "failed",
      "mcp_tasks.task.status": "failed",
      "error.type": "-32603",
      "rpc.response.status_code": "-32603",
    });
    expect(task.status.code).toBe(2);
    expect(task.status.message).toContain("boom");
  });

  it("a cancelled task: tasks/cancel is a child of the task span, the outcome is error.type cancelled", async () => {
    const handle = (await connect(server)).callTool("endless", {});
    await handle.created;
    const { outcome } = await handle.cancel();
    expect(outcome.kind).toBe("cancelled");
    const spans = otel.spans();
    const task = only(spans, "task endless", INTERNAL);
    const cancel = only(spans, "tasks/cancel endless", CLIENT);
    expect(parentOf(cancel)).toBe(id(task));
    expect(cancel.attributes).toMatchObject({
      "mcp.method.name": "tasks/cancel",
      "gen_ai.tool.name": "endless",
      "mcp_tasks.task.id": redacted(handle.taskId as string),
    });
    expect(task.attributes).toMatchObject({
      "mcp_tasks.task.outcome": "cancelled",
      "error.type": "cancelled",
    });
    expect(task.status.code).toBe(2);
    expect(eventsOf(task).map(([name, attributes]) => attributes["mcp_tasks.task.status"] ?? name)).toEqual([
      "mcp_tasks.task.created",
      "working",
      "cancelled",
    ]);
  });

  it("a task with input: one event for the round, and tasks/update is a child of the task span", async () => {
    const c = await connect(server, {
      inputHandlers: { elicitation: async () => ({ action: "accept", content: { ok: true } }) },
    });
    const outcome = await c.callTool("confirm", {}).outcome();
    expect(outcome.kind).toBe("completed");
    const spans = otel.spans();
    const task = only(spans, "task confirm", INTERNAL);
    expect(eventsOf(task)).toContainEqual([
      "mcp_tasks.task.input",
      {
        "mcp_tasks.input.round": 1,
        "mcp_tasks.input.keys": ["q"],
        "mcp_tasks.input.methods": ["elicitation/create"],
      },
    ]);
    expect(eventsOf(task).map(([name, attributes]) => attributes["mcp_tasks.task.status"] ?? name)).toEqual([
      "mcp_tasks.task.created",
      "working",
      "input_required",
      "mcp_tasks.task.input",
      "completed",
    ]);
    const update = only(spans, "tasks/update confirm", CLIENT);
    expect(parentOf(update)).toBe(id(task));
    const [serverUpdate] = await serverSpansOf(server, "tasks/update");
    expect(parentOf(serverUpdate as ReadableSpan)).toBe(id(update));
  });

  it("two input requests asked at once are one round: one event naming both", async () => {
    const c = await connect(server, {
      inputHandlers: { elicitation: async () => ({ action: "accept", content: { ok: true } }) },
    });
    expect((await c.callTool("confirm_twice", {}).outcome()).kind).toBe("completed");
    const task = only(otel.spans(), "task confirm_twice", INTERNAL);
    expect(eventsOf(task).filter(([name]) => name === "mcp_tasks.task.input")).toEqual([
      [
        "mcp_tasks.task.input",
        {
          "mcp_tasks.input.round": 1,
          "mcp_tasks.input.keys": ["a", "b"],
          "mcp_tasks.input.methods": ["elicitation/create", "elicitation/create"],
        },
      ],
    ]);
  });

  it("every request kind carries traceparent from the span it belongs to, and the server continues it", async () => {
    const c = await connect(server, {
      notifications: "auto",
      inputHandlers: { elicitation: async () => ({ action: "accept", content: { ok: true } }) },
      telemetry: { tracerProvider: otel.tracerProvider, pollSpans: "all" },
    });
    await c.callTool("confirm", {}).outcome();
    const handle = c.callTool("endless", {});
    await handle.created;
    await handle.cancel();
    await c.close();
    const spans = otel.spans();
    const tasks = spans.filter((span) => span.kind === INTERNAL);
    expect(tasks.map((span) => span.name).sort()).toEqual(["task confirm", "task endless"]);

    // A listen the client closed because its task ended is an ending, not a failure.
    const listens = spans.filter(
      (span) => span.kind === CLIENT && span.name.startsWith("subscriptions/listen"),
    );
    expect(listens.length).toBeGreaterThan(0);
    for (const listen of listens) {
      expect(listen.status.code).toBe(0);
      expect(listen.attributes["error.type"]).toBeUndefined();
      expect(listen.attributes["mcp_tasks.listen.tasks"]).toBe(1);
    }

    const kinds = ["tools/call", "tasks/get", "tasks/update", "tasks/cancel", "subscriptions/listen"];
    for (const method of kinds) {
      const requests = server.requests.forMethod(method);
      expect(requests.length, method).toBeGreaterThan(0);
      const serverSpans = await serverSpansOf(server, method);
      requests.forEach((request, index) => {
        const own = clientSpanFor(spans, request.id) as ReadableSpan;
        expect(own, `${method} has a client span`).toBeDefined();
        // The traceparent names the request's own span, whose parent is its task's span.
        expect(traceparentOf(request)).toEqual({ traceId: traceOf(own), parentId: id(own) });
        expect(tasks.map(id)).toContain(parentOf(own));
        const serverSpan = serverSpans[index] as ReadableSpan;
        expect(parentOf(serverSpan)).toBe(id(own));
        expect(traceOf(serverSpan)).toBe(traceOf(own));
      });
    }
  });

  it("a poll without a span of its own carries the task span's context; taskIds full records the whole id", async () => {
    const telemetry = { tracerProvider: otel.tracerProvider, pollSpans: "none", taskIds: "full" } as const;
    const handle = (await connect(server, { telemetry })).callTool("build", {});
    await handle.outcome();
    const task = only(otel.spans(), "task build", INTERNAL);
    const polls = server.requests.forMethod("tasks/get");
    expect(polls.length).toBeGreaterThanOrEqual(2);
    for (const poll of polls)
      expect(traceparentOf(poll)).toEqual({ traceId: traceOf(task), parentId: id(task) });
    expect(task.attributes["mcp_tasks.task.id"]).toBe(handle.taskId);
  });

  it.each([
    ["all", 3, 1],
    ["errors", 1, 1],
    ["none", 0, 0],
  ] as const)(
    "pollSpans %s: %i client spans for the three polls, %i of them failed",
    async (mode, count, failed) => {
      const c = await connect(server, {
        telemetry: { tracerProvider: otel.tracerProvider, pollSpans: mode },
      });
      const handle = c.callTool("flaky", {});
      expect((await handle.outcome()).kind).toBe("completed");
      expect(server.requests.forMethod("tasks/get")).toHaveLength(3); // the failed one, its retry, the last word
      const task = only(otel.spans(), "task flaky", INTERNAL);
      const polls = otel.spans().filter((span) => span.kind === CLIENT && span.name === "tasks/get flaky");
      expect(polls).toHaveLength(count);
      const errors = polls.filter((span) => span.status.code === 2);
      expect(errors).toHaveLength(failed);
      for (const poll of polls) expect(parentOf(poll)).toBe(id(task));
      for (const poll of errors) {
        expect(poll.attributes).toMatchObject({
          "error.type": "-32603",
          "rpc.response.status_code": "-32603",
        });
        // Made when the failure was known, it still starts when the poll was sent.
        expect(poll.duration[0] * 1e9 + poll.duration[1]).toBeGreaterThan(0);
      }
      expect(eventsOf(task)).toContainEqual([
        "mcp_tasks.task.retry",
        { "mcp.method.name": "tasks/get", "mcp_tasks.retry.attempt": 1, "error.type": "-32603" },
      ]);
    },
  );

  it("two tasks of one tool share the task span's attributes; one followed by ref is marked resumed", async () => {
    const c = await connect(server);
    const first = c.callTool("build", {});
    const ref = await first.ref;
    if (ref === undefined) throw new Error("the server made no task for build");
    await first.outcome();
    await c.task(ref).outcome();
    await c.callTool("build", {}).outcome();
    const tasks = otel.spans().filter((span) => span.name === "task build" && span.kind === INTERNAL);
    expect(tasks).toHaveLength(3);
    const [fresh, resumed, again] = tasks.map((span) => span.attributes);
    expect(fresh).toMatchObject({ ...connection(), "gen_ai.tool.name": "build" });
    expect(fresh).not.toHaveProperty("mcp_tasks.task.resumed");
    expect(resumed).toMatchObject({
      ...connection(),
      "gen_ai.tool.name": "build",
      "mcp_tasks.task.resumed": true,
    });
    expect(again).not.toHaveProperty("mcp_tasks.task.resumed");
  });

  it("the task span is a child of the caller's active span, and the caller's baggage goes along", async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      const c = await connect(server);
      const tracer = otel.tracerProvider.getTracer("agent");
      const baggage = propagation.createBaggage({ tenant: { value: "acme corp" } });
      await context.with(propagation.setBaggage(context.active(), baggage), () =>
        tracer.startActiveSpan("agent turn", async (turn) => {
          await c.callTool("build", {}).outcome();
          turn.end();
        }),
      );
      const spans = otel.spans();
      const turn = only(spans, "agent turn");
      const task = only(spans, "task build", INTERNAL);
      expect(parentOf(task)).toBe(id(turn));
      expect(traceOf(task)).toBe(traceOf(turn));
      const [call] = server.requests.forMethod("tools/call") as [RecordedRequest];
      expect(metaOf(call).baggage).toBe("tenant=acme%20corp");
    } finally {
      context.disable();
      trace.disable();
    }
  });

  it("never overwrites trace keys the caller put in meta", async () => {
    const mine = "00-0123456789abcdef0123456789abcdef-0123456789abcdef-01";
    const c = await connect(server);
    await c.callTool("build", {}, { meta: { traceparent: mine, tracestate: "vendor=1" } }).outcome();
    const [call] = server.requests.forMethod("tools/call") as [RecordedRequest];
    expect(metaOf(call)).toMatchObject({ traceparent: mine, tracestate: "vendor=1" });
    // The envelope is still there, and the polls carry the task's own context.
    expect(metaOf(call)["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    const task = only(otel.spans(), "task build", INTERNAL);
    const [poll] = server.requests.forMethod("tasks/get") as [RecordedRequest];
    expect(traceparentOf(poll)?.parentId).toBe(id(task));
  });
});

describe("against a 2025-11-25 server", () => {
  let server: HttpTaskServer;
  beforeAll(async () => {
    server = await startTaskServer({ era: "2025-11-25", tools, tracerProvider: otel.tracerProvider });
  });
  afterAll(async () => {
    await server.close();
  });

  it("the task span holds tools/call, tasks/get and tasks/result, each continued by the server in one trace", async () => {
    const handle = (
      await connect(server, { telemetry: { tracerProvider: otel.tracerProvider, pollSpans: "all" } })
    ).callTool("build", {});
    expect((await handle.outcome()).kind).toBe("completed");
    const spans = otel.spans();
    const task = only(spans, "task build", INTERNAL);
    expect(task.attributes).toMatchObject({
      "mcp.protocol.version": "2025-11-25",
      "mcp_tasks.task.outcome": "completed",
      "mcp_tasks.task.id": redacted(handle.taskId as string),
    });
    const sessionId = server.requests.last("tasks/get")?.headers["mcp-session-id"];
    expect(sessionId).toBeTruthy();
    for (const method of ["tools/call", "tasks/get", "tasks/result"]) {
      const requests = server.requests.forMethod(method);
      expect(requests.length, method).toBeGreaterThan(0);
      const serverSpans = await serverSpansOf(server, method);
      requests.forEach((request, index) => {
        const own = clientSpanFor(spans, request.id) as ReadableSpan;
        expect(parentOf(own), method).toBe(id(task));
        expect(own.attributes).toMatchObject({
          "mcp.method.name": method,
          "gen_ai.tool.name": "build",
          "mcp.protocol.version": "2025-11-25",
          "mcp.session.id": redacted(sessionId as string),
        });
        expect(traceparentOf(request)).toEqual({ traceId: traceOf(task), parentId: id(own) });
        expect(parentOf(serverSpans[index] as ReadableSpan)).toBe(id(own));
      });
    }
    expect(childrenOf(spans, task).map((span) => span.name)).toEqual(
      expect.arrayContaining(["tools/call build", "tasks/get build", "tasks/result build"]),
    );
    // The client's spans never hold the session id whole (the server's own spans are its business).
    const ours = spans.filter((span) => span.kind !== SERVER);
    expect(JSON.stringify(ours.map((span) => span.attributes))).not.toContain(sessionId);
  });

  it("a task followed in its own session (by ref) has its requests' spans name that session, redacted", async () => {
    const first = await TaskClient.connect(server.url, fast);
    const started = first.callTool("endless", {});
    const ref = await started.ref;
    started.detach();
    await first.close();
    const taskSession = ref?.session?.id as string;
    expect(taskSession).toEqual(expect.any(String));
    const handle = (
      await connect(server, { telemetry: { tracerProvider: otel.tracerProvider, pollSpans: "all" } })
    ).task(ref as NonNullable<typeof ref>);
    await vi.waitFor(() => expect(server.requests.forMethod("tasks/get").length).toBeGreaterThan(1));
    await handle.cancel();
    const polls = otel.spans().filter((span) => span.name === "tasks/get endless");
    expect(polls.length).toBeGreaterThan(0);
    for (const poll of polls) expect(poll.attributes["mcp.session.id"]).toBe(redacted(taskSession));
  });
});
