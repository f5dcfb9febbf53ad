/**
 * `telemetry` with only part of OpenTelemetry set up. A task with nothing to record is followed silently (no
 * trace, no per-request record: what keeps `telemetry()` nearly free where the host set up nothing), so these
 * check that "nothing to record" is decided right: a tracer alone still traces every task, a meter alone still
 * counts every request, and a caller's trace context still reaches the server with no SDK at all. Real client,
 * reference server, Streamable HTTP on 127.0.0.1; nothing is registered globally except where a test says so.
 */
import { context, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type TaskClientOptions } from "mcp-tasks";
import { telemetry } from "mcp-tasks/telemetry";
import {
  defineTool,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
  type RecordedRequest,
} from "mcp-tasks/testing";
import { INTERNAL, id, inMemoryOtel, metaOf, only, sumOf, traceparentOf, TRACE_KEYS } from "./otel.js";

const tools = [
  defineTool({
    name: "build",
    task: "required",
    steps: [
      step.pollInterval(5),
      step.working("compiling"),
      step.idle(2),
      step.complete(textResult("built")),
    ],
  }),
];

const fast: TaskClientOptions = {
  polling: { minIntervalMs: 1, defaultIntervalMs: 5, maxIntervalMs: 20, jitter: 0 },
  notifications: "off",
};

let server: HttpTaskServer;
let client: TaskClient | undefined;

beforeAll(async () => {
  server = await startTaskServer({ tools });
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  server.requests.clear();
});

async function runBuild(plugin: TaskClientOptions["telemetry"]): Promise<void> {
  client = await TaskClient.connect(server.url, { ...fast, telemetry: plugin });
  await expect(client.callTool("build", {})).resolves.toMatchObject({ content: [{ text: "built" }] });
}

const requestsOfTheTask = () => [
  ...server.requests.forMethod("tools/call"),
  ...server.requests.forMethod("tasks/get"),
];

describe("telemetry with part of OpenTelemetry", () => {
  it("a tracer without a meter traces the task, and every poll carries the task span's context", async () => {
    const otel = inMemoryOtel();
    await runBuild(telemetry({ tracerProvider: otel.tracerProvider }));
    const task = only(otel.spans(), "task build", INTERNAL);
    const polls = server.requests.forMethod("tasks/get") as RecordedRequest[];
    expect(polls.length).toBeGreaterThan(0);
    for (const poll of polls) expect(traceparentOf(poll)?.parentId).toBe(id(task));
  });

  it("a meter without a tracer counts every poll and times every request of the task", async () => {
    const otel = inMemoryOtel();
    await runBuild(telemetry({ meterProvider: otel.meterProvider }));
    const polls = server.requests.forMethod("tasks/get").length;
    expect(polls).toBeGreaterThan(0);
    expect(sumOf(await otel.points("mcp_tasks.client.polls"), { "gen_ai.tool.name": "build" })).toBe(polls);
    const durations = await otel.points("mcp.client.operation.duration");
    expect(sumOf(durations, { "mcp.method.name": "tasks/get" })).toBe(polls);
    expect(sumOf(durations, { "mcp.method.name": "tools/call" })).toBe(1);
    expect(sumOf(await otel.points("mcp_tasks.client.task.duration"), { "gen_ai.tool.name": "build" })).toBe(
      1,
    );
    // No tracer: nothing to continue, so no trace keys.
    for (const request of requestsOfTheTask())
      expect(Object.keys(metaOf(request))).not.toContain("traceparent");
  });

  it("with no SDK at all, the caller's remote trace context still reaches the server on every request", async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      const remote = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: "0af7651916cd43dd8448eb211c80319c",
        spanId: "b7ad6b7169203331",
        traceFlags: 1,
        isRemote: true,
      });
      await context.with(remote, () => runBuild(telemetry()));
      const requests = requestsOfTheTask();
      expect(requests.length).toBeGreaterThan(1);
      for (const request of requests) {
        expect(traceparentOf(request)).toEqual({
          traceId: "0af7651916cd43dd8448eb211c80319c",
          parentId: "b7ad6b7169203331",
        });
      }
    } finally {
      context.disable();
    }
  });

  it("with no SDK and no trace context, tasks run and no request carries a trace key", async () => {
    await runBuild(telemetry());
    await expect(client?.callTool("build", {})).resolves.toMatchObject({ content: [{ text: "built" }] });
    const requests = requestsOfTheTask();
    expect(requests.length).toBeGreaterThan(2);
    for (const request of requests) {
      for (const key of TRACE_KEYS) expect(Object.keys(metaOf(request))).not.toContain(key);
    }
  });
});
