/**
 * The reference server over real Streamable HTTP on node:http. Each request is recorded, then either
 * served here (`subscriptions/listen` with `taskIds`, as an SSE stream) or converted to a web
 * `Request` for the SDK's `createMcpHandler`, whose `Response` is written back.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler } from "./load-server-sdk.js";
import { admitRequest } from "./http-intake.js";
import { ErrorCode, PROTOCOL_VERSION_META_KEY } from "./constants.js";
import type { TaskListenRequest } from "./listen.js";
import { asTaskListenRequest, listenClosing, openTaskListen } from "./listen.js";
import { paramHeaderProblem } from "./param-headers.js";
import { sseFrame, toWebRequest, writeJson, writeRpcError, writeWebResponse } from "./node-http.js";
import { checkEra } from "./era.js";
import { startLegacyHttpServer } from "./legacy/index.js";
import type { TaskServer, TaskServerOptions } from "./server-core.js";
import { createServerCore } from "./server-core.js";
import {
  AUTH_IN_THIS_BUILD,
  createAuthGate,
  refuse,
  type AuthGate,
  type TaskServerAuth,
} from "./auth/index.js";
import { checkAuthOptions, type ServerAuthOptions } from "./auth/options.js";
import { answerOf, loadServerTracing } from "./server-tracing.js";

export interface HttpTaskServerOptions extends TaskServerOptions {
  /** Interface to bind. Default `127.0.0.1`. */
  readonly host?: string;
  /** Port to bind; 0 (the default) picks a free port. */
  readonly port?: number;
  /** Endpoint path. Default `/mcp`. */
  readonly path?: string;
  /**
   * Web origins allowed to call the server from a page (CORS), e.g. `["http://127.0.0.1:8080"]`; `"*"`
   * allows any. Default: none, so browsers refuse cross-origin calls; Node clients need nothing.
   */
  readonly allowOrigins?: "*" | readonly string[];
  /**
   * Require authorization: `{ type: "bearer", token }` (a static token), or `{ type: "oauth" }` — protected-resource
   * metadata and an authorization server in this process (registration, an approval page, PKCE, refresh tokens,
   * `tokenLifetimeMs`). Refused requests get 401/403 with a `WWW-Authenticate` challenge. Default: none.
   */
  readonly auth?: ServerAuthOptions;
}

export interface HttpTaskServer extends TaskServer {
  /** The endpoint, e.g. `http://127.0.0.1:54321/mcp`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** How many task listen streams are open now. */
  readonly listenStreams: number;
  /** With `auth`: approve authorizations as a browser would, revoke tokens, count token requests. */
  readonly auth: TaskServerAuth | undefined;
}

/** What a page may send and read: the MCP request headers and the session/version headers of answers. */
const CORS_HEADERS = {
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers":
    "content-type, accept, authorization, last-event-id, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name",
  "access-control-expose-headers": "mcp-session-id, mcp-protocol-version",
  "access-control-max-age": "600",
};

/** Adds the CORS headers for an allowed `Origin`; answers a preflight. Returns whether the request is done. */
function applyCors(
  allowOrigins: HttpTaskServerOptions["allowOrigins"],
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  const origin = req.headers.origin;
  const allowed =
    origin !== undefined &&
    allowOrigins !== undefined &&
    (allowOrigins === "*" || allowOrigins.includes(origin));
  if (allowed) {
    res.setHeader("access-control-allow-origin", origin);
    res.setHeader("vary", "Origin");
    for (const [name, value] of Object.entries(CORS_HEADERS)) res.setHeader(name, value);
    // Mirrored tool arguments (`Mcp-Param-*`) have open-ended names: allow the ones the page asks for.
    const params = String(req.headers["access-control-request-headers"] ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name.startsWith("mcp-param-"));
    if (params.length > 0) {
      res.setHeader(
        "access-control-allow-headers",
        `${CORS_HEADERS["access-control-allow-headers"]}, ${params.join(", ")}`,
      );
    }
  }
  if (req.method !== "OPTIONS" || req.headers["access-control-request-method"] === undefined) return false;
  res.writeHead(allowed ? 204 : 403).end();
  return true;
}

/** The `MCP-Protocol-Version` / `Mcp-Method` checks the SDK applies, for the listens served here. */
function listenHeaderProblem(headers: Record<string, string>, listen: TaskListenRequest): string | undefined {
  const meta = listen.params["_meta"] as Record<string, unknown> | undefined;
  const version = headers["mcp-protocol-version"];
  if (version === undefined) return "Missing MCP-Protocol-Version header";
  if (meta?.[PROTOCOL_VERSION_META_KEY] !== version.trim()) {
    return "MCP-Protocol-Version header does not match _meta protocolVersion";
  }
  if (headers["mcp-method"]?.trim() !== "subscriptions/listen") {
    return `Mcp-Method header must be "subscriptions/listen"`;
  }
  return undefined;
}

/**
 * Start the reference server over Streamable HTTP: the 2026-07-28 Tasks extension, or with
 * `era: "2025-11-25"` the same tools the 2025 way (needs `@modelcontextprotocol/sdk`).
 *
 * ```ts
 * const server = await startTaskServer({ tools: [myTool] });
 * // point a client at server.url, then inspect server.tasks and server.requests
 * await server.close();
 * ```
 */
