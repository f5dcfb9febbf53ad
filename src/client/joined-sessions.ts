/**
 * Following a task in the HTTP session it was created in. Servers of the 2025-11-25 generation built on the
 * official SDK keep a task for its session (`InMemoryTaskStore` binds it there; server-everything has a store per
 * session), so a client with a session of its own hears "not found" for a task another process started. A ref
 * records the task's session (`TaskRef.session`), and the task's requests go there:
 *
 * - one connection per session joined: same URL, headers and credentials as the client's own, the session's
 *   `Mcp-Session-Id` and `MCP-Protocol-Version` on every request, its own JSON-RPC ids, and never two tasks'
 *   sessions on one connection. Server requests that arrive on it (input on a `tasks/result` stream) are
 *   answered on it, so the answer reaches the session that asked;
 * - nothing is negotiated: the session was initialized by the process that opened it, and initializing it again
 *   would be refused or would start it over. No GET stream is opened either: the process that opened the session
 *   may still hold one (the SDK allows one per session), and polling is the safety net anyway;
 * - the connection is opened on the first request and closed when no handle follows a task in it and no request
 *   is in flight; a later request opens it again. It is never ended with `DELETE`: others may follow tasks in it;
 * - when the server answers 404 (the transport spec's answer once a session has ended), the session's tasks are
 *   followed in the client's own session from then on (a server may keep tasks beyond sessions), and the refs
 *   written after that drop the session.
 */
import type { DetailedTask } from "../schema/index.js";
import type { Logger } from "../protocol/logging.js";
import { redactTaskId } from "../protocol/logging.js";
import type { LegacyTaskRequests } from "../eras/legacy/requests.js";
import { TaskRequests, pollerOverGet, type PollTarget, type Poller } from "../eras/task-requests.js";
import type { RetryTiming } from "../scheduler/types.js";
import type { Session } from "../session/session.js";
import type {
  McpTransport,
  ReplyChannel,
  ReplyTarget,
  RequestOptions,
  ServerInfo,
} from "../session/types.js";
import type { HttpSession } from "../task/ref.js";
import type { UnsupportedError } from "../protocol/errors.js";
import type { ClientTelemetry } from "../telemetry/types.js";
import type { EraParts } from "../eras/era-parts.js";
import type { ClientSettings } from "./options.js";
import { sessionFor, wireSession, type ConnectionRights, type SessionWiring } from "./connection.js";

type NotificationListener = (method: string, params: Record<string, unknown>) => void;

/** What a client lends its joined sessions. */
export interface JoinDeps {
  /**
   * The unstarted transport of a joined session, built with the client's own options (./connection.ts); `ended`
   * hears of the server's 404.
   */
  transport(session: HttpSession, ended: () => void): Promise<McpTransport>;
  /** A `Session` over that transport, with the client's settings. */
  session(transport: McpTransport): Session;
  /** The server as the joined session knows it (a 2025-11-25 session). */
  server(session: HttpSession): ServerInfo;
  /** The 2025-11-25 task requests over a channel. */
  requests(channel: ReplyChannel): LegacyTaskRequests;
  /** Connects a joined session's server requests, notifications and errors to the client; returns the undoing. */
  wire(session: Session): () => void;
  log: Logger;
}

/**
 * The joined sessions of a client connected by URL (undefined otherwise): each built with the client's own
 * transport options and settings (./connection.ts) and wired to the client as its own session is.
 */
export function joinedHttpSessionsFor(parts: {
  rights: ConnectionRights;
  settings: ClientSettings;
  server: ServerInfo;
  era: EraParts;
  wiring: SessionWiring;
  telemetry: ClientTelemetry | undefined;
}): JoinedHttpSessions | undefined {
  const { rights, settings, server, era, wiring, telemetry } = parts;
  if (rights.join === undefined) return undefined;
  return new JoinedHttpSessions({
    transport: rights.join,
    session: (transport) => sessionFor(transport, settings),
    server: (joined) => ({
      era: "legacy",
      protocolVersion: joined.protocolVersion,
      supportsTasks: true,
      ...(server.capabilities !== undefined && { capabilities: server.capabilities }),
    }),
    requests: (channel) => era.legacyRequests(channel),
    wire: (session) => {
      if (telemetry !== undefined) session.observe(telemetry.observerFor(session));
      return wireSession(session, wiring, "transport error in a task's own session").all;
    },
    log: settings.log,
  });
}

/** Every session this client follows tasks in besides its own, by session id. */
export class JoinedHttpSessions {
  private readonly joined = new Map<string, JoinedHttpSession>();

  constructor(private readonly deps: JoinDeps) {}

  /** The joined session `session` names (joined now if it is not yet). */
  get(session: HttpSession): JoinedHttpSession {
    let joined = this.joined.get(session.id);
    if (joined === undefined || joined.protocolVersion !== session.protocolVersion) {
      joined = new JoinedHttpSession(session, this.deps, (idle) => {
        if (this.joined.get(idle.id) === idle) this.joined.delete(idle.id);
      });
      this.joined.set(session.id, joined);
    }
    return joined;
  }

