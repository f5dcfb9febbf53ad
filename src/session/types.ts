/**
 * The contract between the JSON-RPC conversation (session/) and everything above it. Code above this line
 * never touches a Transport: it asks for a method with params and gets the raw result object back.
 */
import type { AbortLine } from "./abort-line.js";
import type { ClientCapabilities, DiscoverResult, Implementation } from "../schema/index.js";
import type { RequestClaim } from "./incoming.js";

export interface RequestOptions {
  /** Aborts waiting for the answer (the request is abandoned locally). */
  signal?: AbortSignal;
  /** Fails with a transient `TransportError` when no answer arrives in time. Default: the session's timeout. */
  timeoutMs?: number;
  /** Told the JSON-RPC id just before the request is sent (a listen's id is its subscription id). */
  onId?: (id: string) => void;
  /** Whom the request is for (a task handle), passed to the session's `RequestObserver` as is. */
  owner?: object;
}

/**
 * Watches a session's requests (telemetry, when it is on). The session asks it once per request, as the request
 * is framed; without an observer, the request path costs one branch more. It must not throw.
 */
export interface RequestObserver {
  /**
   * A request is about to be sent: its JSON-RPC id, its method, its params as the caller passed them (before the
   * envelope) and the caller's options (`owner`; `signal`, which when fired makes a failure the caller giving up,
   * as when a listen is closed on purpose). Returns what the request carries and hears, or undefined to leave it
   * alone. Positional, so a request telemetry leaves alone costs no object.
   */
  request(
    id: string,
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions | undefined,
  ): RequestWatch | undefined;
}

export interface RequestWatch {
  /** Extra `_meta` entries for the request (trace context). The caller's own entries and the envelope win. */
  readonly meta: Readonly<Record<string, string>> | undefined;
  /** The answer arrived. */
  answered(result: Record<string, unknown>): void;
  /** The request failed: an error answer, a transport fault, a timeout, an abort, the session closing. */
  failed(error: unknown): void;
}

/**
 * Which protocol generation the server speaks. `modern` = 2026-07-28 (`server/discover`, per-request
 * envelope, the tasks extension possible); `legacy` = 2025-11-25 and earlier (`initialize` handshake).
 */
export type ProtocolEra = "modern" | "legacy";

/**
 * A Streamable HTTP session (2025-11-25; 2026-07-28 has none): its `Mcp-Session-Id` and the protocol version its
 * `initialize` settled on. What a ref records of the session its task was created in, and what a transport that
 * joins that session sends with every request.
 */
export interface HttpSession {
  id: string;
  protocolVersion: string;
}

/** What the client learned about the server when it connected (`client.server`). */
export interface ServerInfo {
  era: ProtocolEra;
  /** The negotiated protocol version. */
  protocolVersion: string;
  /** The `server/discover` result (modern era only). */
  discover?: DiscoverResult;
  serverInfo?: Implementation;
  /** Usage hints the server gave for its tools (untrusted text). */
  instructions?: string;
  /**
   * Whether the server serves tasks in its protocol generation: on 2026-07-28 it advertised the tasks extension
   * (a settings object with keys also counts); on 2025-11-25 its `initialize` capabilities carry `tasks`. Which
   * task requests a 2025-era server serves is in `capabilities.tasks`.
   */
  supportsTasks: boolean;
  /**
   * The server's capabilities from `initialize` (legacy era only): `capabilities.tasks` says which 2025-11-25
   * task requests it serves.
   */
  capabilities?: Record<string, unknown>;
}

/** Hears how one request ended, in place of a promise (see `ReplyChannel.requestFor`). */
export interface ReplyTarget {
  /** The raw `result` object of the answer. */
  answered(result: Record<string, unknown>): void;
  /** Why there is no answer, as `request` would reject. */
  failed(error: unknown): void;
}

/**
 * One JSON-RPC conversation with a server. `request` resolves with the raw `result` object of the answer; it
 * rejects with `RpcError` (or `MissingCapabilityError`) for a JSON-RPC error answer and with `TransportError`
 * when no answer arrived. On the modern era it adds the envelope (`_meta` protocol version, client info and
 * capabilities) to every request, with the caller's `_meta` entries merged beside it (the envelope's own keys win).
 */
