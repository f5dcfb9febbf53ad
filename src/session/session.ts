/**
 * `Session`: one JSON-RPC conversation with a server over an MCP SDK transport (v1 or v2, HTTP or stdio). It
 * owns what the SDK `Client` would otherwise own and get wrong for tasks: request ids, correlation, timeouts, the
 * 2026-07-28 envelope, era negotiation, answering server requests. Above it, code deals in methods, params and
 * raw result objects (`RpcChannel`), never in transports.
 */
import type { DiscoverResult } from "../schema/index.js";
import { Method, PROTOCOL_VERSION } from "../protocol/constants.js";
import { buildEnvelope, withEnvelope, withExtraMeta, type RequestEnvelope } from "../protocol/envelope.js";
import {
  advertisesTasks,
  errorFromRpc,
  offersLegacyTasks,
  parseInitializeResult,
} from "../protocol/codec.js";
import {
  McpTasksError,
  ProtocolError,
  TransportError,
  isTimeout,
  isTooLarge,
  tooLargeFor,
} from "../protocol/errors.js";
import {
  claimFailure,
  closedError,
  isClaimedFailure,
  requestFailure,
  serverInfoOf,
  taskIdOf,
} from "./failures.js";
import {
  LEGACY_PROTOCOL_VERSIONS,
  classifyProbe,
  initializeParams,
  refusesLegacyForUs,
  transportKind,
  type TransportKind,
} from "./negotiate.js";
import { PendingTable, type PendingRequest } from "./pending.js";
import { AbortLine } from "./abort-line.js";
import { IncomingRequests, paramsOf, type IncomingHandler, type RequestClaim } from "./incoming.js";
import type {
  McpTransport,
  OutgoingMessage,
  ReplyChannel,
  ReplyTarget,
  RequestObserver,
  RequestOptions,
  SendOptions,
  ServerInfo,
  SessionOptions,
} from "./types.js";

type NotificationListener = (method: string, params: Record<string, unknown>) => void;
type ErrorListener = (error: Error) => void;

/** How long a request waits for its answer, by default (`requestTimeoutMs`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
const DEFAULT_STDIO_PROBE_TIMEOUT_MS = 10_000;
/** Every request id this library makes starts with this; each session adds its own tag (see `idPrefix`). */
const ID_NAMESPACE = "mcp-tasks:";
/**
 * Several sessions may share one connection (two `tasksFor()` on one SDK Client), so each owns a namespace:
 * `mcp-tasks:<tag>:<seq>`. The tag is a counter, salted per module load so that two copies of the library
 * (an ESM and a CJS build in one process) sharing a Client cannot collide either.
 */
const LOAD_SALT = Math.random().toString(36).slice(2, 8);
let sessionCount = 0;

export class Session implements ReplyChannel {
  private readonly pending = new PendingTable((error) => this.report(error));
  private readonly incoming: IncomingRequests;
  private readonly notificationListeners = new Set<NotificationListener>();
  private readonly errorListeners = new Set<ErrorListener>();
  private readonly closeListeners = new Set<() => void>();
  private readonly envelope: RequestEnvelope;
  private readonly timeoutMs: number;
  private readonly kind: TransportKind;
  /** The envelope while the era is modern or not yet known (the probe carries it); none on the legacy era. */
  private framing: RequestEnvelope | undefined;
  private readonly idPrefix = `${ID_NAMESPACE}${LOAD_SALT}.${(++sessionCount).toString(36)}:`;
  private nextId = 0;
  private connecting: Promise<ServerInfo> | undefined;
  private info: ServerInfo | undefined;
  private closed = false;
  /** Telemetry's view of the requests; undefined (one branch per request) when it is off. */
  private observer: RequestObserver | undefined;
  /**
   * Sends not settled yet, and the transport errors heard meanwhile. The SDK transports report a failed send on
   * `onerror` and then throw it from `send()`: such an error is its request's, so it waits one macrotask (the throw
   * reaches the request within microtasks) and is reported only if no request claimed it.
   */
  private sending = 0;
  private held: Error[] = [];
  /** Why the transport is about to close, when it said (a stdio line over the size limit closes the connection). */
  private closeCause: TransportError | undefined;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set by `reopenable`: hears that the transport closed by itself, which then does not end the session. */
  private dropped: (() => void) | undefined;
  /** Set while the transport is down (dropped, not yet opened again): why a request fails meanwhile. */
  private down: ((method: string) => McpTasksError) | undefined;
  private readonly settled = (): void => {
    this.sending -= 1;
  };
  private readonly settledWithFailure = (error: unknown): never => {
    this.sending -= 1;
    claimFailure(error);
    throw error;
  };

