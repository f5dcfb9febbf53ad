import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Session } from "../../../src/session/session.js";
import { resolveTransport } from "../../../src/session/targets.js";
import { withRoutingHeaders } from "../../../src/protocol/headers.js";
import type { McpTransport } from "../../../src/session/types.js";
import { startCaptureServer, type CapturedRequest } from "./fixtures/http.js";

const NON_ASCII_TASK = "tâche-✓ 1";
const SENTINEL = `=?base64?${Buffer.from(NON_ASCII_TASK, "utf8").toString("base64")}?=`;
const task = {
  taskId: "t-1",
  status: "working",
  createdAt: "2026-08-01T10:00:00Z",
  lastUpdatedAt: "2026-08-01T10:00:00Z",
  ttlMs: 60_000,
};

function answer(request: CapturedRequest): Record<string, unknown> {
  switch (request.body?.method) {
    case "server/discover":
      return {
        supportedVersions: ["2026-07-28"],
        capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
      };
    case "tools/call":
      return { resultType: "task", ...task };
    case "tasks/get":
      return { resultType: "complete", ...task, taskId: request.body.params?.taskId };
    default:
      return { resultType: "complete" };
  }
}

let server: Awaited<ReturnType<typeof startCaptureServer>>;
beforeAll(async () => {
  server = await startCaptureServer(answer);
});
afterAll(async () => {
  await server.close();
});

const transports: [string, (url: URL) => Promise<McpTransport>][] = [
  ["the v2 SDK transport (from a URL)", (url) => resolveTransport(url)],
  [
    "the v1 SDK transport with withRoutingHeaders()",
    async (url) => new V1Transport(url, { fetch: withRoutingHeaders() }),
  ],
];

describe.each(transports)("headers on the wire with %s", (_label, makeTransport) => {
  async function exchange(calls: [string, Record<string, unknown>][]): Promise<CapturedRequest[]> {
    const session = new Session(await makeTransport(server.url), {
      clientInfo: { name: "t", version: "1" },
      capabilities: {},
    });
    server.seen.length = 0;
    try {
      await session.connect();
      for (const [method, params] of calls) await session.request(method, params);
    } finally {
      await session.close();
    }
    return server.seen.filter((request) => request.method === "POST");
  }

  it("name the tool on tools/call and the method on every request", async () => {
    const posts = await exchange([["tools/call", { name: "generate_report", arguments: { year: 2026 } }]]);
    expect(posts.map((post) => [post.headers["mcp-method"], post.headers["mcp-name"]])).toEqual([
      ["server/discover", undefined],
      ["tools/call", "generate_report"],
    ]);
    for (const post of posts) expect(post.headers["mcp-protocol-version"]).toBe("2026-07-28");
  });

  it("name the task on tasks/get, tasks/update and tasks/cancel, and declare the extension on each", async () => {
    const posts = await exchange([
      ["tasks/get", { taskId: "t-1" }],
      ["tasks/update", { taskId: "t-1", inputResponses: {} }],
      ["tasks/cancel", { taskId: "t-1" }],
    ]);
    const tasks = posts.filter((post) => post.body?.method?.startsWith("tasks/"));
    expect(tasks.map((post) => [post.headers["mcp-method"], post.headers["mcp-name"]])).toEqual([
      ["tasks/get", "t-1"],
      ["tasks/update", "t-1"],
      ["tasks/cancel", "t-1"],
    ]);
    for (const post of tasks) {
      const meta = post.body?.params?._meta as Record<string, { extensions?: unknown }>;
      expect(meta["io.modelcontextprotocol/clientCapabilities"]?.extensions).toEqual({
        "io.modelcontextprotocol/tasks": {},
      });
      expect(post.headers["mcp-protocol-version"]).toBe("2026-07-28");
    }
  });

  it("send a non-ASCII task id in the base64 sentinel form", async () => {
    const posts = await exchange([
      ["tasks/get", { taskId: NON_ASCII_TASK }],
      ["tasks/cancel", { taskId: NON_ASCII_TASK }],
    ]);
    const tasks = posts.filter((post) => post.body?.method?.startsWith("tasks/"));
    expect(tasks.map((post) => post.headers["mcp-name"])).toEqual([SENTINEL, SENTINEL]);
    expect(tasks.map((post) => post.body?.params?.taskId)).toEqual([NON_ASCII_TASK, NON_ASCII_TASK]);
  });
});
