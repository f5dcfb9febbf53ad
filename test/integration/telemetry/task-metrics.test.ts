/**
 * Telemetry's metrics through an in-memory metric reader: `mcp.client.operation.duration` as the MCP semantic
 * conventions define it, and the task-level ones (live tasks, task duration by outcome, polls, pushed updates,
 * retries), from real tasks against the reference server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient } from "mcp-tasks";
import { telemetry } from "mcp-tasks/telemetry";
import { defineTool, startTaskServer, step, textResult, type HttpTaskServer } from "mcp-tasks/testing";
import { inMemoryOtel, sumOf, type Otel } from "./otel.js";

const tools = [
  defineTool({
    name: "build",
    task: "required",
    steps: [step.pollInterval(5), step.complete(textResult("built"))],
  }),
  defineTool({
    name: "breaks",
    task: "required",
    steps: [step.pollInterval(5), step.fail({ code: -32603, message: "boom" })],
  }),
  defineTool({
    name: "flaky",
    task: "required",
    steps: [step.pollInterval(5), step.pollErrors(1), step.complete(textResult("fine"))],
  }),
  defineTool({ name: "endless", task: "required", steps: [step.pollInterval(5), step.stall()] }),
  defineTool({
    name: "pushed",
    task: "required",
    // Long enough for the listen to be acknowledged before the last change, even on a loaded machine.
    advance: { everyMs: 100 },
    steps: [
      step.working("one"),
      step.working("two"),
      step.working("three"),
      step.complete(textResult("done")),
    ],
  }),
];

let server: HttpTaskServer;
let otel: Otel;

beforeAll(async () => {
  server = await startTaskServer({ tools });
  otel = inMemoryOtel();
  const client = await TaskClient.connect(server.url, {
    polling: { minIntervalMs: 1, defaultIntervalMs: 5, maxIntervalMs: 20, jitter: 0 },
    retry: { retries: 3, minTimeoutMs: 1, maxTimeoutMs: 5 },
    // Poll-advanced scripts move on while their tasks are listened for, too.
    notificationSafetyNetMs: 50,
    telemetry: telemetry({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider }),
  });
  try {
    await client.callTool("build", {}).outcome();
    await client.callTool("breaks", {}).outcome();
    await client.callTool("flaky", {}).outcome();
    await client.callTool("pushed", {}).outcome();
    const endless = client.callTool("endless", {});
    await endless.created;
    // While it runs, it is a live task.
    expect(sumOf(await otel.points("mcp_tasks.client.active_tasks"), { "gen_ai.tool.name": "endless" })).toBe(
      1,
    );
  } finally {
    await client.close();
  }
});
afterAll(async () => {
  await server.close();
});

const connection = () => ({
  "network.transport": "tcp",
  "network.protocol.name": "http",
  "server.address": "127.0.0.1",
  "server.port": server.port,
  "mcp.protocol.version": "2026-07-28",
});

describe("mcp.client.operation.duration", () => {
  it("is a histogram in seconds with the conventions' buckets", async () => {
    const metric = await otel.metric("mcp.client.operation.duration");
    expect(metric?.descriptor).toMatchObject({ unit: "s", type: "HISTOGRAM" });
    const [point] = metric?.dataPoints ?? [];
    expect((point?.value as { buckets: { boundaries: number[] } }).buckets.boundaries).toEqual([
      0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
    ]);
  });

  it("records each tools/call once with the conventions' attributes", async () => {
    const points = await otel.points("mcp.client.operation.duration");
    const call = points.find(
      (point) =>
        point.attributes["mcp.method.name"] === "tools/call" &&
        point.attributes["gen_ai.tool.name"] === "build",
    );
    expect(call?.attributes).toEqual({
      ...connection(),
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "build",
      "gen_ai.operation.name": "execute_tool",
    });
    expect(sumOf(points, { "mcp.method.name": "tools/call" })).toBe(5);
  });

  it("marks a failed request with error.type and rpc.response.status_code", async () => {
    const points = await otel.points("mcp.client.operation.duration");
    expect(
      sumOf(points, { "mcp.method.name": "tasks/get", "gen_ai.tool.name": "flaky", "error.type": "-32603" }),
    ).toBe(1);
    const failed = points.find((point) => point.attributes["error.type"] === "-32603");
    expect(failed?.attributes["rpc.response.status_code"]).toBe("-32603");
  });

  it("records the connection's own requests (the probe) without a task", async () => {
    const points = await otel.points("mcp.client.operation.duration");
    expect(sumOf(points, { "mcp.method.name": "server/discover" })).toBe(1);
  });
});

describe("task-level metrics", () => {
  it("mcp_tasks.client.active_tasks goes back to zero as handles end (closing the client ends the last)", async () => {
    const points = await otel.points("mcp_tasks.client.active_tasks");
    for (const tool of ["build", "breaks", "flaky", "pushed", "endless"]) {
      expect(sumOf(points, { "gen_ai.tool.name": tool }), tool).toBe(0);
    }
  });

  it("mcp_tasks.client.task.duration counts tasks by outcome", async () => {
    const metric = await otel.metric("mcp_tasks.client.task.duration");
    expect(metric?.descriptor.unit).toBe("s");
    const points = metric?.dataPoints ?? [];
    expect(
      sumOf(points as never, { "gen_ai.tool.name": "build", "mcp_tasks.task.outcome": "completed" }),
    ).toBe(1);
    const failed = points.find((point) => point.attributes["gen_ai.tool.name"] === "breaks");
    expect(failed?.attributes).toEqual({
      "gen_ai.tool.name": "breaks",
      "mcp_tasks.task.outcome": "failed",
      "error.type": "-32603",
    });
    expect(
      sumOf(points as never, { "gen_ai.tool.name": "endless", "mcp_tasks.task.outcome": "closed" }),
    ).toBe(1);
  });

  it("mcp_tasks.client.polls counts every tasks/get, failed ones with error.type", async () => {
    const points = await otel.points("mcp_tasks.client.polls");
    expect(sumOf(points, { "gen_ai.tool.name": "flaky" })).toBe(3);
    expect(sumOf(points, { "gen_ai.tool.name": "flaky", "error.type": "-32603" })).toBe(1);
  });

  it("mcp_tasks.client.retries counts retries by method", async () => {
    const points = await otel.points("mcp_tasks.client.retries");
    expect(sumOf(points, { "mcp.method.name": "tasks/get", "error.type": "-32603" })).toBe(1);
  });

  it("mcp_tasks.client.pushed_updates counts the status notifications of listen streams", async () => {
    const points = await otel.points("mcp_tasks.client.pushed_updates");
    expect(sumOf(points, { "mcp.method.name": "notifications/tasks" })).toBeGreaterThanOrEqual(1);
  });
});