export async function startTaskServer(options: HttpTaskServerOptions = {}): Promise<HttpTaskServer> {
  if (checkEra(options) === "2025-11-25") return startLegacyHttpServer(options);
  if (options.auth !== undefined && !AUTH_IN_THIS_BUILD) {
    // CommonJS: the authorization server ships once, in the ESM build (see auth/index.cjs.ts).
    const esm = await import("mcp-tasks/testing");
    return esm.startTaskServer(options);
  }
  const tracing = await loadServerTracing(options.tracerProvider);
  const core = createServerCore(options);
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  const handler = createMcpHandler(core.factory, {
    legacy: "reject",
    keepAliveMs: 0,
    onerror: core.reportError,
  });
  // Listens without `taskIds` are the SDK's: they hear of a changed tool list through its bus.
  core.engine.onToolsChanged(() => handler.notify.toolsChanged());
  const openListens = new Map<ServerResponse, string | number>();
  if (options.auth !== undefined) checkAuthOptions(options.auth); // a bad option fails before the port opens
  let gate: AuthGate | undefined; // made once the port (and so the origin) is known

  function serveListen(
    headers: Record<string, string>,
    res: ServerResponse,
    listen: TaskListenRequest,
  ): void {
    const headerProblem = listenHeaderProblem(headers, listen);
    if (headerProblem !== undefined) {
      const error = { code: ErrorCode.headerMismatch, message: headerProblem };
      return writeJson(res, 400, { jsonrpc: "2.0", id: listen.id, error });
    }
    const opening = openTaskListen(
      core.engine,
      listen,
      (message) => {
        core.sent.record(listen.id, message, core.clock.now());
        res.write(sseFrame(message));
      },
      core.listen,
      core.nextListenIndex(),
      core.clock,
    );
    if (opening.kind === "rejected") return writeJson(res, 400, opening.response);
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    openListens.set(res, listen.id);
    const drop =
      opening.dropAfterMs === undefined
        ? undefined
        : core.clock.setTimeout(() => res.destroy(), opening.dropAfterMs);
    const end =
      opening.endAfterMs === undefined
        ? undefined
        : core.clock.setTimeout(() => res.end(sseFrame(listenClosing(listen.id))), opening.endAfterMs);
    res.on("close", () => {
      if (drop !== undefined) core.clock.clearTimeout(drop);
      if (end !== undefined) core.clock.clearTimeout(end);
      opening.close();
      openListens.delete(res);
    });
    opening.start();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (applyCors(options.allowOrigins, req, res)) return;
    if (gate !== undefined && (await gate.serveRoute(req, res, new URL(req.url ?? "/", "http://localhost"))))
      return;
    const admitted = await admitRequest(req, res, { host, path, log: core.log, clock: core.clock });
    if (admitted === undefined) return;
    const { headers, text, body, url } = admitted;
    const arrival = { headers, clientAddress: req.socket.remoteAddress, clientPort: req.socket.remotePort };
    const endSpan = tracing?.start(body, { transport: "http", ...arrival });
    // Whatever answers the request (a listen's stream and a refusal included), its span ends with the response at
    // the latest.
    if (endSpan !== undefined) res.on("close", () => endSpan({ httpStatus: res.statusCode }));
    const refusal = options.auth === undefined ? undefined : await refuse(gate, headers);
    if (refusal !== undefined) {
      await writeWebResponse(refusal, res);
      return;
    }
    const listen = req.method === "POST" ? asTaskListenRequest(body) : undefined;
    if (listen !== undefined) return serveListen(headers, res, listen);

    const paramProblem = req.method === "POST" ? paramHeaderProblem(core.engine, headers, body) : undefined;
    if (paramProblem !== undefined) {
      const id = (body as { id?: unknown }).id ?? null;
      const error = { code: ErrorCode.headerMismatch, message: paramProblem };
      endSpan?.({ errorCode: error.code, errorMessage: paramProblem, httpStatus: 400 });
      return writeJson(res, 400, { jsonrpc: "2.0", id, error });
    }
    const aborted = new AbortController();
    // Only a response the client dropped before it was written aborts its request; a finished one needs nothing.
    res.on("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    const written = await writeWebResponse(
      await handler.fetch(toWebRequest(req, url, headers, text, aborted.signal)),
      res,
    );
    endSpan?.({ ...answerOf(written), httpStatus: res.statusCode });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      core.reportError(error instanceof Error ? error : new Error(String(error)));
      if (res.headersSent) res.destroy();
      else writeRpcError(res, 500, ErrorCode.internalError, "Internal error");
    });
  });
  // A client reuses an idle connection for up to the keep-alive hint less a second; on a loaded machine that
  // second is not enough, and a request written just as the server drops the socket fails with ECONNRESET.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      core.engine.close();
      for (const [res, id] of openListens) res.end(sseFrame(listenClosing(id)));
      await handler.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    })());

  const urlHost = host.includes(":") ? `[${host}]` : host;
  const origin = `http://${urlHost}:${port}`;
  if (options.auth !== undefined) {
    gate = createAuthGate(options.auth, { origin, endpoint: `${origin}${path}`, clock: core.clock });
  }
  return {
    url: `${origin}${path}`,
    host,
    port,
    tasks: core.engine.store,
    requests: core.log,
    notifications: core.sent,
    setTools: (tools) => core.engine.setTools(tools),
    toolsChanged: () => core.engine.toolsChanged(),
    get listenStreams() {
      return openListens.size;
    },
    auth: gate === undefined ? undefined : endingStreamsOnRevoke(gate.view, openListens),
    close,
  };
}

/**
 * `revokeAll()` also ends the open listen streams: they were all opened with tokens now revoked, and a server
 * that checks a stream's credentials stops pushing on it. The clients' next requests (the re-listen, the poll a
 * broken stream brings) then meet the 401.
 */
function endingStreamsOnRevoke(
  view: TaskServerAuth,
  openListens: ReadonlyMap<ServerResponse, unknown>,
): TaskServerAuth {
  const revokeAll = (): void => {
    view.revokeAll();
    for (const res of [...openListens.keys()]) res.destroy();
  };
  return Object.defineProperty(Object.create(view) as TaskServerAuth, "revokeAll", { value: revokeAll });
}