  constructor(
    private transport: McpTransport,
    private readonly options: SessionOptions,
  ) {
    this.envelope = buildEnvelope({ clientInfo: options.clientInfo, capabilities: options.capabilities });
    this.framing = this.envelope;
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.kind = transportKind(transport);
    this.incoming = new IncomingRequests(
      (out) => this.transmit(out),
      (e) => this.report(e),
      options.maxServerRequests,
      options.warn,
    );
  }

  /** What the server said about itself; undefined until `connect()` resolved. */
  get server(): ServerInfo | undefined {
    return this.info;
  }

  /** Whether each request has its own response stream (Streamable HTTP), which aborting its signal closes. */
  get perRequestStreams(): boolean {
    return this.transport.hasPerRequestStream === true;
  }

  /** Whether `close()` was called or the transport closed. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** How the transport reaches the server, as far as the session can tell. */
  get transportKind(): TransportKind {
    return this.kind;
  }

  /** The transport's session id (Streamable HTTP, when the server assigned one). */
  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  /** Installs the one observer of every request sent from now on (telemetry). */
  observe(observer: RequestObserver): void {
    this.observer = observer;
  }

  /**
   * Starts the transport and negotiates the era: `server/discover` first; a server that does not know it gets
   * the 2025-era `initialize` handshake. Resolves with what the server said about itself. Calling it again
   * returns the same promise.
   */
  connect(): Promise<ServerInfo> {
    this.connecting ??= this.open();
    return this.connecting;
  }

  /**
   * Uses a connection someone else already started and negotiated (an SDK `Client`'s transport): no start, no
   * probe. `server` is what that negotiation found; the envelope is sent only on the modern era.
   */
  useNegotiated(server: ServerInfo): void {
    if (this.connecting) throw new Error("Session.useNegotiated: the session is already connected");
    this.attach();
    if (server.era === "legacy") this.framing = undefined;
    this.info = server;
    this.connecting = Promise.resolve(server);
  }

  /**
   * Takes part in a session the server already initialized (another connection's, named by a task ref): the
   * transport is started and nothing is negotiated. Initializing again would be refused, or would start the
   * session over; `server` is what the client knows of it (a 2025-era session: no envelope).
   */
  async join(server: ServerInfo): Promise<ServerInfo> {
    if (this.connecting) throw new Error("Session.join: the session is already connected");
    this.framing = undefined;
    this.connecting = (async () => {
      this.attach();
      try {
        await this.transport.start();
      } catch (error) {
        throw requestFailure("start", error);
      }
      this.transport.setProtocolVersion?.(server.protocolVersion);
      this.info = server;
      return server;
    })();
    return this.connecting;
  }

  /**
   * Lets the connection be opened again (a host's server, Decision 22): from now on a transport that closes by
   * itself (a stdio server that exited) does not end the session. The requests waiting for an answer fail as on
   * any drop (a transient `TransportError`), the server's open requests are dropped, and `dropped` hears of it;
   * until `reopen`, requests fail at once the same way. `close()` still ends the session.
   */
  reopenable(dropped: () => void): void {
    this.dropped = dropped;
  }

  /**
   * Takes a new, unstarted transport to the same server after a drop and starts it; a 2025-era server is
   * initialized again (2026-07-28 has no handshake: every request carries the envelope). When that fails, the new
   * transport is closed and the promise rejects with why.
   */
  async reopen(transport: McpTransport): Promise<void> {
    if (this.closed) throw closedError("reopen");
    const known = this.info as ServerInfo;
    this.transport = transport;
    try {
      this.attach();
      await transport.start();
      transport.setProtocolVersion?.(known.protocolVersion);
      if (known.era === "legacy") await this.initializeLegacy();
    } catch (error) {
      await transport.close().catch(() => undefined);
      throw error;
    }
    this.down = undefined;
  }

  /** Whether a JSON-RPC id is in the namespace of this library's sessions (any of them). */
  static ownsId(id: unknown): boolean {
    return typeof id === "string" && id.startsWith(ID_NAMESPACE);
  }

  /** Whether a JSON-RPC id is one this session made (so a shared transport can route answers to it). */
  ownsId(id: unknown): boolean {
    return typeof id === "string" && id.startsWith(this.idPrefix);
  }

