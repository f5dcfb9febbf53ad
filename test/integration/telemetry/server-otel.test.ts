/**
 * The reference server's own spans across a process boundary: `mcp-tasks-server --stdio --otel` (the build),
 * in both generations, writes a JSON line per span on stderr; a TaskClient with telemetry on talks to it over
 * stdio. Every request's server span continues the traceparent the client sent: same trace, the client's
 * request span as parent.
 */
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { TaskClient } from "mcp-tasks";
import { CLIENT, INTERNAL, id, inMemoryOtel, only, traceOf } from "./otel.js";

const BIN = fileURLToPath(new URL("../../../bin/mcp-tasks-server.js", import.meta.url));

interface SpanLine {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: string;
  attributes: Record<string, unknown>;
}

describe.each([[[]], [["--era", "2025-11-25"]]])("mcp-tasks-server --stdio --otel %j", (era) => {
  it("writes a SERVER span per request, each a child of the client's request span", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "--stdio", "--otel", "--time-scale", "0.01", ...era],
      stderr: "pipe",
    });
    const lines: SpanLine[] = [];
    const stderr = transport.stderr as Readable | null;
    if (stderr === null) throw new Error("no stderr pipe");
    const reading = new Promise<void>((resolve) => {
      const input = createInterface({ input: stderr });
      input.on("line", (line) => lines.push(JSON.parse(line) as SpanLine));
      input.on("close", resolve);
    });
    const otel = inMemoryOtel();
    const client = await TaskClient.connect(transport, {
      telemetry: { tracerProvider: otel.tracerProvider, pollSpans: "all" },
      notifications: "off",
    });
    expect((await client.callTool("slow_compute", { seconds: 1 }).outcome()).kind).toBe("completed");
    await client.close(); // the server exits when its stdin ends, and its stderr closes
    await reading;

    const spans = otel.spans();
    const task = only(spans, "task slow_compute", INTERNAL);
    const requests = spans.filter((span) => span.kind === CLIENT && traceOf(span) === traceOf(task));
    expect(requests.map((span) => span.attributes["mcp.method.name"])).toContain("tools/call");
    expect(requests.map((span) => span.attributes["mcp.method.name"])).toContain("tasks/get");
    for (const request of requests) {
      const served = lines.find(
        (line) => line.attributes["jsonrpc.request.id"] === request.attributes["jsonrpc.request.id"],
      );
      expect(served, request.name).toMatchObject({
        kind: "SERVER",
        traceId: traceOf(task),
        parentSpanId: id(request),
        attributes: { "mcp.method.name": request.attributes["mcp.method.name"], "network.transport": "pipe" },
      });
    }
    expect(lines.find((line) => line.name === "tools/call slow_compute")?.attributes).toMatchObject({
      "gen_ai.tool.name": "slow_compute",
      "gen_ai.operation.name": "execute_tool",
    });
  });
});
