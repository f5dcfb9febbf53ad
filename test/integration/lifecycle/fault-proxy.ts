/**
 * A fault-injecting HTTP proxy for lifecycle regression tests: a `node:http` server on 127.0.0.1 (port 0) in
 * front of the reference server. It forwards every request (POST, GET, DELETE) to the upstream URL and streams
 * the answer back, except for JSON-RPC methods that have a rule:
 *
 * - `"hang"`: hold the response open, unanswered, until the client gives up or the proxy closes;
 * - `{ status }`: answer with that HTTP status and a JSON-RPC error body (`error` if given), or `body` as plain text,
 *   instead of forwarding, with `headers` if given (`Retry-After`);
 * - `{ error }`: answer HTTP 200 with this JSON-RPC error instead of forwarding;
 * - `{ rewrite }`: forward, and pass the client the upstream's whole response text as `rewrite` returns it (a
 *   server that sends what the reference server cannot, such as JSON nested thousands of levels deep);
 * - `"drop"`: destroy the connection without answering (the client sees a network error);
 * - `{ respond }`: write whatever bytes the test wants (a redirect, an endless line, a body with no answer); the
 *   response stays open until `respond` ends it or the proxy closes.
 *
 * A `{ status }` or `{ error }` rule with `afterMs` holds the request that long before it answers (a request that
 * fails while in flight). A rule applies `times` times (default: forever), then the method is forwarded again. A
 * rule for `"GET"` applies to GET requests (the 2025-era event stream, stream resumption). Instead of rules, a
 * `plan(method, index)` given at start decides per request (`index` counts that method's requests from 0).
 * `seen` lists every JSON-RPC method the proxy received, faulted or not, in arrival order; `exchanges` records each
 * JSON-RPC request with its task id, when it arrived and when its response ended (on `performance.now()`), how it
 * ended, the response text, and for a listen the acknowledgements its stream carried and when they passed.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A JSON-RPC error object to answer with. */
export interface FaultError {
  code: number;
  message: string;
  data?: unknown;
}

/** What a `respond` rule hears of the request it answers. */
export interface FaultRequest {
  /** The HTTP method. */
  httpMethod: string;
  /** The JSON-RPC message of a POST (undefined for a GET). */
  message: { id?: unknown; method?: unknown; params?: unknown } | undefined;
  headers: IncomingMessage["headers"];
}

export type FaultRule =
  | "hang"
  | "drop"
  | { status: number; error?: FaultError; body?: string; headers?: Record<string, string>; afterMs?: number }
  | { error: FaultError; afterMs?: number }
  | { rewrite: (text: string) => string }
  | { respond(res: ServerResponse, request: FaultRequest): void };

/** Decides the fate of the `index`-th request (from 0) for `method`; undefined forwards it. */
export type FaultPlan = (method: string, index: number) => FaultRule | undefined;

/** How an exchange ended: answered in full, faulted by a rule, broken upstream, or given up by the client. */
export type ExchangeEnd = "answered" | "faulted" | "broke" | "clientClosed";

/** One JSON-RPC request through the proxy and what became of it. */
export interface Exchange {
  readonly method: string;
  /** `params.taskId`, when the request names one. */
  readonly taskId: string | undefined;
  /** A listen's `params.notifications.taskIds`. */
  readonly listenTaskIds: readonly string[];
  /** When the request's body had arrived (`performance.now()`). */
  readonly startedAt: number;
  /** When its response ended, however it ended; undefined while open. */
  endedAt: number | undefined;
  end: ExchangeEnd | undefined;
  /** The rule applied to it, if any. */
  readonly fault: FaultRule | undefined;
  /** The HTTP status the upstream answered with (forwarded requests). */
  status: number | undefined;
  /** The response text forwarded so far (the first 64 kB). */
  body: string;
  /** A listen: each `notifications/subscriptions/acknowledged` its stream carried, with when it passed. */
  readonly acks: Array<{ at: number; taskIds: string[] }>;
}

export interface FaultProxy {
  /** The proxy's endpoint: the upstream URL with the proxy's host and port. */
  readonly url: string;
  /** Every JSON-RPC method received, in arrival order. */
  readonly seen: string[];
  /** Every JSON-RPC request received, in arrival order, with what became of it. */
  readonly exchanges: readonly Exchange[];
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

const BODY_LIMIT = 64 * 1024;

/** Keeps the response text of `exchange` and notes each listen acknowledgement as its SSE frame passes. */
function tap(exchange: Exchange, answer: IncomingMessage): void {
  exchange.status = answer.statusCode;
  let pending = "";
  answer.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    if (exchange.body.length < BODY_LIMIT) exchange.body += text;
    if (exchange.method !== "subscriptions/listen") return;
    pending += text.replace(/\r\n/g, "\n");
    let end: number;
    while ((end = pending.indexOf("\n\n")) >= 0) {
      const frame = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      let event: { method?: unknown; params?: { notifications?: { taskIds?: unknown } } } | undefined;
      try {
        event = JSON.parse(data) as typeof event;
      } catch {
        continue;
      }
      const ids = event?.params?.notifications?.taskIds;
      if (event?.method === "notifications/subscriptions/acknowledged" && Array.isArray(ids))
        exchange.acks.push({ at: performance.now(), taskIds: ids.filter((id) => typeof id === "string") });
    }
  });
}

