/**
 * The Streamable HTTP client transport `TaskClient.connect(url)` uses: one POST per message, answered with JSON
 * or with an SSE stream per request; the GET stream a 2025-era server opens after `notifications/initialized`;
 * the session id (`Mcp-Session-Id`) from the `initialize` answer; `MCP-Protocol-Version` and, on 2026-07-28
 * requests, `Mcp-Method` and `Mcp-Name` derived from the body; resumption of a dropped stream with
 * `Last-Event-ID`; ending the session with `DELETE` (`terminateSession`). It behaves as the v2 SDK's `StreamableHTTPClientTransport` does for everything this library
 * sends, without the SDK `Client`, its OAuth code or its schemas in the bundle (a main-entry bundle is a third of
 * the size without them). OAuth flows (`auth: oauth(provider)`) run in the SDK's transport instead
 * (src/auth/oauth/, the `mcp-tasks/oauth` entry).
 *
 * Given `join`, it takes part in a session another connection opened (a task's, named by its ref): requests carry
 * that session's id and protocol version from the first one on, and nothing is negotiated or listened to.
 *
 * HTTP failures reach this transport already mapped by `withHttpErrorMapping` (a `TransportError`, or a 4xx
 * JSON-RPC error body turned into an answer); what is left here is 401/403 on a POST, GET failures, and bodies
 * that are not what a Streamable HTTP server sends.
 *
 * One HTTP response answers one POST: a JSON-RPC error without an id (`id: null`) in a request's response is that
 * request's answer, and a JSON body that answers nothing fails the request instead of leaving it to wait. Bodies
 * are read within `maxMessageBytes` (./bounded-body.ts, ./sse.ts). Redirects are refused here only through the
 * `fetch` given (src/session/http-redirects.ts, in the chain ./http-transport.ts builds); requests ask for
 * manual redirects so that it costs nothing.
 *
 * A failure `send()` throws belongs to its request, which reports it; `onerror` hears only what no request owns
 * (the GET stream, a frame nobody can place).
 */
import { routingHeaders, type FetchLike } from "../protocol/headers.js";
import { ProtocolError, TransportError, isTooLarge, messageTooLarge } from "../protocol/errors.js";
import { Method } from "../protocol/constants.js";
import { isTransientStatus, rpcErrorInBody } from "./failures.js";
import { readSse } from "./sse.js";
import { answerFrames, isAnonymousError } from "./answers.js";
import { isJsonRpcMessage } from "./frames.js";
import { DEFAULT_MAX_MESSAGE_BYTES, discardBody, readErrorBody, readBoundedText } from "./bounded-body.js";
import type { HttpSession, McpTransport, OutgoingMessage, SendOptions } from "./types.js";
import { AbortLine, withRealSignal } from "./abort-line.js";

/** What the transport itself takes (./http-transport.ts builds it from a client's `HttpTransportOptions`). */
export interface StreamableHttpOptions {
  /**
   * The `fetch` every request goes through. Default: the global `fetch`, resolved per request. A request's
   * `signal` may be the session's line (./abort-line.ts): the chain of ./http-transport.ts takes it.
   */
  fetch?: FetchLike;
  /** How a dropped stream is resumed. Default: 1 s, growing 1.5× up to 30 s, 2 attempts (the SDK's defaults). */
  reconnection?: { initialDelayMs: number; maxDelayMs: number; growFactor: number; maxRetries: number };
  /** The largest JSON body or SSE event taken from the server. Default 16 MiB. */
  maxMessageBytes?: number;
  /** A session the server already initialized, to send every request in (see the file comment). */
  join?: HttpSession;
  /** A message's JSON text (the Node path's, ./request-text.ts). Default: `JSON.stringify`. */
  serialize?: (message: OutgoingMessage) => string;
  /** What a failed send rejects with instead of its error (./http-transport.ts: an authorization failure). */
  sendFailure?: (error: unknown, message: OutgoingMessage) => unknown;
}