  /** Closes every joined connection (the client is closing). Their sessions are left to the server. */
  async close(): Promise<void> {
    const all = [...this.joined.values()];
    this.joined.clear();
    await Promise.all(all.map((joined) => joined.close()));
  }
}

/** One session joined: a channel that opens its connection on demand and closes it when nobody uses it. */
export class JoinedHttpSession implements ReplyChannel {
  /** Set when the server answered 404: the session is over, and its tasks are followed elsewhere. */
  ended = false;
  /** The 2025-11-25 task requests in this session (their `tasks/result` side channels included). */
  readonly requests: LegacyTaskRequests;
  private users = 0;
  private connection: { session: Promise<Session>; unwire?: () => void } | undefined;
  private readonly listeners = new Set<NotificationListener>();

  constructor(
    private readonly session: HttpSession,
    private readonly deps: JoinDeps,
    private readonly idle: (joined: JoinedHttpSession) => void,
  ) {
    this.requests = deps.requests(this);
  }

  get id(): string {
    return this.session.id;
  }

  get protocolVersion(): string {
    return this.session.protocolVersion;
  }

  /** The session as a ref records it. */
  get ref(): HttpSession {
    return { id: this.session.id, protocolVersion: this.session.protocolVersion };
  }

  /** One more user (a handle following a task here); returns its release, which may be called more than once. */
  hold(): () => void {
    this.users++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.users === 0) void this.shut();
    };
  }

  async request(
    method: string,
    params: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<Record<string, unknown>> {
    const release = this.hold();
    try {
      return await (await this.opened()).request(method, params, options);
    } finally {
      release();
    }
  }

  /** `request` with a reply target. A joined session is rare, so this is `request` underneath, promise and all. */
  requestFor(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions | undefined,
    reply: ReplyTarget,
  ): void {
    this.request(method, params, options).then(
      (result) => reply.answered(result),
      (error: unknown) => reply.failed(error),
    );
  }

  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    const release = this.hold();
    try {
      await (await this.opened()).notify(method, params);
    } finally {
      release();
    }
  }

  onNotification(listener: NotificationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Closes the connection now, whoever uses it (their requests fail as on a closed client). */
  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    if (connection === undefined) return;
    connection.unwire?.();
    const session = await connection.session.catch(() => undefined);
    await session?.close();
  }

  private opened(): Promise<Session> {
    if (this.connection !== undefined) return this.connection.session;
    const connection: NonNullable<JoinedHttpSession["connection"]> = {
      session: this.open().then((session) => {
        if (this.connection === connection) {
          connection.unwire = this.deps.wire(session);
        }
        return session;
      }),
    };
    this.connection = connection;
    // A connection that could not be opened is tried again by the next request.
    connection.session.catch(() => {
      if (this.connection === connection) this.connection = undefined;
    });
    return connection.session;
  }

  private async open(): Promise<Session> {
    const transport = await this.deps.transport(this.session, () => this.markEnded());
    const session = this.deps.session(transport);
    session.onNotification((method, params) => {
      for (const listener of this.listeners) listener(method, params);
    });
    await session.join(this.deps.server(this.session));
    return session;
  }

  private markEnded(): void {
    if (this.ended) return;
    this.ended = true;
    this.deps.log.warn(
      "the server has ended the session a task was created in (HTTP 404); its tasks are followed in this " +
        "client's own session from now on",
      { session: redactTaskId(this.session.id) },
    );
  }

  private async shut(): Promise<void> {
    if (this.users > 0) return;
    await this.close();
    if (this.users === 0) this.idle(this);
  }
}

/**
 * The requests of a task that lives in a joined session: sent there while the session lasts; once the server
 * has ended it, sent (and the request that met the 404 sent again, once) in the client's own session.
 */
export class SessionBoundRequests extends TaskRequests {
  constructor(
    private readonly joined: JoinedHttpSession,
    /** The same task's requests in the client's own session. */
    private readonly own: TaskRequests,
    retry: RetryTiming,
  ) {
    super(joined, retry);
  }

  override unsupported(operation: string): UnsupportedError | undefined {
    return this.own.unsupported(operation);
  }

  override get(taskId: string): Promise<DetailedTask> {
    return this.routed((tasks) => tasks.get(taskId));
  }

  /** Polls go through `get`, so a poll that meets the session's end is sent again in the client's own. */
  override pollerFor(taskId: string, target: PollTarget): Poller {
    return pollerOverGet(this, taskId, target);
  }

  override cancel(
    taskId: string,
    signal: AbortSignal | undefined,
    onRetry?: (attempt: number, error: unknown) => void,
  ): Promise<Record<string, unknown>> {
    return this.routed((tasks) => tasks.cancel(taskId, signal, onRetry));
  }

  /** Lets go of the task's `tasks/result` side channel in the joined session. */
  forget(taskId: string | undefined): void {
    this.joined.requests.forget(taskId);
  }

  private async routed<T>(send: (tasks: TaskRequests) => Promise<T>): Promise<T> {
    if (!this.joined.ended) {
      try {
        return await send(this.joined.requests);
      } catch (error) {
        if (!this.joined.ended) throw error;
      }
    }
    return send(this.own);
  }
}
