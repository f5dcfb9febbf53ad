/**
 * The contract between the JSON-RPC conversation (session/) and everything above it. Code above this line
 * never touches a Transport: it asks for a method with params and gets the raw result object back.
 */
import type { ClientCapabilities, DiscoverResult, Implementation } from "../schema/index.js";

export interface RequestOptions {
  /** Aborts waiting for the answer (the request is abandoned locally). */
  signal?: AbortSignal;
  /** Fails with a transient `TransportError` when no answer arrives in time. Default: the session's timeout. */
  timeoutMs?: number;
}

/**
 * Which protocol generation the server speaks. `modern` = 2026-07-28 (`server/discover`, per-request
 * envelope, the tasks extension possible); `legacy` = 2025-11-25 and earlier (`initialize` handshake).
 */
export type ProtocolEra = "modern" | "legacy";

export interface ServerInfo {
  era: ProtocolEra;
  /** The negotiated protocol version. */
  protocolVersion: string;
  /** The `server/discover` result (modern era only). */
  discover?: DiscoverResult;
  serverInfo?: Implementation;
  /** Whether the server advertised the tasks extension (a settings object with keys also counts). */
  supportsTasks: boolean;
}

/**
 * One JSON-RPC conversation with a server. `request` resolves with the raw `result` object of the answer; it
 * rejects with `RpcError` (or `MissingCapabilityError`) for a JSON-RPC error answer and with `TransportError`
 * when no answer arrived. On the modern era it adds the envelope (`_meta` protocol version, client info and
 * capabilities) to every request, merged under any `_meta` the caller passed.
 */
export interface RpcChannel {
  request(method: string, params: Record<string, unknown>, options?: RequestOptions): Promise<Record<string, unknown>>;
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** Called for every notification the server sends. Returns an unsubscribe function. */
  onNotification(listener: (method: string, params: Record<string, unknown>) => void): () => void;
}

export interface SessionOptions {
  clientInfo: Implementation;
  /** The capabilities declared on every modern-era request (the tasks extension is always included). */
  capabilities: ClientCapabilities;
  /** Default per-request timeout in milliseconds. */
  requestTimeoutMs?: number;
}
