/**
 * A fault-injecting HTTP proxy on 127.0.0.1 in front of the reference server: every request is forwarded as is,
 * except those the test's `fault` hook answers itself (a JSON-RPC error, an HTTP 503 with `Retry-After`, ...).
 * The reference server scripts task behaviour; this scripts the network and the server's failures around it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

/** A JSON-RPC request as the proxy saw it. */
export interface ProxiedRequest {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  /** When the proxy received it, `performance.now()`. */
  at: number;
  /** Whether the proxy answered it itself instead of forwarding it. */
  faulted: boolean;
}

/** What the proxy answers instead of the server. */
export interface Fault {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface FaultyProxy {
  url: string;
  /** Every request with a JSON-RPC body, in arrival order. */
  readonly seen: ProxiedRequest[];
  /** Requests of one method. */
  sent(method: string): ProxiedRequest[];
  close(): Promise<void>;
}

/** A JSON-RPC error answer with HTTP 200, as a server that rejects the request would send it. */
export function rpcErrorFault(id: string | number | undefined, code: number, message: string): Fault {
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }),
  };
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host"]);

export async function startFaultyProxy(
  target: string,
  fault: (request: ProxiedRequest) => Fault | undefined,
): Promise<FaultyProxy> {
  const seen: ProxiedRequest[] = [];
  const open = new Set<ServerResponse>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let injected: Fault | undefined;
    if (text !== "") {
      const body = JSON.parse(text) as Omit<ProxiedRequest, "at" | "faulted">;
      const request: ProxiedRequest = { ...body, at: performance.now(), faulted: false };
      injected = fault(request);
      request.faulted = injected !== undefined;
      seen.push(request);
    }
    if (injected !== undefined) {
      res.writeHead(injected.status, injected.headers ?? {}).end(injected.body ?? "");
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = String(value);
    }
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    const answer = await fetch(target, {
      method: req.method,
      headers,
      body: req.method === "POST" ? text : undefined,
      signal: controller.signal,
    });
    const back: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) back[name] = value;
    });
    res.writeHead(answer.status, back);
    if (answer.body === null) res.end();
    else {
      // The client may hang up mid-stream (that aborts the fetch): the body's error must not go unhandled.
      const body = Readable.fromWeb(answer.body as import("node:stream/web").ReadableStream);
      body.on("error", () => res.destroy());
      body.pipe(res);
    }
  }

  const server = createServer((req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${new URL(target).pathname}`,
    seen,
    sent: (method) => seen.filter((request) => request.method === method),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