  /**
   * Sends a request and resolves with the raw `result` object of its answer. Rejects with `RpcError` (or
   * `MissingCapabilityError`) for a JSON-RPC error, `ProtocolError` for an answer that is not valid JSON-RPC,
   * `TransportError` when no answer arrived (kind `timeout` after the timeout), or the signal's reason
   * when the caller aborted. On the modern era the params get the envelope; its own `_meta` keys win over the caller's.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(closedError(method));
    return new Promise((resolve, reject) =>
      this.requestFor(method, params, options, new PromiseReply(resolve, reject)),
    );
  }

  /** `request` without a promise: `reply` hears how it ended (see `ReplyChannel.requestFor`). */
  requestFor(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions | undefined,
    reply: ReplyTarget,
  ): void {
    // While the transport is down, only the `initialize` of a 2025-era server opening it again goes out.
    const refused = this.closed ? closedError : method === Method.initialize ? undefined : this.down;
    if (refused !== undefined) {
      reply.failed(refused(method));
      return;
    }
    const id = `${this.idPrefix}${++this.nextId}`;
    const watch = this.observer?.request(id, method, params, options);
    const framed =
      watch?.meta !== undefined
        ? withExtraMeta(params, this.framing, watch.meta)
        : this.framing === undefined
          ? params
          : withEnvelope(params, this.framing);
    const message: OutgoingMessage = { jsonrpc: "2.0", id, method, params: framed };
    const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
    const entry = this.pending.add(
      id,
      method,
      reply,
      timeoutMs,
      options?.signal,
      taskIdOf(method, params),
      watch,
    );
    if (entry === undefined) return;
    options?.onId?.(id);
    let sending: Promise<void>;
    this.sending += 1;
    try {
      sending = this.transport.send(message, this.sendOptions(entry));
    } catch (error) {
      // A hand-written transport may throw instead of rejecting; the entry must not wait for its timeout.
      sending = Promise.reject(error);
    }
    sending.then(this.settled, (error: unknown) => {
      this.sending -= 1;
      claimFailure(error);
      if (this.pending.take(id) === entry) entry.fail(requestFailure(method, error));
    });
  }