const DEFAULT_RECONNECTION = { initialDelayMs: 1000, maxDelayMs: 30_000, growFactor: 1.5, maxRetries: 2 };

interface StreamOptions {
  /** The request's abort (the session's line). */
  exchange?: AbortLine | undefined;
  onRequestStreamEnd?: ((failure?: unknown) => void) | undefined;
  /** Resume with this event id (GET with `Last-Event-ID`). */
  lastEventId?: string;
  /** The request this stream answers (undefined for the GET stream) and its method. */
  request?: { id: string | number; method: string };
}

export class StreamableHttpTransport implements McpTransport {
  readonly hasPerRequestStream = true;
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private abort: AbortController | undefined;
  /** The exchanges of requests with an abort of their own still open: `close()` aborts them. */
  private readonly exchanges = new Set<AbortLine>();
  private session: string | undefined;
  private protocolVersion: string | undefined;
  private serverRetryMs: number | undefined;
  /** Set by `terminateSession`: the streams the server now closes are not resumed. */
  private ending = false;
  private readonly reconnects = new Set<ReturnType<typeof setTimeout>>();
  private readonly reconnection: NonNullable<StreamableHttpOptions["reconnection"]>;
  private readonly maxMessageBytes: number;

  constructor(
    readonly url: URL,
    private readonly options: StreamableHttpOptions = {},
  ) {
    this.reconnection = options.reconnection ?? DEFAULT_RECONNECTION;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
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
    for (const exchange of this.exchanges) exchange.abort();
    this.exchanges.clear();
    this.onclose?.();
  }

  /**
   * Ends the session: `DELETE` with its id. A server that does not let clients end sessions (405), or that has
   * already forgotten this one (404), is fine; any other failure rejects. Without a session, nothing is sent.
   */
  async terminateSession(signal?: AbortSignal): Promise<void> {
    if (this.session === undefined) return;
    this.ending = true;
    const response = await this.fetch({
      method: "DELETE",
      headers: this.commonHeaders(),
      ...(signal !== undefined && { signal }),
      redirect: "manual",
    });
    await discardBody(response);
    if (response.ok || response.status === 404 || response.status === 405) {
      this.session = undefined;
      return;
    }
    throw new TransportError(`ending the session: the server answered HTTP ${response.status}`, {
      status: response.status,
      transient: isTransientStatus(response.status),
    });
  }

  /**
   * Sends one message; a failure rejects (and is the request's to report, not `onerror`'s). Not `async`: a poll
   * goes through one `async` step here (`post`), not two.
   */
  send(message: OutgoingMessage, options?: SendOptions): Promise<void> {
    const method = "method" in message ? message.method : "(response)";
    const id = "method" in message && "id" in message ? message.id : undefined;
    const headers = this.commonHeaders();
    const routing = routingHeaders(message);
    if (routing !== undefined) Object.assign(headers, routing);
    const handshake = method === Method.initialize && id !== undefined;
    if (handshake) delete headers["mcp-session-id"];
    headers["content-type"] = "application/json";
    headers.accept = "application/json, text/event-stream";
    return this.post(message, method, id, handshake, headers, this.exchangeFor(options?.exchange), options);
  }

