/**
 * Decision 17: JSON a server nests thousands of levels deep is refused where it is read, one bound for all
 * (256 levels, src/protocol/depth.ts), through the real client against the reference server over Streamable
 * HTTP (127.0.0.1). The reference server cannot write such JSON itself (its own `JSON.stringify` overflows first),
 * so the fault proxy in front of it puts 10,000 levels in place of a marker in its answers: a hostile server
 * writes text, not objects.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProtocolError, TaskClient } from "mcp-tasks";
import { defineTool, startTaskServer, step, textResult, type HttpTaskServer } from "mcp-tasks/testing";
import { startFaultProxy, type FaultProxy } from "../lifecycle/fault-proxy.js";

const MARKER = "@@DEEP@@";
const LEVELS = 10_000;
const DEEP = `${'{"a":'.repeat(LEVELS)}1${"}".repeat(LEVELS)}`;
const deepen = (text: string) => text.split(JSON.stringify(MARKER)).join(DEEP);

let server: HttpTaskServer;
let proxy: FaultProxy;
beforeAll(async () => {
  server = await startTaskServer({
    tools: [
      defineTool({ name: "plain", task: "never", steps: [step.complete(textResult("ok"))] }),
      defineTool({
        name: "deep_schema",
        task: "never",
        inputSchema: { type: "object", properties: { tree: { type: "object", default: MARKER } } },
        steps: [step.complete(textResult("ok"))],
      }),
      defineTool({
        name: "deep_result",
        task: "required",
        pollIntervalMs: 20,
        steps: [step.complete({ content: [], structuredContent: { tree: MARKER } })],
      }),
      defineTool({
        name: "deep_creation",
        task: "required",
        statusMessage: MARKER,
        steps: [step.stall()],
      }),
    ],
  });
  proxy = await startFaultProxy(server.url);
  for (const method of ["tools/list", "tools/call", "tasks/get"]) proxy.fault(method, { rewrite: deepen });
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

describe("JSON nested deeper than 256 levels", () => {
  it("in one tool's inputSchema: listTools() leaves that tool out with a warning and keeps the rest", async () => {
    const warnings: string[] = [];
    const client = await TaskClient.connect(proxy.url, {
      logger: { warn: (line: string) => void warnings.push(line) },
    });
    try {
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["plain", "deep_result", "deep_creation"]);
      expect(warnings).toContain(
        'tools/list: left out tool "deep_schema": its definition nests objects or arrays deeper than 256 levels',
      );
      await expect(client.callTool("plain")).resolves.toMatchObject({
        content: [{ type: "text", text: "ok" }],
      });
    } finally {
      await client.close();
    }
  });

  it("in a task's result: the handle ends with a ProtocolError that carries the task id", async () => {
    const client = await TaskClient.connect(proxy.url);
    try {
      const outcome = await client.callTool("deep_result").outcome();
      expect(outcome.kind).toBe("error");
      expect(outcome.taskId).toEqual(expect.any(String));
      const error = (outcome as { error: unknown }).error;
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).message).toBe(
        "tasks/get: answered with JSON that nests objects or arrays deeper than 256 levels",
      );
      expect((error as ProtocolError).frame).toBeUndefined(); // not handed on for a host to walk
    } finally {
      await client.close();
    }
  });

  it("in a CreateTaskResult: the task is not lost: reported as an orphan and cancelled", async () => {
    const client = await TaskClient.connect(proxy.url);
    const orphans: string[] = [];
    client.on("orphan", (taskId) => void orphans.push(taskId));
    try {
      const outcome = await client.callTool("deep_creation").outcome();
      expect(outcome.kind).toBe("error");
      expect((outcome as { error: unknown }).error).toBeInstanceOf(ProtocolError);
      expect(orphans).toHaveLength(1);
      await expect
        .poll(() => server.tasks.get(orphans[0] as string)?.status, { timeout: 5_000 })
        .toBe("cancelled");
    } finally {
      await client.close();
    }
  });
});
