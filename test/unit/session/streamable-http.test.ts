/**
 * Our Streamable HTTP transport against a scripted HTTP server on 127.0.0.1: what it puts on the wire (headers,
 * session id, the GET stream after `notifications/initialized`, `Last-Event-ID` on resumption) and what it makes
 * of what comes back (JSON, SSE, a stream that ends early, bodies no server should send). The end-to-end
 * behaviour through the session is covered by the transport, client and fault suites, which all run on it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ProtocolError, TransportError } from "../../../src/protocol/errors.js";
import { StreamableHttpTransport } from "../../../src/session/streamable-http.js";
import { AbortLine } from "../../../src/session/abort-line.js";
import type { OutgoingMessage } from "../../../src/session/types.js";

interface Seen {
  method: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown> | undefined;
}

type Handler = (seen: Seen, res: ServerResponse) => void;

let server: Server | undefined;
let transport: StreamableHttpTransport | undefined;

afterEach(async () => {
  await transport?.close();
  transport = undefined;
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Starts a server answering with `handler`; returns its URL and what it saw. */
async function serve(handler: Handler): Promise<{ url: URL; seen: Seen[] }> {
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

function started(url: URL, options: ConstructorParameters<typeof StreamableHttpTransport>[1] = {}) {
  transport = new StreamableHttpTransport(url, options);
  const messages: unknown[] = [];
  const errors: Error[] = [];
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error);
  return { transport, messages, errors, start: () => transport!.start() };
}

const request = (id: string, method: string, params: Record<string, unknown> = {}): OutgoingMessage => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

const json = (res: ServerResponse, value: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(200, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));

