/**
 * The undici path (src/session/http-undici.ts) under the chain both paths share, against a raw node:http server on
 * 127.0.0.1: what `fetch` promised the code above it holds here too (decompressed bytes counted, Retry-After, no
 * redirect to another origin, aborts with the signal's reason, a dead socket named in `cause`), plus what this path
 * adds: keep-alive, and at most `maxInFlight` connections for polls. The rest of the transport suite runs on both
 * paths (vitest.config.ts, project "fetch-path").
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { nodeHttp, type NodeHttp } from "../../../src/session/http-undici.js";
import { readBoundedText } from "../../../src/session/bounded-body.js";
import { withHttpErrorMapping } from "../../../src/session/http-fetch.js";
import { withSameOriginRedirects } from "../../../src/session/http-redirects.js";
import { TransportError } from "../../../src/protocol/errors.js";
import { transportFailure } from "../../fixtures/errors.js";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const open: { close(): Promise<void> }[] = [];

afterEach(async () => {
  vi.unstubAllEnvs();
  for (const item of open.splice(0).reverse()) await item.close();
});

async function serve(handler: Handler): Promise<{ url: URL; sockets: Set<Socket>; requests: number[] }> {
  const sockets = new Set<Socket>();
  const requests: number[] = [];
  const server = http.createServer((req, res) => {
    sockets.add(req.socket);
    requests.push(Date.now());
    req.resume();
    req.on("end", () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  open.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), sockets, requests };
}

function undici(connections = 4): NodeHttp {
  const path = nodeHttp({ connections });
  if (path === undefined) throw new Error("the undici path is off (MCP_TASKS_HTTP=fetch?)");
  open.push(path);
  return path;
}

const poll = (id: number): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", "mcp-method": "tasks/get" },
  body: JSON.stringify({ jsonrpc: "2.0", id, method: "tasks/get", params: { taskId: "t" } }),
});

describe("the undici path", () => {
  it("counts a gzip body's decompressed bytes against the limit, whatever its Content-Length says", async () => {
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20)); // 4 MiB of spaces in about 4 KB
    const { url } = await serve((_req, res) => {
      res.writeHead(200, {
        "content-type": "application/json",
        "content-encoding": "gzip",
        "content-length": String(bomb.length),
      });
      res.end(bomb);
    });
    const response = await undici().fetch(url, poll(1));
    expect(response.headers.get("content-length")).toBeNull();
    await expect(readBoundedText(response, 64 * 1024, "tasks/get")).rejects.toSatisfy(
      transportFailure("too_large"),
    );
  });

  it("decompresses a gzip body within the limit", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync('{"jsonrpc":"2.0","id":1,"result":{}}'));
    });
    const response = await undici().fetch(url, poll(1));
    expect(await readBoundedText(response, 1024, "tasks/get")).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
  });

  it("maps HTTP 503 with Retry-After to a transient TransportError carrying the delay", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(503, { "retry-after": "7" });
      res.end("busy");
    });
    const failure = await withHttpErrorMapping(undici().fetch)(url, poll(1)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransportError);
    expect(failure).toMatchObject({ status: 503, retryAfterMs: 7000, transient: true });
  });

  it("refuses a redirect to another origin before a byte goes there", async () => {
    const elsewhere = await serve((_req, res) => res.end("{}"));
    const { url } = await serve((_req, res) => {
      res.writeHead(307, { location: new URL("/stolen", elsewhere.url).href });
      res.end();
    });
    const failure = await withSameOriginRedirects(undici().fetch)(url, poll(1)).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TransportError);
    expect((failure as Error).message).toContain("to another origin");
    expect(elsewhere.requests).toEqual([]);
  });

  it("rejects with the signal's reason when aborted while waiting for the answer", async () => {
    const { url } = await serve(() => undefined); // never answers
    const controller = new AbortController();
    const reason = new Error("given up");
    const pending = undici().fetch(url, { ...poll(1), signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });

  it("names the dead socket in the failure's cause, as fetch does", async () => {
    const { url } = await serve((req) => req.socket.destroy());
    const failure = await undici()
      .fetch(url, poll(1))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error & { cause: { code: string } }).cause.code).toBe("UND_ERR_SOCKET");
  });

  it("keeps one connection alive for polls one after another", async () => {
    const server = await serve((_req, res) => res.end('{"jsonrpc":"2.0","id":1,"result":{}}'));
    const path = undici();
    for (let id = 0; id < 10; id++) {
      await (await path.fetch(server.url, poll(id))).text();
      await new Promise((resolve) => setImmediate(resolve)); // the socket is back in the pool
    }
    expect(server.sockets.size).toBe(1);
  });

  it("opens at most maxInFlight connections for polls, however many are out", async () => {
    const server = await serve((_req, res) =>
      setTimeout(() => res.end('{"jsonrpc":"2.0","id":1,"result":{}}'), 20),
    );
    const path = undici(2);
    await Promise.all(
      Array.from({ length: 8 }, async (_, id) => (await path.fetch(server.url, poll(id))).text()),
    );
    expect(server.sockets.size).toBe(2);
  });

  it("is off with MCP_TASKS_HTTP=fetch, and a value it does not know is a TypeError", () => {
    vi.stubEnv("MCP_TASKS_HTTP", "fetch");
    expect(nodeHttp({ connections: 4 })).toBeUndefined();
    vi.stubEnv("MCP_TASKS_HTTP", "curl");
    expect(() => nodeHttp({ connections: 4 })).toThrow(TypeError);
  });
});
