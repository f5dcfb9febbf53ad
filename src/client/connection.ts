/**
 * Owner of building a client's connections and wiring them to the client. Every transport of a client is built
 * here from the same options — the connection's `headers`, its `auth` plug-in and `maxMessageBytes` — so a
 * session it joins (a 2025-11-25 task's, ./joined-sessions.ts) is held to every bound its own session is; what
 * differs is only what the caller adds (the per-request headers of the client's own session, or the session a
 * transport joins). Every `Session` of a client is built by `sessionFor` and served by `wireSession`, so a
 * joined session answers server requests, reports faults and hears status notifications as the client's own.
 * `openConnection` is `connect` up to a negotiated session, and closes what it opened when that fails.
 */
import type { Logger } from "../protocol/logging.js";
import { Session } from "../session/session.js";
import { RequestHeaders } from "../session/request-headers.js";
import { resolveTransport, type ConnectTarget } from "../session/targets.js";
import type { HttpTransportOptions } from "../session/http-transport.js";
import type { McpTransport, ServerInfo } from "../session/types.js";
import { capabilitiesFor } from "../input/index.js";
import type { ServerRequestRouter } from "../input/server-requests.js";
import { followLegacyStatus, type StatusFollower } from "../eras/legacy/status.js";
import type { ClientTelemetry } from "../telemetry/types.js";
import type { HttpSession } from "../task/ref.js";
import type { ClientSettings } from "./options.js";

/**
 * Builds (or passes through) a transport of the client for `target`, from the options every transport of the
 * client shares and `parts`. The transport is returned unstarted.
 */
export function openTransport(
  target: ConnectTarget,
  settings: ClientSettings,
  parts: Pick<HttpTransportOptions, "requestHeaders" | "join">,
): Promise<McpTransport> {
  return resolveTransport(target, {
    ...settings.http,
    maxMessageBytes: settings.options.maxMessageBytes,
    maxInFlight: settings.options.maxInFlight,
    ...parts,
  });
}

/** The session every connection of a client talks through; it declares the input capabilities handlers exist for. */
export function sessionFor(transport: McpTransport, { options, log }: ClientSettings): Session {
  return new Session(transport, {
    clientInfo: options.clientInfo,
    capabilities: capabilitiesFor(options.inputHandlers),
    requestTimeoutMs: options.requestTimeoutMs,
    maxServerRequests: options.maxServerRequests,
    warn: (message) => log.warn(message),
  });
}

/** What a client may do with its connection besides sending requests (`connect` grants both; `tasksFor` neither). */
export interface ConnectionRights {
  /** The client opened the connection, so `close()` may end the server's HTTP session. */
  endsHttpSession: boolean;
  /** Builds a transport in another HTTP session of the same server (URL targets only): ./joined-sessions.ts. */
  join?: (session: HttpSession, ended: () => void) => Promise<McpTransport>;
}

/** A negotiated connection, ready for a client (`openConnection`, or one `tasksFor` shares). */
export interface ClientConnection {
  session: Session;
  server: ServerInfo;
  /** The endpoint, for a URL target. */
  url?: string | undefined;
  /** Set when the client built the HTTP transport itself, so requests can carry their own headers. */
  requestHeaders?: RequestHeaders | undefined;
  telemetry?: ClientTelemetry | undefined;
  rights: ConnectionRights;
  /**
   * A new, unstarted transport to the same target, for a connection that may be opened again after a drop (a
   * host's server, Decision 22). A transport the caller built is handed back as it is: it cannot be opened twice.
   */
  reopen?: () => Promise<McpTransport>;
}

/**
 * Connects to `target` and negotiates the protocol. Starts the telemetry plug-in and opens the store first (a
 * missing peer dependency, or a store another process holds, fails before any connection is made). A failed
 * connection closes what it opened — the transport (a stdio child exits) and the store — so a retry starts clean.
 */
export async function openConnection(
  target: ConnectTarget,
  settings: ClientSettings,
): Promise<ClientConnection> {
  const url = typeof target === "string" ? target : target instanceof URL ? target.href : undefined;
  // The plug-in of mcp-tasks/telemetry: a missing @opentelemetry/api fails here, naming the package.
  const telemetryFor = await settings.telemetry?.start();
  const store = settings.store;
  await store?.open?.();
  let session: Session | undefined;
  let telemetry: ClientTelemetry | undefined;
  try {
    const requestHeaders = new RequestHeaders();
    session = sessionFor(await openTransport(target, settings, { requestHeaders }), settings);
    // Observing from the first request on: the probe and the handshake get spans too.
    telemetry = telemetryFor?.({ session, url });
    if (telemetry !== undefined) session.observe(telemetry);
    const server = await session.connect();
    const rights: ConnectionRights = { endsHttpSession: true };
    if (url !== undefined) {
      rights.join = (joined, ended) => openTransport(target, settings, { join: { ...joined, ended } });
    }
    return {
      session,
      server,
      url,
      requestHeaders: url !== undefined ? requestHeaders : undefined,
      telemetry,
      rights,
      reopen: () => openTransport(target, settings, { requestHeaders }),
    };
  } catch (error) {
    telemetry?.close();
    await session?.close().catch(() => undefined);
    await store?.close?.().catch((failure: unknown) => {
      settings.log.warn("closing the store after a failed connect failed", failure);
    });
    throw error;
  }
}

/** What serving a session of the client needs. */
export interface SessionWiring {
  serverRequests: ServerRequestRouter;
  log: Logger;
  /** Hears a fault of the session no request owns (the client's `error` event). */
  onError(error: unknown): void;
  /** The run following a task, for 2025-11-25 status notifications; none with `notifications: "off"`. */
  statusFollower: ((taskId: string) => StatusFollower | undefined) | undefined;
}

/** How a wiring is taken back. */
export interface Unwire {
  /** Stops following status notifications (the session closed). */
  stopStatus(): void;
  /** Takes back everything `wireSession` set up, but the serving of server requests. */
  all(): void;
}

/**
 * Serves a session of the client: its server requests go to the client's router, faults no request owns are
 * logged (`fault` names the session) and reported, and 2025-11-25 status notifications reach the runs.
 */
export function wireSession(session: Session, wiring: SessionWiring, fault: string): Unwire {
  const { serverRequests, log } = wiring;
  session.serveRequests(
    (request) => serverRequests.serve(request),
    (method, params) => serverRequests.claims(method, params),
  );
  const stopErrors = session.onError((error) => {
    log.warn(fault, error);
    wiring.onError(error);
  });
  const follower = wiring.statusFollower;
  const stopStatus = follower === undefined ? () => undefined : followLegacyStatus(session, log, follower);
  return {
    stopStatus,
    all: () => {
      stopErrors();
      stopStatus();
    },
  };
}