export async function startFaultProxy(upstream: string, plan?: FaultPlan): Promise<FaultProxy> {
  const target = new URL(upstream);
  const rules = new Map<string, ActiveRule>();
  const seen: string[] = [];
  const exchanges: Exchange[] = [];
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
    return takeRule(method);
  }

  function takeRule(method: string): FaultRule | undefined {
    const active = rules.get(method);
    if (active === undefined || active.left <= 0) return undefined;
    active.left -= 1;
    faulted.set(method, (faulted.get(method) ?? 0) + 1);
    return active.rule;
  }

  function apply(
    rule: Exclude<FaultRule, { rewrite: unknown }>,
    request: FaultRequest,
    res: ServerResponse,
  ): void {
    const id = request.message?.id;
    if (rule === "drop") {
      res.socket?.destroy();
      return;
    }
    if (rule === "hang" || "respond" in rule) {
      held.add(res);
      res.on("close", () => held.delete(res));
      if (rule !== "hang") rule.respond(res, request);
      return;
    }
    if (rule.afterMs !== undefined) {
      held.add(res);
      const timer = setTimeout(() => {
        held.delete(res);
        if (!res.destroyed) apply({ ...rule, afterMs: undefined }, request, res);
      }, rule.afterMs);
      res.on("close", () => {
        clearTimeout(timer);
        held.delete(res);
      });
      return;
    }
    const headers = "headers" in rule ? rule.headers : undefined;
    if ("status" in rule && rule.body !== undefined) {
      res.writeHead(rule.status, { ...headers, "content-type": "text/plain" });
      res.end(rule.body);
      return;
    }
    const error = ("error" in rule ? rule.error : undefined) ?? { code: -32603, message: "injected fault" };
    const status = "status" in rule ? rule.status : 200;
    res.writeHead(status, { ...headers, "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error }));
  }

  function forward(
    req: IncomingMessage,
    body: Buffer,
    res: ServerResponse,
    exchange?: Exchange,
    rewrite?: (text: string) => string,
  ): void {
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
        if (rewrite !== undefined) {
          const chunks: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => chunks.push(chunk));
          answer.on("end", () => {
            const text = rewrite(Buffer.concat(chunks).toString("utf8"));
            const { "content-length": _length, ...headers } = answer.headers;
            res.writeHead(answer.statusCode ?? 502, headers);
            res.end(text);
            if (exchange !== undefined) {
              exchange.status = answer.statusCode;
              exchange.body = text.slice(0, BODY_LIMIT);
              exchange.end = "answered"; // passed on whole, rewritten: not a fault
            }
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (exchange !== undefined) tap(exchange, answer);
        answer.pipe(res);
        // The upstream broke the response (a dropped stream): break the client's too. Whichever of 'error' and
        // 'close' comes first records the break, with its time taken before the client can hear of it (the
        // response's own 'close' comes later, and under load after the client already reacted).
        const broke = () => {
          if (exchange !== undefined) {
            exchange.end ??= "broke";
            exchange.endedAt ??= performance.now();
          }
          res.destroy();
        };
        answer.on("error", broke);
        answer.on("close", () => {
          if (!answer.complete) broke();
        });
        answer.on("end", () => {
          if (exchange !== undefined) exchange.end ??= "answered";
        });
      },
    );
    out.on("error", () => {
      if (exchange !== undefined) {
        exchange.end ??= "broke";
        exchange.endedAt ??= performance.now();
      }
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // The client went away (aborted, timed out): stop the upstream request too.
    res.on("close", () => {
      if (!res.writableFinished) {
        if (exchange !== undefined) exchange.end ??= "clientClosed";
        out.destroy();
      }
    });
    out.end(body);
  }

  function record(
    method: string,
    message: { params?: unknown } | undefined,
    fault: FaultRule | undefined,
    res: ServerResponse,
  ): Exchange {
    const params = (message?.params ?? {}) as { taskId?: unknown; notifications?: { taskIds?: unknown } };
    const listed = params.notifications?.taskIds;
    const exchange: Exchange = {
      method,
      taskId: typeof params.taskId === "string" ? params.taskId : undefined,
      listenTaskIds: Array.isArray(listed) ? listed.filter((id): id is string => typeof id === "string") : [],
      startedAt: performance.now(),
      endedAt: undefined,
      end: fault === undefined ? undefined : "faulted",
      fault,
      status: undefined,
      body: "",
      acks: [],
    };
    exchanges.push(exchange);
    res.on("close", () => (exchange.endedAt ??= performance.now()));
    return exchange;
  }

  const server = createServer((req, res) => {
    open += 1;
    res.on("close", () => (open -= 1));
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let message: { method?: unknown; id?: unknown; params?: unknown } | undefined;
      if (req.method === "POST" && body.length > 0) {
        try {
          message = JSON.parse(body.toString("utf8")) as typeof message;
        } catch {
          message = undefined;
        }
      }
      const method = typeof message?.method === "string" ? message.method : undefined;
      if (method !== undefined) seen.push(method);
      const rule = method !== undefined ? take(method) : req.method === "GET" ? takeRule("GET") : undefined;
      const exchange = method === undefined ? undefined : record(method, message, rule, res);
      const request = { httpMethod: req.method ?? "", message, headers: req.headers };
      if (rule !== undefined && typeof rule === "object" && "rewrite" in rule)
        forward(req, body, res, exchange, rule.rewrite);
      else if (rule !== undefined) apply(rule, request, res);
      else forward(req, body, res, exchange);
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
    exchanges,
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

/** Whether an exchange failed: faulted, broken, given up, answered with an HTTP error or a JSON-RPC error. */
export function failed(exchange: Exchange): boolean {
  return exchange.end !== "answered" || (exchange.status ?? 200) >= 400 || /"error"\s*:/.test(exchange.body);
}
