/**
 * The two ends of an HTTP session as the transport and the session handle them: joining one another connection
 * opened (its id and protocol version on every request, nothing negotiated), and ending one with `DELETE`
 * (405 and 404 are fine, other failures are reported, a server that never answers cannot hold `close()`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TransportError } from "../../../src/protocol/errors.js";
import { Session } from "../../../src/session/session.js";
import { StreamableHttpTransport } from "../../../src/session/streamable-http.js";
import { FakeTransport } from "./fake-transport.js";

interface Seen {
  method: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown> | undefined;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  vi.useRealTimers();
});

async function serve(
  handler: (seen: Seen, res: ServerResponse) => void,
): Promise<{ url: URL; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString()));
    req.on("end", () => {
      const entry = {
        method: req.method ?? "",
        headers: req.headers,
        body: text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>),
      };
      seen.push(entry);
      handler(entry, res);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { url: new URL(`http://127.0.0.1:${(server?.address() as AddressInfo).port}/mcp`), seen };
}

const info = { clientInfo: { name: "t", version: "1" }, capabilities: {} };

describe("joining a session another connection opened", () => {
  it("sends its id and protocol version from the first request on, and negotiates nothing", async () => {
    const { url, seen } = await serve(({ body }, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ jsonrpc: "2.0", id: body?.["id"], result: { taskId: "t", status: "working" } }),
      );
    });
    const transport = new StreamableHttpTransport(url, {
      join: { id: "s-7", protocolVersion: "2025-11-25" },
    });
    const session = new Session(transport, info);
    await session.join({ era: "legacy", protocolVersion: "2025-11-25", supportsTasks: true });
    await session.request("tasks/get", { taskId: "t" });
    await session.close();
    expect(seen.map((entry) => [entry.method, entry.body?.["method"]])).toEqual([["POST", "tasks/get"]]);
    expect(seen[0]?.headers).toMatchObject({ "mcp-session-id": "s-7", "mcp-protocol-version": "2025-11-25" });
    // A 2025-era session: no 2026 envelope in the params.
    expect(seen[0]?.body?.["params"]).toEqual({ taskId: "t" });
  });
});

describe("ending a session", () => {
  const opened = async (status: number) => {
    const served = await serve((_seen, res) => res.writeHead(status).end());
    const transport = new StreamableHttpTransport(served.url, {
      join: { id: "s-1", protocolVersion: "2025-11-25" },
    });
    return { ...served, transport };
  };

  it("sends DELETE with the session's id, and forgets the id once the server ended it", async () => {
    const { transport, seen } = await opened(200);
    await transport.terminateSession();
    expect(seen.map((entry) => [entry.method, entry.headers["mcp-session-id"]])).toEqual([["DELETE", "s-1"]]);
    expect(transport.sessionId).toBeUndefined();
    await transport.terminateSession(); // nothing left to end: nothing is sent
    expect(seen).toHaveLength(1);
  });

  it.each([405, 404])("takes %i (not allowed, or already gone) as fine", async (status) => {
    const { transport } = await opened(status);
    await expect(transport.terminateSession()).resolves.toBeUndefined();
  });

  it("rejects any other answer with a TransportError carrying the status", async () => {
    const { transport } = await opened(500);
    const failure = await transport.terminateSession().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransportError);
    expect(failure).toMatchObject({ status: 500, transient: true });
  });

  it("Session.close(endSession) reports a failed DELETE and still closes the transport", async () => {
    const { transport } = await opened(500);
    const session = new Session(transport, info);
    await session.join({ era: "legacy", protocolVersion: "2025-11-25", supportsTasks: true });
    const failures: unknown[] = [];
    await session.close((failure) => failures.push(failure));
    expect(failures).toEqual([expect.any(TransportError)]);
    expect(session.isClosed).toBe(true);
  });

  it("Session.close(endSession) waits for the DELETE no longer than the request timeout", async () => {
    vi.useFakeTimers();
    const transport = Object.assign(new FakeTransport(), {
      sessionId: "s-1",
      terminateSession: () => new Promise<void>(() => undefined), // a server that never answers
    });
    const session = new Session(transport, { ...info, requestTimeoutMs: 5_000 });
    await session.join({ era: "legacy", protocolVersion: "2025-11-25", supportsTasks: true });
    const failures: unknown[] = [];
    const closing = session.close((failure) => failures.push(failure));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(transport.closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await closing;
    expect(transport.closed).toBe(true);
    expect(failures).toEqual([expect.objectContaining({ message: expect.stringContaining("5000 ms") })]);
  });

  it("Session.close() without endSession sends no DELETE", async () => {
    const terminateSession = vi.fn(() => Promise.resolve());
    const transport = Object.assign(new FakeTransport(), { sessionId: "s-1", terminateSession });
    const session = new Session(transport, info);
    await session.join({ era: "legacy", protocolVersion: "2025-11-25", supportsTasks: true });
    await session.close();
    expect(terminateSession).not.toHaveBeenCalled();
  });
});