/** Waits until `check` holds (every 10 ms, at most 5 s). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 5_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("StreamableHttpTransport", () => {
  it("sends the routing headers of a 2026-07-28 request and reads a JSON answer", async () => {
    const { url, seen } = await serve(({ body }, res) =>
      json(res, { jsonrpc: "2.0", id: body?.["id"], result: {} }),
    );
    const { transport, messages, start } = started(url);
    await start();
    transport.setProtocolVersion("2026-07-28");
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
    await transport.send(request("a", "tasks/get", { taskId: "tâche", _meta: meta }));
    await transport.send(request("b", "tools/call", { name: "slow", _meta: meta }));
    expect(messages).toEqual([
      { jsonrpc: "2.0", id: "a", result: {} },
      { jsonrpc: "2.0", id: "b", result: {} },
    ]);
    expect(seen[0]?.headers).toMatchObject({
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tasks/get",
      "mcp-name": "=?base64?dMOiY2hl?=",
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    });
    expect(seen[1]?.headers).toMatchObject({ "mcp-name": "slow", "mcp-protocol-version": "2026-07-28" });
  });

  it("keeps the session id from the initialize answer, and opens the GET stream after initialized", async () => {
    const { url, seen } = await serve(({ method, body }, res) => {
      if (method === "GET") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(
          'data: {"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t"}}\n\n',
        );
        return;
      }
      if (body?.["method"] === "initialize") {
        json(res, { jsonrpc: "2.0", id: body["id"], result: {} }, { "mcp-session-id": "s-1" });
        return;
      }
      res.writeHead(202).end();
    });
    const { transport, messages, start } = started(url);
    await start();
    await transport.send(request("i", "initialize", { protocolVersion: "2025-11-25" }));
    transport.setProtocolVersion("2025-11-25");
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await until(() => messages.length === 2, "the notification on the GET stream");
    expect(transport.sessionId).toBe("s-1");
    expect(seen[0]?.headers["mcp-session-id"]).toBeUndefined();
    expect(seen.slice(1).map((entry) => [entry.method, entry.headers["mcp-session-id"]])).toEqual([
      ["POST", "s-1"],
      ["GET", "s-1"],
    ]);
    expect(seen[2]?.headers).toMatchObject({
      accept: "text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    });
    expect(messages[1]).toMatchObject({ method: "notifications/tasks/status" });
  });

  it("takes a 405 to the GET stream as no stream, without an error", async () => {
    const { url, seen } = await serve(({ method }, res) => res.writeHead(method === "GET" ? 405 : 202).end());
    const { transport, errors, start } = started(url);
    await start();
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await until(() => seen.length === 2, "the GET");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(errors).toEqual([]);
  });

  it("delivers an SSE answer's messages in order, and says when a stream ends without the answer", async () => {
    const { url } = await serve(({ body }, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (body?.["id"] === "ends") return void res.end(": nothing for you\n\n");
      res.write('data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n');
      res.end(
        `event: message\ndata: {"jsonrpc":"2.0","id":"${String(body?.["id"])}","result":{"ok":true}}\n\n`,
      );
    });
    const { transport, messages, start } = started(url);
    await start();
    await transport.send(request("r", "tools/call", { name: "x" }));
    await until(() => messages.length === 2, "both messages");
    expect(messages).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: {} },
      { jsonrpc: "2.0", id: "r", result: { ok: true } },
    ]);
    let ended = 0;
    await transport.send(request("ends", "tools/call", { name: "x" }), { onRequestStreamEnd: () => ended++ });
    await until(() => ended === 1, "the end of the stream");
  });

  it("resumes a dropped stream that had an event id with a GET carrying Last-Event-ID", async () => {
    const { url, seen } = await serve(({ method }, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (method === "POST") {
        res.end('id: ev-1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n');
      } else {
        res.end('id: ev-2\ndata: {"jsonrpc":"2.0","id":"r","result":{}}\n\n');
      }
    });
    const { transport, messages, start } = started(url, {
      reconnection: { initialDelayMs: 5, maxDelayMs: 5, growFactor: 1, maxRetries: 2 },
    });
    await start();
    await transport.send(request("r", "tools/call", { name: "x" }));
    await until(() => messages.length === 2, "the answer on the resumed stream");
    expect(seen.map((entry) => [entry.method, entry.headers["last-event-id"]])).toEqual([
      ["POST", undefined],
      ["GET", "ev-1"],
    ]);
    expect(messages[1]).toEqual({ jsonrpc: "2.0", id: "r", result: {} });
  });

  it("gives up resuming after its retries and tells the request its stream ended, and why", async () => {
    const { url, seen } = await serve(({ method }, res) => {
      if (method === "GET") return void res.writeHead(500).end();
      res.writeHead(200, { "content-type": "text/event-stream" }).end("id: ev-1\n\n");
    });
    const { transport, errors, start } = started(url, {
      reconnection: { initialDelayMs: 5, maxDelayMs: 5, growFactor: 1, maxRetries: 2 },
    });
    await start();
    const ends: unknown[] = [];
    await transport.send(request("r", "tools/call", { name: "x" }), {
      onRequestStreamEnd: (failure) => ends.push(failure),
    });
    await until(() => ends.length === 1, "the end of the stream");
    expect(seen.map((entry) => entry.method)).toEqual(["POST", "GET", "GET"]);
    expect(ends[0]).toBeInstanceOf(TransportError);
    expect((ends[0] as Error).message).toContain("2 reconnection attempts failed");
    // The stream was the request's: it hears why, and nothing is reported as a fault nobody owns.
    expect(errors).toEqual([]);
  });

  it("refuses a JSON body that is not JSON-RPC (ProtocolError) and an unknown content type (TransportError)", async () => {
    const { url } = await serve(({ body }, res) => {
      if (body?.["id"] === "plain")
        return void res.writeHead(200, { "content-type": "text/plain" }).end("hi");
      json(res, { hello: "world" });
    });
    const { transport, start } = started(url);
    await start();
    await expect(transport.send(request("x", "tasks/get"))).rejects.toBeInstanceOf(ProtocolError);
    const plain = await transport.send(request("plain", "tasks/get")).catch((error: unknown) => error);
    expect(plain).toBeInstanceOf(TransportError);
    expect(plain).toMatchObject({ transient: false });
  });

  it("fails a 401 or 403 with its status even when the body holds a JSON-RPC error (auth decides above)", async () => {
    const { url } = await serve(({ body }, res) => {
      res.writeHead(body?.["id"] === "scope" ? 403 : 401, { "content-type": "application/json" });
      if (body?.["id"] === "bare") return void res.end();
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "no token" } }));
    });
    const { transport, messages, start } = started(url);
    await start();
    for (const [id, status] of [
      ["e", 401],
      ["bare", 401],
      ["scope", 403],
    ] as const) {
      const failure = await transport.send(request(id, "tasks/get")).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TransportError);
      expect(failure).toMatchObject({ status, transient: false });
    }
    expect(messages).toEqual([]);
  });

  it("close() aborts open streams and reports nothing about its own aborts", async () => {
    const { url } = await serve((_seen, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n");
    });
    const { transport, errors, start } = started(url);
    let closed = 0;
    transport.onclose = () => closed++;
    await start();
    let ended = 0;
    await transport.send(request("r", "tools/call", { name: "x" }), { onRequestStreamEnd: () => ended++ });
    await transport.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect({ closed, ended, errors }).toEqual({ closed: 1, ended: 0, errors: [] });
  });

  it("close() aborts a request in flight that has an abort of its own, and that abort still aborts its own", async () => {
    // Never answers: only an abort ends these requests.
    const { url, seen } = await serve(() => undefined);
    const { transport, start } = started(url);
    await start();
    const own = new AbortLine();
    const mine = transport.send(request("mine", "tasks/get"), { exchange: own });
    const other = new AbortLine();
    const theirs = transport.send(request("theirs", "tasks/get"), { exchange: other });
    await expect.poll(() => seen.length).toBe(2);
    const reason = new Error("the caller gave up");
    own.abort(reason);
    await expect(mine).rejects.toBe(reason);
    await transport.close();
    await expect(theirs).rejects.toMatchObject({ name: "AbortError" });
  });
});