  /**
   * The POST of `send` and its answer. `exchange` is over when this ends, unless the answer goes on as an SSE
   * stream (which then owns it).
   */
  private async post(
    message: OutgoingMessage,
    method: string,
    id: string | number | undefined,
    handshake: boolean,
    headers: Record<string, string>,
    exchange: AbortLine | undefined,
    options: SendOptions | undefined,
  ): Promise<void> {
    let streaming = false;
    try {
      const response = await this.fetch({
        method: "POST",
        headers,
        body: (this.options.serialize ?? JSON.stringify)(message),
        // A line goes down the chain as the signal: undici takes it, the chain makes a real one for a `fetch`.
        signal: (exchange ?? this.abort?.signal) as AbortSignal,
        redirect: "manual",
      });
      if (handshake && response.ok) this.session = response.headers.get("mcp-session-id") ?? undefined;
      const answered = response.ok && response.status !== 202;
      const type = answered ? mediaType(response.headers.get("content-type")) : undefined;
      if (type === "application/json" && id !== undefined) {
        // The answer nearly every request gets, checked first.
        const text = await readBoundedText(
          response,
          this.maxMessageBytes,
          `${method}: the HTTP response body`,
        );
        // A garbled body throws SyntaxError here: the session reads it as a transient failure.
        this.deliverAnswer(id, method, JSON.parse(text) as unknown);
      } else if (!response.ok) {
        await this.failedPost(method, message, response);
      } else if (response.status === 202) {
        await discardBody(response);
        if (method === Method.initialized) this.openStream({}).catch((error) => this.report(error));
      } else if (id === undefined) {
        await discardBody(response);
      } else if (type === "text/event-stream") {
        const ended = options?.onRequestStreamEnd;
        this.readStream(
          response.body,
          { request: { id, method }, exchange, onRequestStreamEnd: ended },
          false,
          exchange,
        );
        streaming = true;
      } else {
        await discardBody(response);
        throw new TransportError(`${method}: the server answered with content type ${String(type)}`, {
          transient: false,
        });
      }
    } catch (error) {
      throw this.options.sendFailure?.(error, message) ?? error;
    } finally {
      if (!streaming) this.ended(exchange);
    }
  }

  /**
   * The frames of a JSON answer to request `id`. The one HTTP response answers the one POST: an error frame without
   * an id is this request's error, and a body without any answer for it fails the request (nothing else would).
   */
  private deliverAnswer(id: string | number, method: string, data: unknown): void {
    const frames = Array.isArray(data) ? (data as unknown[]) : [data];
    for (const frame of frames) {
      if (!isJsonRpcMessage(frame)) {
        throw new ProtocolError("the server's answer is not a valid JSON-RPC message", method, data);
      }
    }
    for (const frame of answerFrames(id, method, frames)) this.onmessage?.(frame);
  }

