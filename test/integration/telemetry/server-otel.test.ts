/**
 * The reference server's own spans. Over stdio (the server's stdio transport in-process, on a pipe pair), in both
 * generations, with `tracerProvider`: every request's SERVER span continues the traceparent the client sent, so it
 * is in the client's trace with the client's request span as its parent. `mcp-tasks-server --otel` writes the same
 * spans as JSON lines on stderr.
 */
import { PassThrough } from "node:stream";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TaskClient } from "mcp-tasks";
import { telemetry } from "mcp-tasks/telemetry";
import { fixtureTools, runTaskServerCli, startStdioTaskServer, type TaskServer } from "mcp-tasks/testing";
import { PipeTransport } from "../notifications/fixtures/pipe-transport.js";
import { CLIENT, INTERNAL, SERVER, id, inMemoryOtel, only, parentOf, traceOf } from "./otel.js";

let server: TaskServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.restoreAllMocks();
});

describe.each(["2026-07-28", "2025-11-25"] as const)("a %s stdio server with tracerProvider", (era) => {
  it("makes a SERVER span per request, each a child of the client's request span", async () => {
    const otel = inMemoryOtel();
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    server = await startStdioTaskServer({
      era,
      stdin: toServer,
      stdout: toClient,
      tools: fixtureTools({ timeScale: 0.01 }),
      tracerProvider: otel.tracerProvider,
    });
    const client = await TaskClient.connect(new PipeTransport(toServer, toClient), {
      telemetry: telemetry({ tracerProvider: otel.tracerProvider, pollSpans: "all" }),
      notifications: "off",
      polling: { minIntervalMs: 1, defaultIntervalMs: 5, jitter: 0 },
    });
    expect((await client.callTool("slow_compute", { seconds: 1 }).outcome()).kind).toBe("completed");
    await client.close();

    const spans = otel.spans();
    const task = only(spans, "task slow_compute", INTERNAL);
    const requests = spans.filter((span) => span.kind === CLIENT && traceOf(span) === traceOf(task));
    const methods = requests.map((span) => span.attributes["mcp.method.name"]);
    expect(methods).toContain("tools/call");
    expect(methods).toContain("tasks/get");
    await vi.waitFor(() => {
      for (const request of requests) {
        const requestId = request.attributes["jsonrpc.request.id"];
        const served = spans
          .concat(otel.spans())
          .find(
            (span) => span.kind === SERVER && span.attributes["jsonrpc.request.id"] === requestId,
          ) as ReadableSpan;
        expect(served, request.name).toBeDefined();
        expect(parentOf(served)).toBe(id(request));
        expect(traceOf(served)).toBe(traceOf(task));
        expect(served.attributes).toMatchObject({
          "mcp.method.name": request.attributes["mcp.method.name"],
          "network.transport": "pipe",
        });
      }
    });
    expect(only(otel.spans(), "tools/call slow_compute", SERVER).attributes).toMatchObject({
      "gen_ai.tool.name": "slow_compute",
      "gen_ai.operation.name": "execute_tool",
      "mcp.protocol.version": era,
    });
  });
});

describe("mcp-tasks-server --otel", () => {
  it("writes the server's spans as JSON lines on stderr, in the client's trace", async () => {
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      const text = String(chunk);
      if (text.startsWith("{")) return lines.push(text) > 0;
      return write(chunk);
    });
    let url = "";
    server = await runTaskServerCli(
      ["--otel", "--port", "0", "--time-scale", "0.01"],
      (ready) => (url = ready),
    );
    const otel = inMemoryOtel();
    const client = await TaskClient.connect(url, {
      telemetry: telemetry({ tracerProvider: otel.tracerProvider }),
    });
    await client.callTool("slow_compute", { seconds: 1 }).outcome();
    await client.close();
    const call = only(otel.spans(), "tools/call slow_compute", CLIENT);
    await vi.waitFor(() =>
      expect(lines.some((line) => line.includes('"tools/call slow_compute"'))).toBe(true),
    );
    const served = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((span) => span.name === "tools/call slow_compute");
    expect(served).toMatchObject({
      traceId: traceOf(call),
      parentSpanId: id(call),
      kind: "SERVER",
      attributes: {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "slow_compute",
        "network.transport": "tcp",
      },
    });
  });
});
