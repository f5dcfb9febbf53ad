/**
 * The Streamable HTTP client transport `TaskClient.connect(url)` uses: one POST per message, answered with JSON
 * or with an SSE stream per request; the GET stream a 2025-era server opens after `notifications/initialized`;
 * the session id (`Mcp-Session-Id`) from the `initialize` answer; `MCP-Protocol-Version` and, on 2026-07-28
 * requests, `Mcp-Method` and `Mcp-Name` derived from the body; resumption of a dropped stream with
 * `Last-Event-ID`; ending the session with `DELETE` (`terminateSession`). It behaves as the v2 SDK's `StreamableHTTPClientTransport` does for everything this library
 * sends, without the SDK `Client`, its OAuth code or its schemas in the bundle (a main-entry bundle is a third of
 * the size without them). OAuth flows (an `authProvider`) run in the SDK's transport instead (src/auth/oauth.ts).
 *
 * Given `join`, it takes part in a session another connection opened (a task's, named by its ref): requests carry
 * that session's id and protocol version from the first one on, and nothing is negotiated or listened to.
 *
 * HTTP failures reach this transport already mapped by `withHttpErrorMapping` (a `TransportError`, or a 4xx
 * JSON-RPC error body turned into an answer); what is left here is 401/403 on a POST, GET failures, and bodies
 * that are not what a Streamable HTTP server sends.
 */
import { routingHeaders, type FetchLike } from "../protocol/headers.js";
import { ProtocolError, TransportError } from "../protocol/errors.js";
import { Method } from "../protocol/constants.js";
import { isTransientStatus, rpcErrorInBody } from "./failures.js";
import { readSse } from "./sse.js";
import type { McpTransport, OutgoingMessage, SendOptions } from "./types.js";

/** Headers for every request: fixed, or computed per request (e.g. a fresh bearer token). */
export type HeadersSource = HeadersInit | (() => HeadersInit | Promise<HeadersInit>);

export interface HttpTransportOptions {
  /** The `fetch` every request goes through. Default: the global `fetch`, resolved per request. */
  fetch?: FetchLike;
  /** Extra settings for every request (its `headers` are sent first; `method`, `body` and `signal` are ours). */
  requestInit?: RequestInit;
  /** Headers added to every request after `requestInit.headers`. */
  headers?: HeadersSource;
  /** How a dropped stream is resumed. Default: 1 s, growing 1.5× up to 30 s, 2 attempts (the SDK's defaults). */
  reconnection?: { initialDelayMs: number; maxDelayMs: number; growFactor: number; maxRetries: number };
  /** A session the server already initialized, to send every request in (see the file comment). */
  join?: JoinedSession;
}

/** The session a joining transport sends in: its `Mcp-Session-Id` and the `MCP-Protocol-Version` it settled on. */
export interface JoinedSession {
  id: string;
  protocolVersion: string;
}

const DEFAULT_RECONNECTION = { initialDelayMs: 1000, maxDelayMs: 30_000, growFactor: 1.5, maxRetries: 2 };

interface StreamOptions {
  requestSignal?: AbortSignal;
  onRequestStreamEnd?: () => void;
  /** Resume with this event id (GET with `Last-Event-ID`). */
  lastEventId?: string;
}

export class StreamableHttpTransport implements McpTransport {
  readonly hasPerRequestStream = true;
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private abort: AbortController | undefined;
  private session: string | undefined;
  private protocolVersion: string | undefined;
  private serverRetryMs: number | undefined;
  /** Set by `terminateSession`: the streams the server now closes are not resumed. */
  private ending = false;
  private readonly reconnects = new Set<ReturnType<typeof setTimeout>>();
  private readonly reconnection: NonNullable<HttpTransportOptions["reconnection"]>;

  constructor(
    readonly url: URL,
    private readonly options: HttpTransportOptions = {},
  ) {
    this.reconnection = options.reconnection ?? DEFAULT_RECONNECTION;
    this.session = options.join?.id;
    this.protocolVersion = options.join?.protocolVersion;
  }