  /**
   * 401/403 (which `withHttpErrorMapping` leaves alone) and anything a custom `fetch` let through. A 401 or 403
   * always fails the send with its status, whatever its body says: the connection's auth layer
   * (./http-transport.ts) turns it into an `AuthError` with the challenge, which an answer would hide.
   */
  private async failedPost(method: string, message: OutgoingMessage, response: Response): Promise<void> {
    const text = await readErrorBody(response, this.maxMessageBytes);
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

  /**
   * The session's headers, as a plain record with lower-case names: every layer of the chain below takes one as
   * it is (a `Headers` per request costs a poll more than its routing does). The connection's own headers are
   * added further down (./http-transport.ts).
   */
  private commonHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.session !== undefined) headers["mcp-session-id"] = this.session;
    if (this.protocolVersion !== undefined) headers["mcp-protocol-version"] = this.protocolVersion;
    return headers;
  }

  private fetch(init: RequestInit): Promise<Response> {
    // Every request asks for manual redirects: the `fetch` given decides which it follows.
    if (this.options.fetch === undefined) return globalThis.fetch(this.url, withRealSignal(init));
    return this.options.fetch(this.url, init);
  }

  /**
   * A request's abort (the session's line, ./abort-line.ts), which `close()` aborts too while the transport is
   * started: a set entry, where `AbortSignal.any` or a controller per request cost a poll far more. Without one,
   * a request is aborted only by `close()`, through the transport's own signal.
   */
  private exchangeFor(exchange: AbortLine | undefined): AbortLine | undefined {
    if (exchange !== undefined && this.abort !== undefined) {
      if (this.abort.signal.aborted) exchange.abort();
      else this.exchanges.add(exchange);
    }
    return exchange;
  }

  /** The exchange's response is over: `close()` has nothing left to abort there. */
  private ended(exchange: AbortLine | undefined): void {
    if (exchange !== undefined) this.exchanges.delete(exchange);
  }

  /** Opens (or resumes) a GET stream. A server without one answers 405, which is fine. */
  private async openStream(options: StreamOptions): Promise<void> {
    const headers = this.commonHeaders();
    headers.accept = "text/event-stream";
    if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
    const exchange = this.exchangeFor(options.exchange);
    let response: Response;
    try {
      response = await this.fetch({
        method: "GET",
        headers,
        signal: (exchange ?? this.abort?.signal) as AbortSignal,
        redirect: "manual",
      });
    } catch (error) {
      this.ended(exchange);
      throw error;
    }
    if (!response.ok) {
      this.ended(exchange);
      await discardBody(response);
      if (response.status === 405) {
        options.onRequestStreamEnd?.();
        return;
      }
      throw new TransportError(`GET stream: the server answered HTTP ${response.status}`, {
        status: response.status,
        transient: isTransientStatus(response.status),
      });
    }
    this.readStream(response.body, options, true, exchange);
  }

  /**
   * Delivers a stream's messages. A stream that ends without the answer it was for is resumed from its last
   * event id when the server gave one (or when it is the GET stream); otherwise the request hears that it ended,
   * and why. An error without an id on a request's stream is that request's answer. An event over the size limit
   * ends the stream for good: resuming would bring it again.
   */
  private readStream(
    body: ReadableStream<Uint8Array> | null,
    options: StreamOptions,
    resumable: boolean,
    exchange: AbortLine | undefined,
  ): void {
    const intentional = () =>
      this.ending || this.abort?.signal.aborted === true || options.exchange?.aborted === true;
    if (body === null) {
      this.ended(exchange);
      options.onRequestStreamEnd?.();
      return;
    }
    let lastEventId: string | undefined;
    let answered = false;
    const request = options.request;
    const read = readSse(
      body,
      {
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
          let message = frame;
          if (request !== undefined && !answered && isAnonymousError(frame))
            message = { ...frame, id: request.id };
          if ("result" in message || "error" in message) answered = true;
          this.onmessage?.(message);
        },
      },
      this.maxMessageBytes,
    );
    const ended = (failure: unknown) => {
      this.ended(exchange);
      if (intentional()) return;
      if (isTooLarge(failure)) {
        const what =
          request === undefined ? "the GET stream: an SSE event" : `${request.method}: an SSE event`;
        const error = messageTooLarge(what, failure.limitBytes ?? 0);
        if (request === undefined) this.report(error);
        options.onRequestStreamEnd?.(error);
        return;
      }
      const dropped =
        failure === undefined
          ? undefined
          : new TransportError(`SSE stream disconnected: ${String(failure)}`, {
              transient: true,
              cause: failure,
            });
      // A request's stream is its request's: the request hears of the drop if it is not resumed.
      if (dropped !== undefined && request === undefined) this.report(dropped);
      if ((resumable || lastEventId !== undefined) && !answered && this.abort !== undefined) {
        this.resume({ ...options, lastEventId }, 0);
      } else {
        options.onRequestStreamEnd?.(dropped);
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
      const failure = new TransportError(`SSE stream: ${maxRetries} reconnection attempts failed`, {
        transient: true,
      });
      if (options.request === undefined) this.report(failure);
      options.onRequestStreamEnd?.(failure);
      return;
    }
    const delay = this.serverRetryMs ?? Math.min(initialDelayMs * growFactor ** attempt, maxDelayMs);
    const timer = setTimeout(() => {
      this.reconnects.delete(timer);
      if (this.abort?.signal.aborted === true || options.exchange?.aborted === true) return;
      this.openStream(options).catch((error: unknown) => {
        if (this.abort?.signal.aborted === true || options.exchange?.aborted === true) return;
        if (options.request === undefined) this.report(error);
        this.resume(options, attempt + 1);
      });
    }, delay);
    this.reconnects.add(timer);
  }

  private report(error: unknown): void {
    this.onerror?.(error instanceof Error ? error : new Error(String(error)));
  }
}

function mediaType(contentType: string | null): string | undefined {
  return contentType?.split(";")[0]?.trim().toLowerCase();
}