export interface RpcChannel {
  request(
    method: string,
    params: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<Record<string, unknown>>;
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** Called for every notification the server sends. Returns an unsubscribe function. */
  onNotification(listener: (method: string, params: Record<string, unknown>) => void): () => void;
}

/** A channel that can also send without a promise, as the poll path does (the session is one). */
export interface ReplyChannel extends RpcChannel {
  /**
   * `request` without a promise: `reply` hears how it ended, once (possibly before `requestFor` returns, when
   * the session is closed or the transport answers at once). For a request sent so often that a promise and its
   * reactions each time count (every scheduled `tasks/get`), with a target its sender made once.
   */
  requestFor(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions | undefined,
    reply: ReplyTarget,
  ): void;
}

export interface SessionOptions {
  clientInfo: Implementation;
  /** The capabilities declared on every modern-era request (the tasks extension is always included). */
  capabilities: ClientCapabilities;
  /** Default per-request timeout in milliseconds. Default 60000. */
  requestTimeoutMs?: number;
  /**
   * How long `connect()` waits for the answer to its `server/discover` probe. On stdio, a server that stays
   * silent this long is taken for a 2025-era server. Default: 10000 on stdio, the request timeout elsewhere.
   */
  probeTimeoutMs?: number;
  /**
   * Most server→client requests open at once (being answered, or waiting for a handler). Past it a request is
   * answered at once with -32000; past twice it (refusals still on their way out), it is dropped. Default 64.
   */
  maxServerRequests?: number;
  /** Hears what the session did to protect itself (a flood of server requests refused). Default: nobody. */
  warn?: (message: string) => void;
}

/** A JSON-RPC message as this library sends it: a request, a notification, or an answer to a server request. */
export type OutgoingMessage =
  | { jsonrpc: "2.0"; id: string | number; method: string; params?: Record<string, unknown> }
  | { jsonrpc: "2.0"; method: string; params?: Record<string, unknown> }
  | { jsonrpc: "2.0"; id: string | number; result: Record<string, unknown> }
  | { jsonrpc: "2.0"; id: string | number; error: { code: number; message: string; data?: unknown } };

/** Per-message options of `Transport.send` that the session uses (the v2 SDK honours them; v1 ignores them). */
export interface SendOptions {
  /** Aborting closes this request's HTTP response stream (modern Streamable HTTP only). */
  requestSignal?: AbortSignal;
  /**
   * The same abort as the session keeps it (./abort-line.ts), for this library's own transport, which reads it
   * instead of `requestSignal`: on the session's options, `requestSignal` is made only when read.
   */
  exchange?: AbortLine;
  /**
   * Called when this request's response stream ended for any reason other than `requestSignal`; our transport
   * passes why when it knows (the SDK's passes nothing).
   */
  onRequestStreamEnd?: (failure?: unknown) => void;
  /** Never set by the session; declared because it is the one option v1's transport shares with v2's. */
  resumptionToken?: string;
}

/**
 * The shape of an MCP SDK transport, which v1 (`@modelcontextprotocol/sdk`) and v2 (`@modelcontextprotocol/client`)
 * share. Declared here, structurally, so the core imports no SDK. The handlers are written as methods so that
 * either SDK's transport class (with its own message type) is assignable.
 */
export interface McpTransport {
  start(): Promise<void>;
  send(message: OutgoingMessage, options?: SendOptions): Promise<void>;
  close(): Promise<void>;
  onmessage?(message: unknown, extra?: unknown): void;
  onerror?(error: Error): void;
  onclose?(): void;
  setProtocolVersion?(version: string): void;
  /** True on the v2 Streamable HTTP transport: one POST and response stream per request. */
  readonly hasPerRequestStream?: boolean;
  /**
   * Why request `id`'s response stream failed, when the transport knew but its `onRequestStreamEnd` could not say
   * (the SDK's transport on the OAuth path, over `maxMessageBytes`); taken once.
   */
  takeStreamFailure?(id: string | number): Error | undefined;
  readonly sessionId?: string | undefined;
  /**
   * Streamable HTTP: ends the server's session (`DELETE` with `Mcp-Session-Id`); a 405 (the server keeps
   * sessions until they expire) resolves. Both SDKs' transports have it, and so does this library's.
   */
  terminateSession?(signal?: AbortSignal): Promise<void>;
  /**
   * Only on a transport several parties share (`tasksFor`'s tap on an SDK Client's connection): the session
   * passes the test for "this response id is mine", so answers to other sessions' requests pass it by.
   * @internal
   */
  claimResponses?(owns: (id: unknown) => boolean): void;
  /**
   * Only on a shared transport: the session passes the test for "this server request is mine to answer"; the
   * requests it does not claim go to the other party (the SDK Client), so each gets exactly one answer.
   * @internal
   */
  claimRequests?(claims: RequestClaim): void;
}
