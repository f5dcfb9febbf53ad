import { describe, expect, it, vi } from "vitest";
import {
  decodeHeaderValue,
  encodeHeaderValue,
  routingHeaders,
  withRoutingHeaders,
} from "../../../src/protocol/headers.js";
import { buildEnvelope } from "../../../src/protocol/envelope.js";

const envelope = buildEnvelope({ clientInfo: { name: "agent", version: "1.0.0" } });
const b64 = (text: string) => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;

describe("Mcp-Name value encoding", () => {
  it("passes plain ASCII through unchanged, inner spaces included", () => {
    expect(encodeHeaderValue("786512e2-9e0d-44bd-8f29-789f320fe840")).toBe(
      "786512e2-9e0d-44bd-8f29-789f320fe840",
    );
    expect(encodeHeaderValue("get weather")).toBe("get weather");
  });

  it.each([
    ["non-ASCII", "tâche-é-✓"],
    ["an emoji", "task-🚀"],
    ["a control character", "task\u0007id"],
    ["a tab", "task\tid"],
    ["a line break", "task\r\nX-Injected: 1"],
    ["a leading space", " task"],
    ["a trailing space", "task "],
    ["the empty string", ""],
    ["a value that looks like the sentinel", "=?base64?dGFzaw==?="],
  ])("wraps a value with %s in the base64 sentinel", (_what, value) => {
    expect(encodeHeaderValue(value)).toBe(b64(value));
    expect(decodeHeaderValue(encodeHeaderValue(value))).toBe(value);
  });

  it("produces values the Fetch Headers API accepts as they are", () => {
    const headers = new Headers();
    for (const value of ["tâche", "a\r\nb", " x ", "=?base64?x?="]) {
      headers.set("mcp-name", encodeHeaderValue(value));
      expect(decodeHeaderValue(headers.get("mcp-name")!)).toBe(value);
    }
  });

  it("refuses to decode a sentinel whose payload is not base64 UTF-8", () => {
    expect(decodeHeaderValue("=?base64?!!!?=")).toBeUndefined();
    expect(decodeHeaderValue(`=?base64?${Buffer.from([0xff, 0xfe]).toString("base64")}?=`)).toBeUndefined();
  });
});

describe("routing headers for a message", () => {
  const request = (method: string, params: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    id: "mcp-tasks:1",
    method,
    params: { ...params, _meta: envelope },
  });

  it("name the tool for tools/call", () => {
    expect(routingHeaders(request("tools/call", { name: "generate_report" }))).toEqual({
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "generate_report",
    });
  });

  it.each(["tasks/get", "tasks/update", "tasks/cancel"])("name the task for %s", (method) => {
    expect(routingHeaders(request(method, { taskId: "t-42" }))?.["mcp-name"]).toBe("t-42");
    expect(routingHeaders(request(method, { taskId: "tâche" }))?.["mcp-name"]).toBe(b64("tâche"));
  });

  it("name the resource for resources/read and the prompt for prompts/get", () => {
    expect(routingHeaders(request("resources/read", { uri: "file:///a.txt" }))?.["mcp-name"]).toBe(
      "file:///a.txt",
    );
    expect(routingHeaders(request("prompts/get", { name: "greet" }))?.["mcp-name"]).toBe("greet");
  });

  it("carry no Mcp-Name for methods without one", () => {
    expect(routingHeaders(request("server/discover", {}))).toEqual({
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "server/discover",
    });
  });

  it("are absent for legacy-era requests, notifications and responses", () => {
    expect(
      routingHeaders({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } }),
    ).toBeUndefined();
    expect(
      routingHeaders({ jsonrpc: "2.0", method: "notifications/initialized", params: {} }),
    ).toBeUndefined();
    expect(routingHeaders({ jsonrpc: "2.0", id: 1, result: {} })).toBeUndefined();
  });
});

describe("withRoutingHeaders", () => {
  const post = (body: unknown, headers?: HeadersInit): RequestInit => ({
    method: "POST",
    body: JSON.stringify(body),
    ...(headers !== undefined && { headers }),
  });
  const sent = (fetchImpl: ReturnType<typeof vi.fn>) =>
    new Headers((fetchImpl.mock.calls[0]![1] as RequestInit).headers);

  it("adds the headers a POSTed request needs", async () => {
    const inner = vi.fn(async (_url: string | URL, _init?: RequestInit) => new Response("{}"));
    const body = { jsonrpc: "2.0", id: 7, method: "tasks/get", params: { taskId: "tâche", _meta: envelope } };
    await withRoutingHeaders(inner)("http://server/mcp", post(body, { accept: "application/json" }));
    const headers = sent(inner);
    expect(headers.get("mcp-protocol-version")).toBe("2026-07-28");
    expect(headers.get("mcp-method")).toBe("tasks/get");
    expect(headers.get("mcp-name")).toBe(b64("tâche"));
    expect(headers.get("accept")).toBe("application/json");
  });

  it("leaves headers that are already set alone", async () => {
    const inner = vi.fn(async (_url: string | URL, _init?: RequestInit) => new Response("{}"));
    const body = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "a", _meta: envelope } };
    await withRoutingHeaders(inner)("http://server/mcp", post(body, new Headers({ "Mcp-Name": "preset" })));
    expect(sent(inner).get("mcp-name")).toBe("preset");
  });

  it("passes GETs, non-JSON bodies and legacy requests through untouched", async () => {
    const inner = vi.fn(async (_url: string | URL, _init?: RequestInit) => new Response("{}"));
    const wrapped = withRoutingHeaders(inner);
    const get: RequestInit = { method: "GET" };
    const garbage: RequestInit = { method: "POST", body: "not json" };
    const legacy = post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } });
    await wrapped("http://server/mcp", get);
    await wrapped("http://server/mcp", garbage);
    await wrapped("http://server/mcp", legacy);
    expect(inner.mock.calls.map((call) => call[1])).toEqual([get, garbage, legacy]);
  });

  it("uses the global fetch of the moment it is called", async () => {
    const wrapped = withRoutingHeaders();
    const patched = vi.fn(async (_url: string | URL, _init?: RequestInit) => new Response("{}"));
    vi.stubGlobal("fetch", patched);
    try {
      await wrapped("http://server/mcp", { method: "GET" });
    } finally {
      vi.unstubAllGlobals();
    }
    expect(patched).toHaveBeenCalledOnce();
  });
});
