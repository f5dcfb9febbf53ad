/**
 * The 2025-11-25 server over Streamable HTTP on node:http: the v1 SDK's stateful transport, one SDK
 * `Server` per session (`initialize` opens one, `DELETE` ends it), all over one engine. Every request
 * is recorded before the SDK sees it, as on the 2026-07-28 server.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server as LegacyServer } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { admitRequest } from "../http-intake.js";
import { ErrorCode } from "../constants.js";
import type { HttpTaskServer, HttpTaskServerOptions } from "../http-server.js";
import { writeRpcError, writeWebResponse } from "../node-http.js";
import { createLegacyServer } from "./connection.js";
import { createLegacyCore } from "./core.js";
import { createAuthGate, refuse, type AuthGate } from "../auth/gate.js";
import { checkAuthOptions } from "../auth/options.js";
import { SpansById } from "../server-tracing.js";

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: LegacyServer;
  /** Request ids are unique within a session: each one ends its spans as its answers go out. */
  readonly spans: SpansById;
}

function isInitialize(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize";
}

/** {@link startTaskServer} with `era: "2025-11-25"`. */
export async function startLegacyHttpServer(options: HttpTaskServerOptions): Promise<HttpTaskServer> {
  const core = await createLegacyCore(options);
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  const sessions = new Map<string, Session>();
  if (options.auth !== undefined) checkAuthOptions(options.auth);
  let gate: AuthGate | undefined;

  async function openSession(): Promise<Session> {
    const transport: StreamableHTTPServerTransport = new core.sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, session),
      onsessionclosed: (sessionId) => void sessions.delete(sessionId),
    });
    const server = createLegacyServer(core);
    server.onerror = (error) => core.reportError(error);
    const session: Session = { transport, server, spans: new SpansById(core.tracing) };
    await server.connect(transport);
    if (core.tracing !== undefined) {
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        session.spans.sent(message);
        return send(message, options);
      };
    }
    return session;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (gate !== undefined && (await gate.serveRoute(req, res, new URL(req.url ?? "/", "http://localhost"))))
      return;
    const admitted = await admitRequest(req, res, { host, path, log: core.log, clock: core.clock });
    if (admitted === undefined) return;
    const { headers, body } = admitted;
    const refusal = options.auth === undefined ? undefined : await refuse(gate, headers);
    if (refusal !== undefined) {
      await writeWebResponse(refusal, res);
      return;
    }

    const sessionId = headers["mcp-session-id"];
    let session = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (session === undefined) {
      if (sessionId !== undefined) return writeRpcError(res, 404, -32001, "Session not found");
      if (req.method !== "POST" || !isInitialize(body)) {
        return writeRpcError(res, 400, -32000, "Bad Request: no session; send initialize first");
      }
      session = await openSession();
    }
    const endSpan = session.spans.received(body, {
      transport: "http",
      headers,
      clientAddress: req.socket.remoteAddress,
      clientPort: req.socket.remotePort,
    });
    // An answer the SDK streams ends the span as it is sent; a request answered otherwise, with the response.
    if (endSpan !== undefined) res.on("close", () => endSpan({ httpStatus: res.statusCode }));
    await session.transport.handleRequest(req, res, body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      core.reportError(error instanceof Error ? error : new Error(String(error)));
      if (res.headersSent) res.destroy();
      else writeRpcError(res, 500, ErrorCode.internalError, "Internal error");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      core.shutdown();
      await Promise.allSettled([...sessions.values()].map((session) => session.server.close()));
      sessions.clear();
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
    setTools: (tools) => core.setTools(tools),
    toolsChanged: () => core.engine.toolsChanged(),
    listenStreams: 0,
    auth: gate?.view,
    close,
  };
}
