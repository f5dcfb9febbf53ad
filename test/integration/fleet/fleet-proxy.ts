/**
 * The fleet test's HTTP front for the reference server, on 127.0.0.1: forwards every request and streams the
 * answer back, except that, while faults are on, a seeded share of requests fails the way a real server or network
 * fails — an HTTP 503 without reaching the server, or the connection dropped (before the server sees the request,
 * or for `tasks/get` and listens also after it answered, so only the answer is lost). `tools/call` is never
 * faulted (a failed call makes no task to follow, and a lost answer to one leaves a task nobody knows of), and
 * `tasks/update` never dropped after the server had it (a lost answer to an update is a second answer by design
 * of the client's retry): neither is a lease's doing.
 *
 * Workers named in `unfollowing` get the server's `server/discover` answer without the tasks extension: a worker
 * whose server cannot serve tasks (a rolling upgrade), which must never hold the lease of a task it cannot follow.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Random } from "./fleet-random.js";

export interface FleetProxyOptions {
  random: Random;
  /** Share of requests answered 503 while faults are on. */
  errorRate: number;
  /** Share of requests whose connection is dropped while faults are on. */
  dropRate: number;
  /** Workers (by `x-fleet-worker`) whose server appears to lack the tasks extension. */
  unfollowing: ReadonlySet<string>;
}

export interface FleetProxy {
  readonly url: string;
  /** Turns the 503s and drops on or off. */
  faults: boolean;
  /** How many requests were answered 503 / dropped. */
  readonly injected: { errors: number; drops: number };
  close(): Promise<void>;
}

const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The discover answer without the tasks extension (JSON or one SSE event). */
function withoutTasks(text: string): string {
  const strip = (json: string) =>
    JSON.stringify(
      JSON.parse(json, (key, value: unknown) => (key === TASKS_EXTENSION ? undefined : value)) as unknown,
    );
  if (text.trimStart().startsWith("{")) return strip(text);
  return text
    .split("\n")
    .map((line) => (line.startsWith("data:") ? `data: ${strip(line.slice(5))}` : line))
    .join("\n");
}

export async function startFleetProxy(upstream: string, options: FleetProxyOptions): Promise<FleetProxy> {
  const target = new URL(upstream);
  const sockets = new Set<Socket>();
  const injected = { errors: 0, drops: 0 };
  const state = { faults: false };

  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    after: (answer: string) => string,
  ) {
    const upstreamRequest = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: target.host, "content-length": String(body.length) },
      },
      (answer) => {
        if (after === identity) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const text = after(Buffer.concat(chunks).toString("utf8"));
          const headers = { ...answer.headers };
          delete headers["content-length"];
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(text);
        });
      },
    );
    upstreamRequest.on("error", () => res.destroy());
    res.on("close", () => upstreamRequest.destroy());
    upstreamRequest.end(body);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let method: string | undefined;
      try {
        method = (JSON.parse(body.toString("utf8")) as { method?: string }).method;
      } catch {
        method = undefined;
      }
      const worker = String(req.headers["x-fleet-worker"] ?? "");
      if (method === "server/discover" && options.unfollowing.has(worker)) {
        forward(req, res, body, withoutTasks);
        return;
      }
      if (state.faults && method !== undefined && method !== "server/discover" && method !== "tools/call") {
        const roll = options.random.next();
        if (roll < options.errorRate) {
          injected.errors++;
          res.writeHead(503, { "content-type": "text/plain" }).end("injected 503");
          return;
        }
        if (roll < options.errorRate + options.dropRate) {
          injected.drops++;
          const lateDrop =
            (method === "tasks/get" || method === "subscriptions/listen") && options.random.chance(0.5);
          if (!lateDrop) {
            req.socket.destroy();
            return;
          }
          // The server handles it; its answer is lost on the way.
          res.on("pipe", () => setImmediate(() => req.socket.destroy()));
        }
      }
      forward(req, res, body, identity);
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    get faults() {
      return state.faults;
    },
    set faults(on: boolean) {
      state.faults = on;
    },
    injected,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function identity(text: string): string {
  return text;
}