  get sessionId(): string | undefined {
    return this.session;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  async start(): Promise<void> {
    if (this.abort) throw new Error("StreamableHttpTransport: already started");
    this.abort = new AbortController();
  }

  async close(): Promise<void> {
    for (const timer of this.reconnects) clearTimeout(timer);
    this.reconnects.clear();
    this.abort?.abort();
    this.onclose?.();
  }

  /**
   * Ends the session: `DELETE` with its id. A server that does not let clients end sessions (405), or that has
   * already forgotten this one (404), is fine; any other failure rejects. Without a session, nothing is sent.
   */
  async terminateSession(signal?: AbortSignal): Promise<void> {
    if (this.session === undefined) return;
    this.ending = true;
    const headers = await this.commonHeaders();
    const response = await this.fetch({
      ...this.options.requestInit,
      method: "DELETE",
      headers,
      ...(signal !== undefined && { signal }),
    });
    await drain(response);
    if (response.ok || response.status === 404 || response.status === 405) {
      this.session = undefined;
      return;
    }
    throw new TransportError(`ending the session: the server answered HTTP ${response.status}`, {
      status: response.status,
      transient: isTransientStatus(response.status),
    });
  }

  async send(message: OutgoingMessage, options?: SendOptions): Promise<void> {
    const method = "method" in message ? message.method : "(response)";
    const isRequest = "method" in message && "id" in message;
    try {
      const headers = await this.commonHeaders();
      const routing = routingHeaders(message);
      if (routing !== undefined) for (const name in routing) headers.set(name, routing[name] as string);
      const handshake = method === Method.initialize && isRequest;
      if (handshake) headers.delete("mcp-session-id");
      headers.set("content-type", "application/json");
      headers.set("accept", "application/json, text/event-stream");
      const response = await this.fetch({
        ...this.options.requestInit,
        method: "POST",
        headers,
        body: JSON.stringify(message),
        signal: this.signalFor(options?.requestSignal),
      });
      if (handshake && response.ok) this.session = response.headers.get("mcp-session-id") ?? undefined;
      if (!response.ok) return await this.failedPost(method, message, response);
      if (response.status === 202) {
        await drain(response);
        if (method === Method.initialized) this.openStream({}).catch((error) => this.report(error));
        return;
      }
      if (!isRequest) return await drain(response);
      const type = mediaType(response.headers.get("content-type"));
      if (type === "text/event-stream") {
        this.readStream(response.body, options ?? {}, false);
      } else if (type === "application/json") {
        // A garbled body throws SyntaxError here: the session reads it as a transient failure.
        const data: unknown = JSON.parse(await response.text());
        for (const frame of Array.isArray(data) ? data : [data]) {
          if (!isJsonRpcMessage(frame)) {
            throw new ProtocolError("the server's answer is not a valid JSON-RPC message", method, data);
          }
          this.onmessage?.(frame);
        }
      } else {
        await drain(response);
        throw new TransportError(`${method}: the server answered with content type ${String(type)}`, {
          transient: false,
        });
      }
    } catch (error) {
      if (options?.requestSignal?.aborted !== true) this.report(error);
      throw error;
    }
  }

  /**
   * 401/403 (which `withHttpErrorMapping` leaves alone) and anything a custom `fetch` let through. A 401 or 403
   * always fails the send with its status, whatever its body says: the connection's auth layer
   * (./http-transport.ts) turns it into an `AuthError` with the challenge, which an answer would hide.
   */
  private async failedPost(method: string, message: OutgoingMessage, response: Response): Promise<void> {
    const text = await response.text().catch(() => "");
    const rpcError = rpcErrorInBody(text);
    const refused = response.status === 401 || response.status === 403;
    if (rpcError !== undefined && "id" in message && !refused && !isTransientStatus(response.status)) {
      this.onmessage?.({ jsonrpc: "2.0", id: message.id, error: rpcError });
      return;
    }
    throw new TransportError(`${method}: the server answered HTTP ${response.status}`, {
      status: response.status,
      transient: isTransientStatus(response.status),
    });
  }

  private async commonHeaders(): Promise<Headers> {
    const headers = new Headers(this.options.requestInit?.headers);
    const source = this.options.headers;
    if (source !== undefined) {
      const extra = new Headers(typeof source === "function" ? await source() : source);
      extra.forEach((value, name) => headers.set(name, value));
    }
    if (this.session !== undefined) headers.set("mcp-session-id", this.session);
    if (this.protocolVersion !== undefined) headers.set("mcp-protocol-version", this.protocolVersion);
    return headers;
  }

  private fetch(init: RequestInit): Promise<Response> {
    return (this.options.fetch ?? globalThis.fetch)(this.url, init);
  }

  private signalFor(requestSignal: AbortSignal | undefined): AbortSignal | undefined {
    const own = this.abort?.signal;
    if (requestSignal === undefined || own === undefined) return requestSignal ?? own;
    return AbortSignal.any([own, requestSignal]);
  }

  /** Opens (or resumes) a GET stream. A server without one answers 405, which is fine. */
  private async openStream(options: StreamOptions): Promise<void> {
    const headers = await this.commonHeaders();
    headers.set("accept", "text/event-stream");
    if (options.lastEventId !== undefined) headers.set("last-event-id", options.lastEventId);
    const response = await this.fetch({
      ...this.options.requestInit,
      method: "GET",
      headers,
      signal: this.signalFor(options.requestSignal),
    });
    if (!response.ok) {
      await drain(response);
      if (response.status === 405) {
        options.onRequestStreamEnd?.();
        return;
      }
      throw new TransportError(`GET stream: the server answered HTTP ${response.status}`, {
        status: response.status,
        transient: isTransientStatus(response.status),
      });
    }
    this.readStream(response.body, options, true);
  }

  /**
   * Delivers a stream's messages. A stream that ends without the answer it was for is resumed from its last
   * event id when the server gave one (or when it is the GET stream); otherwise the request hears that it ended.
   */
  private readStream(
    body: ReadableStream<Uint8Array> | null,
    options: StreamOptions,
    resumable: boolean,
  ): void {
    const intentional = () =>
      this.ending || this.abort?.signal.aborted === true || options.requestSignal?.aborted === true;
    if (body === null) {
      options.onRequestStreamEnd?.();
      return;
    }
    let lastEventId: string | undefined;
    let answered = false;
    const read = readSse(body, {
      onRetry: (ms) => (this.serverRetryMs = ms),
      onEvent: (event) => {
        if (event.id !== undefined) lastEventId = event.id;
        if (event.data === "" || (event.event !== undefined && event.event !== "message")) return;
        let frame: unknown;
        try {
          frame = JSON.parse(event.data);
        } catch (error) {
          this.report(error);
          return;
        }
        if (!isJsonRpcMessage(frame)) {
          this.report(
            new ProtocolError("received an SSE event that is not a JSON-RPC message", "(stream)", frame),
          );
          return;
        }
        if ("result" in frame || "error" in frame) answered = true;
        this.onmessage?.(frame);
      },
    });
    const ended = (failure: unknown) => {
      if (intentional()) return;
      if (failure !== undefined)
        this.report(
          new TransportError(`SSE stream disconnected: ${String(failure)}`, {
            transient: true,
            cause: failure,
          }),
        );
      if ((resumable || lastEventId !== undefined) && !answered && this.abort !== undefined) {
        this.resume({ ...options, lastEventId }, 0);
      } else {
        options.onRequestStreamEnd?.();
      }
    };
    read.then(
      () => ended(undefined),
      (error: unknown) => ended(error),
    );
  }

  private resume(options: StreamOptions, attempt: number): void {
    const { initialDelayMs, maxDelayMs, growFactor, maxRetries } = this.reconnection;
    if (attempt >= maxRetries) {
      this.report(
        new TransportError(`SSE stream: ${maxRetries} reconnection attempts failed`, { transient: true }),
      );
      options.onRequestStreamEnd?.();
      return;
    }
    const delay = this.serverRetryMs ?? Math.min(initialDelayMs * growFactor ** attempt, maxDelayMs);
    const timer = setTimeout(() => {
      this.reconnects.delete(timer);
      if (this.abort?.signal.aborted === true || options.requestSignal?.aborted === true) return;
      this.openStream(options).catch((error: unknown) => {
        if (this.abort?.signal.aborted === true || options.requestSignal?.aborted === true) return;
        this.report(error);
        this.resume(options, attempt + 1);
      });
    }, delay);
    this.reconnects.add(timer);
  }

  private report(error: unknown): void {
    this.onerror?.(error instanceof Error ? error : new Error(String(error)));
  }
}

async function drain(response: Response): Promise<void> {
  await response.text().catch(() => undefined);
}

function mediaType(contentType: string | null): string | undefined {
  return contentType?.split(";")[0]?.trim().toLowerCase();
}

/** A JSON-RPC 2.0 request, notification or response, by shape (the session checks what it reads further). */
function isJsonRpcMessage(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const frame = value as Record<string, unknown>;
  if (frame.jsonrpc !== "2.0") return false;
  if (typeof frame.method === "string") return true;
  const id = frame.id;
  const validId = typeof id === "string" || typeof id === "number";
  if ("result" in frame) return validId && typeof frame.result === "object" && frame.result !== null;
  if ("error" in frame)
    return (validId || id === null || id === undefined) && typeof frame.error === "object";
  return false;
}
