/**
 * `x-mcp-header` through the real client and the reference server over Streamable HTTP: the arguments a
 * tool's schema marks travel as `Mcp-Param-*` headers, a tool with broken declarations is left out of
 * `listTools()`, and a HeaderMismatch makes the client fetch `tools/list` again and resend the call once.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { http, HttpResponse, passthrough } from "msw";
import { setupServer } from "msw/node";
import { RpcError, TaskClient } from "../../../src/index.js";
import {
  defineTool,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "../../../src/testing/index.js";

const routed = defineTool({
  name: "routed_query",
  task: "optional",
  pollIntervalMs: 10,
  inputSchema: {
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      verbose: { type: "boolean", "x-mcp-header": "Verbose" },
      scope: { type: "object", properties: { tenant: { type: "integer", "x-mcp-header": "Tenant" } } },
      query: { type: "string" },
    },
  },
  steps: [step.complete(textResult("rows"))],
});
const broken = defineTool({
  name: "broken_headers",
  inputSchema: { properties: { ratio: { type: "number", "x-mcp-header": "Ratio" } } },
  steps: [step.complete(textResult("never listed"))],
});

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function serve(): Promise<HttpTaskServer> {
  const server = await startTaskServer({ tools: [routed, broken] });
  open.push(server);
  return server;
}

async function connect(url: string, warnings: string[] = []): Promise<TaskClient> {
  const client = await TaskClient.connect(url, {
    logger: { warn: (message: string) => warnings.push(message) },
  });
  open.push(client);
  return client;
}

function paramHeaders(server: HttpTaskServer): Array<Record<string, string>> {
  return server.requests
    .forMethod("tools/call")
    .map((entry) =>
      Object.fromEntries(Object.entries(entry.headers).filter(([name]) => name.startsWith("mcp-param-"))),
    );
}

describe("Mcp-Param headers", () => {
  it("leaves a tool with invalid declarations out of listTools, with a warning", async () => {
    const server = await serve();
    const warnings: string[] = [];
    const client = await connect(server.url, warnings);
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toContain("routed_query");
    expect(names).not.toContain("broken_headers");
    expect(warnings.join("\n")).toMatch(/broken_headers.*not a string, integer or boolean/);
  });

  it("mirrors the marked arguments of a listed tool, omitting null ones and encoding non-ASCII text", async () => {
    const server = await serve();
    const client = await connect(server.url);
    await client.listTools();
    const args = { region: "Zürich", verbose: null, scope: { tenant: 7 }, query: "select 1" };
    const result = await client.callTool("routed_query", args);
    expect(result.content).toEqual([{ type: "text", text: "rows" }]);
    expect(paramHeaders(server)).toEqual([
      {
        "mcp-param-region": `=?base64?${Buffer.from("Zürich").toString("base64")}?=`,
        "mcp-param-tenant": "7",
      },
    ]);
    expect(server.requests.forMethod("tools/list")).toHaveLength(1);
  });

  it("sends an unlisted tool's call without headers, then re-fetches tools/list once and resends on a mismatch", async () => {
    const server = await serve();
    const client = await connect(server.url);
    const result = await client.callTool("routed_query", { region: "eu-west-1", verbose: true });
    expect(result.content).toEqual([{ type: "text", text: "rows" }]);
    const order = server.requests
      .all()
      .map((entry) => entry.method)
      .filter((method) => method === "tools/call" || method === "tools/list");
    expect(order).toEqual(["tools/call", "tools/list", "tools/call"]);
    expect(paramHeaders(server)).toEqual([
      {},
      { "mcp-param-region": "eu-west-1", "mcp-param-verbose": "true" },
    ]);
  });

  it("gives up after one resend when the server keeps answering HeaderMismatch", async () => {
    const server = await serve();
    let rejected = 0;
    const interceptor = setupServer(
      http.post(server.url, async ({ request }) => {
        const body = (await request.clone().json()) as { id?: string; method?: string };
        if (body.method !== "tools/call") return passthrough();
        rejected++;
        const error = { code: -32020, message: "Mcp-Param-Region header does not match the argument" };
        return HttpResponse.json({ jsonrpc: "2.0", id: body.id, error }, { status: 400 });
      }),
    );
    // msw sees `fetch` only.
    vi.stubEnv("MCP_TASKS_HTTP", "fetch");
    interceptor.listen({ onUnhandledRequest: "bypass" });
    try {
      const client = await connect(server.url);
      const failure = await client.callTool("routed_query", { region: "eu" }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(RpcError);
      expect((failure as RpcError).code).toBe(-32020);
      expect(rejected).toBe(2);
      expect(server.requests.forMethod("tools/list")).toHaveLength(1);
    } finally {
      interceptor.close();
      vi.unstubAllEnvs();
    }
  });

  it("never adds Mcp-Param headers to polls or other requests", async () => {
    const server = await serve();
    const client = await connect(server.url);
    await client.listTools();
    await client.callTool("routed_query", { region: "eu" });
    const others = server.requests.all().filter((entry) => entry.method !== "tools/call");
    expect(others.length).toBeGreaterThan(0);
    for (const entry of others)
      expect(Object.keys(entry.headers).some((h) => h.startsWith("mcp-param-"))).toBe(false);
  });
});
