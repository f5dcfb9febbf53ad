/**
 * Fault injection at the HTTP level: msw answers the transports' own fetch calls with the failures a real
 * deployment produces, and each must surface as the right typed error with the right `transient` and
 * `retryAfterMs`.
 *
 * msw sees `fetch` only: the URL transports here take the `fetch` path (`MCP_TASKS_HTTP=fetch`). The same faults
 * over a real socket, on the undici path, are in ./http-paths.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { Session } from "../../../src/session/session.js";
import { resolveTransport } from "../../../src/session/targets.js";
import { withHttpErrorMapping } from "../../../src/session/http-fetch.js";
import { withRoutingHeaders } from "../../../src/protocol/headers.js";
import { parseGetTaskResult } from "../../../src/protocol/codec.js";
import {
  MissingCapabilityError,
  ProtocolError,
  RpcError,
  TransportError,
} from "../../../src/protocol/errors.js";
import type { McpTransport } from "../../../src/session/types.js";

const URL_ = new URL("http://mcp.test/mcp");
const DISCOVER = {
  supportedVersions: ["2026-07-28"],
  capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

type JsonRpcRequest = { id: string; method: string; params?: Record<string, unknown> };
/** How the server answers the next `tasks/get`: a Response built from the request. */
let fault: (request: JsonRpcRequest) => Response = () => HttpResponse.json({});

const server = setupServer(
  http.post(URL_.href, async ({ request }) => {
    const body = (await request.json()) as JsonRpcRequest;
    if (body.method === "server/discover")
      return HttpResponse.json({ jsonrpc: "2.0", id: body.id, result: DISCOVER });
    if (body.id === undefined) return new HttpResponse(null, { status: 202 });
    return fault(body);
  }),
);

beforeAll(() => {
  vi.stubEnv("MCP_TASKS_HTTP", "fetch");
  server.listen({ onUnhandledRequest: "error" });
});
afterEach(() => server.resetHandlers());
afterAll(() => {
  server.close();
  vi.unstubAllEnvs();
});

const rpcError = (id: string | null, code: number, message: string, data?: unknown) =>
  ({ jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined && { data }) } }) as const;

async function failureOf(makeTransport: () => Promise<McpTransport>, answer: typeof fault): Promise<unknown> {
  fault = answer;
  const session = new Session(await makeTransport(), {
    clientInfo: { name: "faults", version: "1" },
    capabilities: {},
  });
  try {
    await session.connect();
    return await session.request("tasks/get", { taskId: "t-1" }, { timeoutMs: 5_000 }).then(
      (result) => ({ resolved: result }),
      (error: unknown) => error,
    );
  } finally {
    await session.close();
  }
}

const wrapped: [string, () => Promise<McpTransport>][] = [
  ["the v2 transport from a URL", () => resolveTransport(URL_)],
  [
    "the v1 transport with withRoutingHeaders(withHttpErrorMapping())",
    async () => new V1Transport(URL_, { fetch: withRoutingHeaders(withHttpErrorMapping()) }),
  ],
];

