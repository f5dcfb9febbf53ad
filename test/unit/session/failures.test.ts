import { describe, expect, it } from "vitest";
import { SdkHttpError, SdkErrorCode } from "@modelcontextprotocol/client";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as z from "zod/v4";
import { isTransientStatus, parseRetryAfter, requestFailure } from "../../../src/session/failures.js";
import {
  MissingCapabilityError,
  ProtocolError,
  RpcError,
  TransportError,
} from "../../../src/protocol/errors.js";

const rpcBody = (code: number, message: string) =>
  JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } });
const v2Http = (status: number, text?: string) =>
  new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, {
    status,
    text,
  });
const v1Http = (status: number, text: string) =>
  new StreamableHTTPError(status, `Error POSTing to endpoint: ${text}`);

describe("Retry-After", () => {
  const now = Date.parse("2026-08-01T10:00:00Z");

  it("reads delay-seconds", () => {
    expect(parseRetryAfter("7", now)).toBe(7_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
  });

  it("reads an HTTP-date relative to now, and a past date as now", () => {
    expect(parseRetryAfter("Sat, 01 Aug 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Sat, 01 Aug 2026 09:00:00 GMT", now)).toBe(0);
  });

  it("ignores what it cannot read", () => {
    for (const value of [null, undefined, "", "soon", "-5", "1.5", "Someday"])
      expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe("which HTTP statuses are transient", () => {
  it("retries 5xx, 429 and 408, and nothing else", () => {
    expect([500, 502, 503, 504, 429, 408].every(isTransientStatus)).toBe(true);
    expect([400, 401, 403, 404, 409, 422].some(isTransientStatus)).toBe(false);
  });
});

describe("what a request rejects with when the transport's send() threw", () => {
  it("passes our own typed errors through", () => {
    const error = new TransportError("x", { status: 503, transient: true, retryAfterMs: 5 });
    expect(requestFailure("tasks/get", error)).toBe(error);
  });

  it("reads a JSON-RPC error body in a v2 SdkHttpError as the server's answer", () => {
    const notFound = requestFailure("tasks/get", v2Http(404, rpcBody(-32601, "Method not found")));
    expect(notFound).toBeInstanceOf(RpcError);
    expect(notFound).toMatchObject({ code: -32601, method: "tasks/get" });
    const missing = requestFailure("tools/call", v2Http(400, rpcBody(-32021, "Missing capability")));
    expect(missing).toBeInstanceOf(MissingCapabilityError);
  });

  it("reads a JSON-RPC error body in a v1 StreamableHTTPError too", () => {
    const error = requestFailure(
      "server/discover",
      v1Http(400, rpcBody(-32000, "Bad Request: Server not initialized")),
    );
    expect(error).toMatchObject({ name: "RpcError", code: -32000 });
  });

  it("makes an HTTP failure without a JSON-RPC body a TransportError with its status", () => {
    expect(requestFailure("tasks/get", v2Http(404, "<html>nope</html>"))).toMatchObject({
      name: "TransportError",
      status: 404,
      transient: false,
    });
    expect(requestFailure("tasks/get", v1Http(503, "busy"))).toMatchObject({ status: 503, transient: true });
  });

  it("keeps a 5xx transient even when its body is a JSON-RPC error", () => {
    const error = requestFailure("tasks/get", v2Http(500, rpcBody(-32603, "Internal error")));
    expect(error).toMatchObject({ name: "TransportError", status: 500, transient: true });
  });

  it("makes network failures, broken pipes and cut-off bodies transient", () => {
    expect(requestFailure("tasks/get", new TypeError("fetch failed"))).toMatchObject({ transient: true });
    const pipe = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    expect(requestFailure("tasks/get", pipe)).toMatchObject({ transient: true });
    const syntax = requestFailure("tasks/get", new SyntaxError("Unexpected end of JSON input"));
    expect(syntax).toMatchObject({ name: "TransportError", transient: true });
  });

  it("makes a body that is not JSON-RPC a ProtocolError", () => {
    const zodError = z.object({ jsonrpc: z.literal("2.0") }).safeParse({}).error;
    expect(requestFailure("tasks/get", zodError)).toBeInstanceOf(ProtocolError);
  });

  it("does not call an unknown failure transient", () => {
    expect(requestFailure("tasks/get", new Error("Not connected"))).toMatchObject({
      name: "TransportError",
      transient: false,
    });
  });
});
