import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { Session } from "../../../src/session/session.js";
import { resolveTransport } from "../../../src/session/targets.js";
import { withRoutingHeaders } from "../../../src/protocol/headers.js";
import { classifyResult, parseGetTaskResult } from "../../../src/protocol/codec.js";
import type { McpTransport } from "../../../src/session/types.js";
import { startLegacyServer, type RunningServer } from "./fixtures/http.js";
import { startModernServer } from "./fixtures/modern.js";

const transports: [string, (url: URL) => Promise<McpTransport>][] = [
  ["the v2 transport from a URL", (url) => resolveTransport(url)],
  ["a v2 transport the host built", async (url) => new V2Transport(url)],
  [
    "the v1 transport with withRoutingHeaders()",
    async (url) => new V1Transport(url, { fetch: withRoutingHeaders() }),
  ],
];

async function open(url: URL, makeTransport: (url: URL) => Promise<McpTransport>) {
  const session = new Session(await makeTransport(url), {
    clientInfo: { name: "negotiation-test", version: "1.0.0" },
    capabilities: {},
  });
  const info = await session.connect();
  return { session, info };
}

describe.each(transports)("era negotiation over real HTTP with %s", (_label, makeTransport) => {
  let modern: RunningServer;
  let dual: RunningServer;
  let legacy: RunningServer;
  beforeAll(async () => {
    [modern, dual, legacy] = await Promise.all([
      startModernServer({ legacy: "reject" }),
      startModernServer({ legacy: "stateless" }),
      startLegacyServer(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([modern.close(), dual.close(), legacy.close()]);
  });

  it("speaks 2026-07-28 to a modern-only server and receives its tasks", async () => {
    const { session, info } = await open(modern.url, makeTransport);
    try {
      expect(info).toMatchObject({ era: "modern", protocolVersion: "2026-07-28", supportsTasks: true });
      expect(info.serverInfo).toEqual({ name: "modern-tasks", version: "1.0.0" });
      const answer = classifyResult(
        "tools/call",
        await session.request("tools/call", { name: "slow", arguments: { text: "x" } }),
      );
      expect(answer.kind).toBe("task");
      const taskId = answer.kind === "task" ? answer.task.taskId : "";
      const snapshot = parseGetTaskResult(await session.request("tasks/get", { taskId }));
      expect(snapshot).toMatchObject({ taskId: "task-x", status: "completed" });
    } finally {
      await session.close();
    }
  });

  it("passes the SDK server's header check with a non-ASCII task id", async () => {
    const { session } = await open(modern.url, makeTransport);
    try {
      const snapshot = parseGetTaskResult(await session.request("tasks/get", { taskId: "tâche ✓" }));
      expect(snapshot.taskId).toBe("tâche ✓");
      // The SDK server took the request (a header mismatch would be an HTTP 400): its empty acknowledgement.
      await expect(session.request("tasks/cancel", { taskId: "tâche ✓" })).resolves.toMatchObject({
        resultType: "complete",
      });
    } finally {
      await session.close();
    }
  });

  it("prefers 2026-07-28 on a server that serves both eras", async () => {
    const { session, info } = await open(dual.url, makeTransport);
    await session.close();
    expect(info.era).toBe("modern");
  });

  it("falls back to initialize on a 2025-only server, where a plain tool call works", async () => {
    const { session, info } = await open(legacy.url, makeTransport);
    try {
      expect(info).toMatchObject({ era: "legacy", protocolVersion: "2025-11-25", supportsTasks: false });
      const result = await session.request("tools/call", { name: "echo", arguments: { text: "hello" } });
      expect(classifyResult("tools/call", result, { tasksDeclared: false })).toEqual({
        kind: "complete",
        result: { content: [{ type: "text", text: "hello" }] },
      });
    } finally {
      await session.close();
    }
  });

  it("maps an unknown method to an RpcError -32601 on both eras", async () => {
    for (const server of [modern, legacy]) {
      const { session } = await open(server.url, makeTransport);
      try {
        await expect(session.request("nope/nope", {})).rejects.toMatchObject({
          name: "RpcError",
          code: -32601,
        });
      } finally {
        await session.close();
      }
    }
  });
});