describe.each(wrapped)("HTTP faults through %s", (_label, makeTransport) => {
  it("HTTP 503 is a transient TransportError with its status", async () => {
    const error = await failureOf(makeTransport, () => new HttpResponse("upstream down", { status: 503 }));
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ status: 503, transient: true, retryAfterMs: undefined });
  });

  it("HTTP 429 carries Retry-After in seconds", async () => {
    const error = await failureOf(
      makeTransport,
      () => new HttpResponse("slow down", { status: 429, headers: { "Retry-After": "7" } }),
    );
    expect(error).toMatchObject({
      name: "TransportError",
      status: 429,
      transient: true,
      retryAfterMs: 7_000,
    });
  });

  it("HTTP 503 carries Retry-After given as an HTTP-date", async () => {
    const target = Math.ceil(Date.now() / 1000) * 1000 + 30_000; // a whole second, as HTTP-dates are
    const before = Date.now();
    const error = (await failureOf(
      makeTransport,
      () =>
        new HttpResponse(null, { status: 503, headers: { "Retry-After": new Date(target).toUTCString() } }),
    )) as TransportError;
    const after = Date.now();
    // The time left until the date, as of some moment during the request: bracketed by the clock around it, so a
    // slow machine cannot make this fail.
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(target - after);
    expect(error.retryAfterMs).toBeLessThanOrEqual(target - before);
  });

  it("a connection reset is a transient TransportError without a status", async () => {
    const error = await failureOf(makeTransport, () => HttpResponse.error());
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ status: undefined, transient: true });
  });

  it("a malformed JSON body is a transient TransportError", async () => {
    const error = await failureOf(
      makeTransport,
      () => new HttpResponse('{"jsonrpc":"2.0","id":', { headers: { "content-type": "application/json" } }),
    );
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ transient: true });
  });

  it("a response that is not a JSON-RPC message is a ProtocolError", async () => {
    const error = await failureOf(makeTransport, (request) =>
      HttpResponse.json({ id: request.id, answer: 42 }),
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ method: "tasks/get" });
  });

  it("a result that is not an object is a ProtocolError", async () => {
    const error = await failureOf(makeTransport, (request) =>
      HttpResponse.json({ jsonrpc: "2.0", id: request.id, result: "completed" }),
    );
    expect(error).toBeInstanceOf(ProtocolError);
  });

  it("a task state that violates the schema is a ProtocolError carrying the frame", async () => {
    const frame = {
      resultType: "complete",
      taskId: "t-1",
      status: "completed",
      createdAt: "x",
      lastUpdatedAt: "x",
      ttlMs: 1,
    };
    const outcome = await failureOf(makeTransport, (request) =>
      HttpResponse.json({ jsonrpc: "2.0", id: request.id, result: frame }),
    );
    const raw = (outcome as { resolved: unknown }).resolved;
    expect(raw).toEqual(frame);
    expect(() => parseGetTaskResult(raw)).toThrow(ProtocolError);
  });

  it("HTTP 404 with a JSON-RPC error body is that RpcError", async () => {
    const error = await failureOf(makeTransport, (request) =>
      HttpResponse.json(rpcError(request.id, -32601, "Method not found"), { status: 404 }),
    );
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: -32601, method: "tasks/get" });
  });

  it("HTTP 400 with -32021 and a null id is a MissingCapabilityError for this request", async () => {
    const error = await failureOf(makeTransport, () =>
      HttpResponse.json(
        rpcError(null, -32021, "Missing required client capability", {
          requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
        }),
        { status: 400 },
      ),
    );
    expect(error).toBeInstanceOf(MissingCapabilityError);
    expect((error as MissingCapabilityError).missing).toEqual(["extensions.io.modelcontextprotocol/tasks"]);
  });

  it("HTTP 404 without a JSON-RPC body is a permanent TransportError", async () => {
    const error = await failureOf(
      makeTransport,
      () => new HttpResponse("<h1>Not Found</h1>", { status: 404, headers: { "content-type": "text/html" } }),
    );
    expect(error).toMatchObject({ name: "TransportError", status: 404, transient: false });
  });

  it("HTTP 500 stays transient even when its body is a JSON-RPC error", async () => {
    const error = await failureOf(makeTransport, (request) =>
      HttpResponse.json(rpcError(request.id, -32603, "Internal error"), { status: 500 }),
    );
    expect(error).toMatchObject({ name: "TransportError", status: 500, transient: true });
  });
});

describe("HTTP faults through transports the host built without our fetch wrapper", () => {
  const unwrapped: [string, () => Promise<McpTransport>][] = [
    ["v2", async () => new V2Transport(URL_)],
    ["v1 with withRoutingHeaders()", async () => new V1Transport(URL_, { fetch: withRoutingHeaders() })],
  ];

  it.each(unwrapped)(
    "%s: a 503 is still a transient TransportError with its status",
    async (_label, make) => {
      const error = await failureOf(
        make,
        () => new HttpResponse("down", { status: 503, headers: { "Retry-After": "3" } }),
      );
      expect(error).toMatchObject({ name: "TransportError", status: 503, transient: true });
    },
  );

  it.each(unwrapped)("%s: a 404 JSON-RPC error body is still an RpcError", async (_label, make) => {
    const error = await failureOf(make, (request) =>
      HttpResponse.json(rpcError(request.id, -32601, "Method not found"), { status: 404 }),
    );
    expect(error).toMatchObject({ name: "RpcError", code: -32601 });
  });
});

describe("a per-request SSE stream that ends without an answer", () => {
  it("rejects its request with a transient TransportError at once (v2 transport)", async () => {
    const error = await failureOf(
      () => resolveTransport(URL_),
      () =>
        new HttpResponse(": keep-alive\n\n", {
          headers: { "content-type": "text/event-stream" },
        }),
    );
    expect(error).toMatchObject({ name: "TransportError", transient: true });
    expect((error as Error).message).toMatch(/stream ended/);
  });
});
