/**
 * A fault-injecting HTTP proxy for lifecycle regression tests: a `node:http` server on 127.0.0.1 (port 0) in
 * front of the reference server. It forwards every request (POST, GET, DELETE) to the upstream URL and streams
 * the answer back, except for JSON-RPC methods that have a rule:
 *
 * - `"hang"`: hold the response open, unanswered, until the client gives up or the proxy closes;
 * - `{ status }`: answer with that HTTP status (and a JSON-RPC error body, `error` if given) instead of forwarding;
 * - `{ error }`: answer HTTP 200 with this JSON-RPC error instead of forwarding;
 * - `"drop"`: destroy the connection without answering (the client sees a network error).
 *
 * A rule applies `times` times (default: forever), then the method is forwarded again. Instead of rules, a
 * `plan(method, index)` given at start decides per request (`index` counts that method's requests from 0).
 * `seen` lists every JSON-RPC method the proxy received, faulted or not, in arrival order.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A JSON-RPC error object to answer with. */
export interface FaultError {
  code: number;
  message: string;
  data?: unknown;
}

export type FaultRule = "hang" | "drop" | { status: number; error?: FaultError } | { error: FaultError };

/** Decides the fate of the `index`-th request (from 0) for `method`; undefined forwards it. */
export type FaultPlan = (method: string, index: number) => FaultRule | undefined;

export interface FaultProxy {
  /** The proxy's endpoint: the upstream URL with the proxy's host and port. */
  readonly url: string;
  /** Every JSON-RPC method received, in arrival order. */
  readonly seen: string[];
  /** How many times a rule was applied to each method. */
  readonly faulted: Map<string, number>;
  /** Requests received whose response has not ended yet (forwarded, held, or streaming). */
  readonly open: number;
  /** Applies `rule` to the next `times` requests for `method` (default: all of them). */
  fault(method: string, rule: FaultRule, times?: number): void;
  /** Removes the rule for `method`: it is forwarded again. */
  heal(method: string): void;
  /** Ends every held response, closes every connection, stops listening. Safe to call twice. */
  close(): Promise<void>;
}

interface ActiveRule {
  rule: FaultRule;
  left: number;
}

export async function startFaultProxy(upstream: string, plan?: FaultPlan): Promise<FaultProxy> {
  const target = new URL(upstream);
  const rules = new Map<string, ActiveRule>();
  const seen: string[] = [];
  const faulted = new Map<string, number>();
  const held = new Set<ServerResponse>();
  const counts = new Map<string, number>();
  let open = 0;

  function take(method: string | undefined): FaultRule | undefined {
    if (method === undefined) return undefined;
    if (plan !== undefined) {
      const index = counts.get(method) ?? 0;
      counts.set(method, index + 1);
      const rule = plan(method, index);
      if (rule !== undefined) faulted.set(method, (faulted.get(method) ?? 0) + 1);
      return rule;
    }
    const active = rules.get(method);
    if (active === undefined || active.left <= 0) return undefined;
    active.left -= 1;
    faulted.set(method, (faulted.get(method) ?? 0) + 1);
    return active.rule;
  }

  function apply(rule: FaultRule, id: unknown, res: ServerResponse): void {
    if (rule === "hang") {
      held.add(res);
      res.on("close", () => held.delete(res));
      return;
    }
    if (rule === "drop") {
      res.socket?.destroy();
      return;
    }
    const error = ("error" in rule ? rule.error : undefined) ?? { code: -32603, message: "injected fault" };
    const status = "status" in rule ? rule.status : 200;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error }));
  }

  function forward(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const headers = { ...req.headers, host: target.host };
    const out = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on("error", () => res.destroy());
      },
    );
    out.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // The client went away (aborted, timed out): stop the upstream request too.
    res.on("close", () => {
      if (!res.writableFinished) out.destroy();
    });
    out.end(body);
  }

  const server = createServer((req, res) => {
    open += 1;
    res.on("close", () => (open -= 1));
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let message: { method?: unknown; id?: unknown } | undefined;
      if (req.method === "POST" && body.length > 0) {
        try {
          message = JSON.parse(body.toString("utf8")) as typeof message;
        } catch {
          message = undefined;
        }
      }
      const method = typeof message?.method === "string" ? message.method : undefined;
      if (method !== undefined) seen.push(method);
      const rule = take(method);
      if (rule !== undefined) apply(rule, message?.id, res);
      else forward(req, body, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = new URL(upstream);
  url.host = `127.0.0.1:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: url.href,
    seen,
    faulted,
    get open() {
      return open;
    },
    fault(method, rule, times = Number.POSITIVE_INFINITY) {
      rules.set(method, { rule, left: times });
    },
    heal(method) {
      rules.delete(method);
    },
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        held.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