  /** Sends a notification (no answer expected). Never use `notifications/cancelled` for a task: use `tasks/cancel`. */
  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    if (this.closed) throw closedError(method);
    try {
      await this.transmit({ jsonrpc: "2.0", method, params });
    } catch (error) {
      throw requestFailure(method, error);
    }
  }

  /** Sends a message that is not a request (a notification, an answer); its failure is its sender's. */
  private transmit(message: OutgoingMessage): Promise<void> {
    this.sending += 1;
    let sent: Promise<void>;
    try {
      sent = this.transport.send(message);
    } catch (error) {
      sent = Promise.reject(error);
    }
    return sent.then(this.settled, this.settledWithFailure);
  }

  /** Serves server requests; on a connection shared with an SDK Client, only those `claims` accepts. */
  serveRequests(handler: IncomingHandler, claims?: RequestClaim): void {
    this.incoming.serve(handler);
    if (claims !== undefined) this.transport.claimRequests?.(claims);
  }

  /** Calls `listener` for every notification the server sends. Returns a function that stops it. */
  onNotification(listener: NotificationListener): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  /**
   * Calls `listener` for faults that belong to no request: a stray or malformed frame, a transport error
   * outside any request (a dropped SSE stream), a notification listener that threw.
   */
  onError(listener: ErrorListener): () => void {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  }

  /** Calls `listener` once when the session ends (by `close()` or because the transport closed). */
  onClose(listener: () => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /**
   * Rejects every waiting request (non-transient `TransportError`) and closes the transport. With `endSession`,
   * the server's session is ended first (Streamable HTTP `DELETE`; nothing is sent without a session id), waiting
   * at most the request timeout; `endSession` hears why it could not be ended, and the close goes on.
   */
  async close(endSession?: (failure: unknown) => void): Promise<void> {
    if (this.closed) return;
    this.end((method) => closedError(method));
    if (endSession !== undefined && this.transport.sessionId !== undefined) {
      await this.terminate().catch(endSession);
    }
    try {
      await this.transport.close();
    } catch (error) {
      this.report(error);
    }
  }

  /** `DELETE` for the session, bounded by the request timeout (a transport that takes no signal is raced). */
  private async terminate(): Promise<void> {
    const terminate = this.transport.terminateSession;
    if (terminate === undefined) return;
    const timeout = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new TransportError(`ending the session: no answer within ${this.timeoutMs} ms`, {
          transient: true,
        });
        timeout.abort(error);
        reject(error);
      }, this.timeoutMs);
    });
    const ending = terminate.call(this.transport, timeout.signal);
    ending.catch(() => undefined); // settles after the race when the timeout won
    try {
      await Promise.race([ending, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  /* ---- connection ---------------------------------------------------------------------------------- */

  private async open(): Promise<ServerInfo> {
    this.attach();
    try {
      await this.transport.start();
    } catch (error) {
      throw requestFailure("start", error);
    }
    const probeTimeoutMs =
      this.options.probeTimeoutMs ??
      (this.kind === "stdio" ? Math.min(this.timeoutMs, DEFAULT_STDIO_PROBE_TIMEOUT_MS) : this.timeoutMs);
    const probe = (timeoutMs = probeTimeoutMs) =>
      this.request(Method.discover, {}, { timeoutMs }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
    const firstOutcome = await probe();
    const first = classifyProbe(firstOutcome, this.kind);
    // -32022 naming our version as supported: send the probe once more (SEP-2575), never a third time.
    const verdict = "retry" in first ? classifyProbe(await probe(), this.kind, true) : first;
    if ("error" in verdict) throw this.probeFailure(verdict.error);
    if (verdict.era === "modern") return (this.info = this.modernInfo(verdict.discover));
    try {
      this.info = await this.initializeLegacy();
    } catch (error) {
      const probeTimedOut = "error" in firstOutcome && isTimeout(firstOutcome.error);
      if (!probeTimedOut || !refusesLegacyForUs(error)) throw error;
      // A slow stdio server taken for a 2025-era one: ask once more, with the envelope and the whole request
      // timeout.
      this.framing = this.envelope;
      const late = classifyProbe(await probe(this.timeoutMs), this.kind, true);
      if (!("era" in late) || late.era !== "modern") throw error;
      this.info = this.modernInfo(late.discover);
    }
    return this.info;
  }

  private modernInfo(discover: DiscoverResult): ServerInfo {
    this.transport.setProtocolVersion?.(PROTOCOL_VERSION);
    const info: ServerInfo = {
      era: "modern",
      protocolVersion: PROTOCOL_VERSION,
      discover,
      supportsTasks: advertisesTasks(discover),
    };
    const serverInfo = serverInfoOf(discover);
    if (serverInfo !== undefined) info.serverInfo = serverInfo;
    if (discover.instructions !== undefined) info.instructions = discover.instructions;
    return info;
  }

  /** The 2025-era handshake: `initialize` without the envelope, then `notifications/initialized`. */
  private async initializeLegacy(): Promise<ServerInfo> {
    this.framing = undefined;
    const params = initializeParams(this.options.clientInfo, this.options.capabilities);
    const result = parseInitializeResult(await this.request(Method.initialize, params));
    if (!LEGACY_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
      throw new ProtocolError(
        `the server chose protocol version ${JSON.stringify(result.protocolVersion)}, which this client does not speak`,
        Method.initialize,
        result,
      );
    }
    this.transport.setProtocolVersion?.(result.protocolVersion);
    await this.notify(Method.initialized, {});
    const info: ServerInfo = {
      era: "legacy",
      protocolVersion: result.protocolVersion,
      serverInfo: result.serverInfo,
      // 2025-11-25 servers offer their generation of tasks through `capabilities.tasks`.
      supportsTasks: offersLegacyTasks(result.capabilities),
      capabilities: result.capabilities,
    };
    if (result.instructions !== undefined) info.instructions = result.instructions;
    return info;
  }

  private probeFailure(error: unknown): unknown {
    if (this.closed && this.kind === "stdio" && !isTooLarge(error)) {
      return new TransportError(
        "the server exited when asked server/discover; it may be a 2025-era server that exits on any request " +
          "sent before initialize",
        { transient: false, cause: error },
      );
    }
    return error;
  }

  /* ---- transport events ---------------------------------------------------------------------------- */

  private attach(): void {
    const transport = this.transport;
    // Handlers a host installed before us keep being called.
    const previousError = transport.onerror?.bind(transport);
    const previousClose = transport.onclose?.bind(transport);
    transport.onmessage = (message: unknown) => this.receive(message);
    transport.claimResponses?.((id) => this.ownsId(id));
    transport.onerror = (error: Error) => {
      previousError?.(error);
      // What no request owns (a dropped stream, an unparsable line) is reported, not fatal. The SDK transports
      // also report here every failure they throw from send(): held until the request has claimed it (see
      // `sending`). After close, the transports report their own teardown (aborted streams): that is no news.
      if (this.closed || isClaimedFailure(error)) return;
      if (isTooLarge(error)) this.closeCause = error;
      if (this.sending === 0) return this.report(error);
      this.held.push(error);
      this.flushTimer ??= setTimeout(this.flushHeld, 0);
    };
    transport.onclose = () => {
      previousClose?.();
      if (transport !== this.transport) return; // one `reopen` replaced: its late close is no news
      const cause = this.closeCause;
      this.closeCause = undefined;
      const reason = (method: string) =>
        cause !== undefined
          ? tooLargeFor(cause, method)
          : new TransportError(`${method}: the connection closed before an answer arrived`, {
              transient: true,
            });
      if (this.dropped === undefined || this.closed) return this.end(reason);
      // The session goes on: what waited on this transport fails, and the owner opens another (`reopen`).
      this.pending.rejectAll((this.down = reason));
      this.incoming.dropOpen();
      this.dropped();
    };
  }

  private receive(message: unknown): void {
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.report(
        new ProtocolError("received a frame that is not a JSON-RPC message", "(transport)", message),
      );
      return;
    }
    const frame = message as Record<string, unknown>;
    if (typeof frame.method === "string") {
      if (frame.id === undefined || frame.id === null) this.dispatchNotification(frame.method, frame.params);
      else this.incoming.receive(frame.id, frame.method, frame.params);
      return;
    }
    const entry = typeof frame.id === "string" ? this.pending.take(frame.id) : undefined;
    if (entry === undefined) {
      // A late answer (after a timeout or abort) or a frame that belongs to no request of ours.
      if ("error" in frame && (frame.id === null || frame.id === undefined)) {
        this.report(errorFromRpc("(unknown request)", frame.error));
      }
      return;
    }
    if ("error" in frame) {
      entry.fail(errorFromRpc(entry.method, frame.error));
    } else if (typeof frame.result === "object" && frame.result !== null && !Array.isArray(frame.result)) {
      entry.answer(frame.result as Record<string, unknown>);
    } else {
      entry.fail(
        new ProtocolError("answered with a response that has no result object", entry.method, frame),
      );
    }
  }

  private readonly flushHeld = (): void => {
    this.flushTimer = undefined;
    const held = this.held;
    this.held = [];
    for (const error of held) if (!this.closed && !isClaimedFailure(error)) this.report(error);
  };

  private dispatchNotification(method: string, params: unknown): void {
    const body = paramsOf(params);
    if (method === Method.cancelled) this.incoming.cancelled(body);
    for (const listener of this.notificationListeners) {
      try {
        listener(method, body);
      } catch (error) {
        this.report(error);
      }
    }
  }

  private sendOptions(entry: PendingRequest): SendOptions | undefined {
    if (this.transport.hasPerRequestStream !== true) return undefined;
    const exchange = (entry.exchange = new AbortLine());
    return {
      exchange,
      // Made only when read: our transport reads `exchange`.
      get requestSignal() {
        return exchange.signal;
      },
      // The request's response stream ended (server closed it, network dropped) without an answer; our
      // transport says why when it knows (a drop, an event over the size limit).
      onRequestStreamEnd: (failure?: unknown) => {
        failure ??= this.transport.takeStreamFailure?.(entry.id);
        if (this.pending.take(entry.id) !== entry) return;
        entry.fail(
          failure instanceof McpTasksError && !(failure instanceof TransportError && failure.transient)
            ? failure
            : new TransportError(`${entry.method}: the response stream ended without an answer`, {
                transient: true,
                cause: failure,
              }),
        );
      },
    };
  }

  private end(reason: (method: string) => McpTasksError): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.flushTimer);
    this.held = [];
    this.pending.rejectAll(reason);
    this.incoming.close();
    for (const listener of this.closeListeners) {
      try {
        listener();
      } catch (error) {
        this.report(error);
      }
    }
    this.closeListeners.clear();
  }

  private report(error: unknown): void {
    const reported = error instanceof Error ? error : new Error(String(error));
    for (const listener of this.errorListeners) {
      try {
        listener(reported);
      } catch {
        // A failing error listener has nobody left to tell.
      }
    }
  }
}

/** A promise's two functions as a `ReplyTarget`: `request` is `requestFor` with one of these. */
class PromiseReply implements ReplyTarget {
  constructor(
    readonly answered: (result: Record<string, unknown>) => void,
    readonly failed: (error: unknown) => void,
  ) {}
}
