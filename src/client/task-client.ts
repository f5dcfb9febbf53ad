/**
 * `TaskClient`: the one object agent code holds. It connects to an MCP server, negotiates the tasks extension,
 * and turns every tool call into a `TaskHandle` — whether the server answers at once or runs the call as a
 * task — polling all of its tasks on one shared scheduler. Each handle is driven by a `TaskRun`, the
 * interpreter of the pure lifecycle in `src/lifecycle`.
 */
import { EventEmitter } from "eventemitter3";
import type { CallToolResult } from "../schema/index.js";
import { McpTasksError, TaskEndedError } from "../protocol/errors.js";
import { redactTaskId } from "../protocol/logging.js";
import { PollScheduler } from "../scheduler/scheduler.js";
import { AlarmClock } from "../scheduler/alarm-clock.js";
import { retryDelay } from "../scheduler/retry.js";
import { Session } from "../session/session.js";
import type { ConnectTarget } from "../session/targets.js";
import { openTransport } from "./connection.js";
import type { McpTransport, ServerInfo } from "../session/types.js";
import type { TaskHandle } from "../task/handle.js";
import type { TaskOutcome } from "../task/types.js";
import {
  TaskRefError,
  foreignServer,
  isSessionField,
  readTaskRef,
  serverIdentity,
  type TaskRef,
  type TaskSession,
} from "../task/ref.js";
import {
  closeRuns,
  closeStore,
  followClaimed,
  startAdoption,
  taskIsOver,
  tracked,
  type FollowerDeps,
} from "../run/ref-life.js";
import {
  callSpec,
  checkCallOptions,
  checkToolCall,
  deadlineOf,
  type CallToolOptions,
  type TaskClientOptions,
} from "./options.js";
import { ServerRequestRouter } from "../input/server-requests.js";
import type { InputHandlers } from "../input/types.js";
import { contextForRef, type RunContext } from "../run/context.js";
import { eraPartsFor, type EraParts } from "../eras/era-parts.js";
import { followLegacyStatus } from "../eras/legacy/status.js";

import type { Task } from "../schema/index.js";
import { toolOutcome } from "../run/endings.js";
import { TaskRun } from "../run/task-run.js";
import { sessionFor, settingsOf, usesHttpOptions, type ClientSettings } from "./settings.js";
import { Subscriptions } from "../notifications/subscriptions.js";
import { RequestHeaders } from "../session/request-headers.js";
import { ToolCatalog, type ToolInfo } from "../tools/catalog.js";
import { callSender } from "../tools/param-mirror.js";
import { OutputChecks } from "../tools/output-checks.js";
import type { ClientTelemetry } from "../telemetry/types.js";
import type {
  CallToolRest,
  RefResultOf,
  ToolName,
  ToolResultOf,
  ToolTypes,
  UntypedTools,
} from "./typed-tools.js";
import { JoinedSessions, SessionBoundRequests, type JoinDeps } from "./joined-sessions.js";

/** What a client may do with its connection besides sending requests (`connect` grants both; `tasksFor` neither). */
interface ConnectionRights {
  /** The client opened the connection, so `close()` may end the server's session. */
  endsSession: boolean;
  /** Builds a transport in another session of the same server (URL targets only): see ./joined-sessions.ts. */
  join?: JoinDeps["transport"];
}

/** Events of a `TaskClient` (eventemitter3; an `error` without listeners is not thrown). */
export interface TaskClientEvents {
  /** A handle learned its task id (the server created a task, or `client.task()` resumed one). */
  task: (handle: TaskHandle<CallToolResult>, taskId: string) => void;
  /** A handle ended. */
  settled: (handle: TaskHandle<CallToolResult>, outcome: TaskOutcome<CallToolResult>) => void;
  /**
   * The server created a task that no handle follows, so the client sent `tasks/cancel` for it: a `tools/call`
   * answered only after its handle had ended (a deadline, or a cancel's grace period, passed while the call was
   * unanswered), or a task the client cannot follow. `handle` is the ended handle the call belonged to; its
   * outcome has no task id, so this event is where the id is reported.
   */
  orphan: (taskId: string, handle: TaskHandle<CallToolResult>) => void;
  /** A fault no single handle owns: a transport error, a dropped connection, a failing scheduler job. */
  error: (error: unknown) => void;
  /** The connection ended (by `close()` or because the server went away). */
  closed: () => void;
}

/**
 * One connection to an MCP server, ready for tasks. `TaskClient.connect(target)` negotiates the tasks extension
 * (or a 2025-11-25 server's tasks); `callTool` returns a `TaskHandle` to await, iterate or cancel, whether the
 * server runs the call as a task or answers at once. `task(ref)` and `resume()` pick up tasks started elsewhere
 * or before a restart; `close()` (or `await using`) ends the connection and every handle still waiting.
 *
 * `Tools`, a type `mcp-tasks types` generates from the server's tool list, types `callTool`: only its tool names
 * and their arguments are accepted, and each result's `structuredContent` has the tool's output type. Without it
 * (the default) any name and JSON arguments are accepted, and results are `CallToolResult`.
 */
export class TaskClient<
  Tools extends ToolTypes<Tools> = UntypedTools,
> extends EventEmitter<TaskClientEvents> {
  private readonly runs = new Set<TaskRun>();
  /** Store writes in flight; `close()` waits for them (at most `closeTimeoutMs`) before it closes the store. */
  private readonly writes = new Set<Promise<void>>();
  /** `tools/call` requests unanswered; `close()` waits for them (at most `closeTimeoutMs`): one may bring a task. */
  private readonly callsOut = new Set<Promise<unknown>>();
  private readonly context: RunContext;
  private readonly catalog: ToolCatalog;
  private readonly serverInfo: ServerInfo;
  private readonly url: string | undefined;
  private closing: Promise<void> | undefined;
  /**
   * Set as `close()` begins. `closing` itself is assigned only once the shutdown has run up to its first await,
   * and what runs before that (a handle's listeners, the transport's `onclose`) must already see the client closed.
   */
  private closed = false;
  /** Aborted as `close()` begins: what retries on its own (a `tasks/cancel`) stops waiting then. */
  private readonly shutdown = new AbortController();
  /** Task status notifications; undefined with `notifications: "off"` or on a 2025-era server. */
  private readonly subscriptions: Subscriptions | undefined;
  /** Stops the adoption loop (`adopt: true`), which takes lapsed tasks of the store over (../run/ref-life.ts). */
  private adoption: (() => void) | undefined;
  private readonly serverRequests: ServerRequestRouter;
  /** What depends on the server's protocol generation (src/eras/era-parts.ts). */
  private readonly era: EraParts;
  private stopLegacyStatus: (() => void) | undefined;
  /** The HTTP session this client's 2025-era tasks are created in, as their refs record it. */
  private readonly ownSession: TaskSession | undefined;
  /** Sessions of other connections this client follows tasks in (URL targets only). */
  private readonly joined: JoinedSessions | undefined;
  /** Runs made by `callTool`: their tasks live in this client's session. */
  private readonly calls = new WeakSet<TaskRun>();
  /** Tasks created in this client's session that may still be followed: while any is, `close()` keeps the session. */
  private readonly followable = new Set<string>();
  /** Whether the warning that this connection has no identity for stored refs was given. */
  private saidNoIdentity = false;

  private constructor(
    private readonly session: Session,
    server: ServerInfo,
    settings: ClientSettings,
    url: string | undefined,
    /** Set when this client built the HTTP transport itself, so requests can carry their own headers. */
    requestHeaders: RequestHeaders | undefined,
    /** Set with the `telemetry` option: follows every handle and request. */
    private readonly telemetry: ClientTelemetry | undefined,
    private readonly rights: ConnectionRights,
  ) {
    super();
    this.serverInfo = server;
    this.url = url;
    const log = settings.log;
    // 2026-07-28 has no sessions; a 2025-era session id that could not be sent back is not recorded.
    const sessionId = session.sessionId;
    this.ownSession =
      server.era === "legacy" && isSessionField(sessionId)
        ? { id: sessionId, protocolVersion: server.protocolVersion }
        : undefined;
    // `Mcp-Param-*` exists on 2026-07-28 over Streamable HTTP only.
    const mirrorHeaders = server.era === "modern" ? requestHeaders : undefined;
    this.catalog = new ToolCatalog(session, {
      checkParamHeaders: mirrorHeaders !== undefined,
      warn: (message) => log.warn(message),
    });
    const onJobError = (error: unknown) => {
      log.error("a scheduled task job failed", error);
      this.emit("error", error);
    };
    this.era = eraPartsFor(session, server, this.catalog, {
      retry: settings.retry,
      warn: (message) => log.warn(message),
      legacyTasks: settings.options.legacyTasks,
      now: () => Date.now(),
    });
    this.context = {
      channel: session,
      sendCall: tracked(callSender(session, this.catalog, mirrorHeaders), this.callsOut),
      tasks: this.era.tasks,
      dialect: this.era.dialect,
      scheduler:
        settings.host?.polls(onJobError) ??
        new PollScheduler({ maxInFlight: settings.options.maxInFlight, onJobError }),
      alarms: new AlarmClock({ onError: onJobError }),
      cadence: { polling: settings.polling, safetyNetMs: settings.options.notificationSafetyNetMs },
      retry: settings.retry,
      options: settings.options,
      config: {
        pollRetries: settings.retry.retries,
        cancelGraceMs: settings.options.cancelGraceMs,
        ttlGraceMs: settings.options.ttlGraceMs,
        durable: settings.store !== undefined,
      },
      identity: { name: server.serverInfo?.name, version: server.serverInfo?.version, url },
      log,
      store: settings.store,
      trackWrite: (write) => {
        this.writes.add(write);
        void write.finally(() => this.writes.delete(write));
      },
      closing: this.shutdown.signal,
      now: () => Date.now(),
      retryDelay: (attempt, error) => retryDelay(attempt, settings.retry, error),
      toOutcome: toolOutcome,
      outputChecks: outputChecksFor(this.catalog, server, settings),
      redact: redactTaskId,
      refFor: (fields) => this.makeRef(fields, server.era, this.ownSession),
      orphaned: (run, taskId) => {
        // Its cancel is not followed to a confirmation: the task may still be there.
        this.followable.add(taskId);
        this.emit("orphan", taskId, run.handle);
      },
      adopted: (run, taskId) => {
        if (this.calls.has(run)) this.followable.add(taskId);
        this.serverRequests.follow(taskId, run);
        this.subscriptions?.adopted(run, taskId);
        this.emit("task", run.handle, taskId);
      },
      released: (run) => {
        if (run.handle.taskId !== undefined) this.serverRequests.unfollow(run.handle.taskId, run);
        this.subscriptions?.released(run, run.handle.taskId);
        this.runs.delete(run);
        this.era.legacy?.forget(run.taskId);
        const outcome = run.outcome;
        if (run.taskId !== undefined && taskIsOver(run.ending)) {
          this.followable.delete(run.taskId);
        }
        if (outcome !== undefined) this.emit("settled", run.handle, outcome);
      },
    };
    // Server requests: input kinds go to the handlers (through a task's inbox when they name a followed task).
    this.serverRequests = new ServerRequestRouter({
      handlers: settings.options.inputHandlers,
      server: this.context.identity,
      log,
      concurrency: settings.options.inputConcurrency,
    });
    session.serveRequests(
      (request) => this.serverRequests.serve(request),
      (method, params) => this.serverRequests.claims(method, params),
    );
    if (settings.options.notifications === "auto" && server.era === "modern") {
      this.subscriptions = new Subscriptions({
        channel: session,
        log,
        retry: this.context.retry,
        provenAfterMs: settings.options.notificationSafetyNetMs,
      });
    }
    if (settings.options.notifications === "auto" && this.era.legacy) {
      this.stopLegacyStatus = followLegacyStatus(session, log, (taskId) => this.runFor(taskId));
    }
    if (rights.join !== undefined) {
      const statusNotifications = settings.options.notifications === "auto";
      this.joined = new JoinedSessions({
        transport: rights.join,
        session: (transport) => sessionFor(transport, settings),
        server: (joined) => ({
          era: "legacy",
          protocolVersion: joined.protocolVersion,
          supportsTasks: true,
          ...(server.capabilities !== undefined && { capabilities: server.capabilities }),
        }),
        requests: (channel) => this.era.legacyRequests(channel),
        wire: (joined) => this.wireJoined(joined, statusNotifications),
        log,
      });
    }
    settings.store?.onLeaseLost?.((ref) => {
      // Another worker follows this task now: stop here without cancelling it.
      for (const run of this.runs) if (run.taskId === ref.taskId) run.detach();
    });
    if (settings.adoptEveryMs !== undefined && settings.store !== undefined) {
      this.adoption = startAdoption(
        {
          ...this.follower(settings.store, {}),
          server: () => this.storedRefsServer(),
          followed: () => new Set([...this.runs].map((run) => run.taskId)),
          resume: () => this.resume(),
        },
        settings.adoptEveryMs,
      );
    }
    const host = settings.host;
    if (host !== undefined) {
      session.onNotification((method) => {
        if (method === "notifications/tools/list_changed") host.toolsChanged();
      });
    }
    session.onError((error) => {
      log.warn("transport error", error);
      this.emit("error", error);
    });
    session.onClose(() => {
      this.subscriptions?.close();
      this.stopLegacyStatus?.();
      if (!this.closed)
        log.error("the connection to the server ended; open tasks will fail on their next request");
      this.emit("closed");
    });
  }

  /**
   * Connects to a server and negotiates the protocol: a URL (Streamable HTTP), a stdio server command
   * (`{ command, args }`), or any MCP SDK `Transport` (from `@modelcontextprotocol/client` or
   * `@modelcontextprotocol/sdk`). A failed connection closes what it opened: the transport (a stdio child
   * exits) and the store (its lock or its connection), so a retry starts clean.
   *
   * With a type argument, `TaskClient.connect<Tools>(url)`, the client's calls are typed by `Tools` (see
   * `mcp-tasks types`); the type is not checked against the server at run time, the results are (`validateOutput`).
   */
  static async connect<Tools extends ToolTypes<Tools> = UntypedTools>(
    target: ConnectTarget,
    options: TaskClientOptions = {},
  ): Promise<TaskClient<Tools>> {
    const settings = settingsOf(options); // bad options fail here, before any connection is made
    const url = typeof target === "string" ? target : target instanceof URL ? target.href : undefined;
    if (url === undefined && usesHttpOptions(settings)) {
      throw new TypeError("TaskClient.connect: `headers` and `auth` apply to a URL target only");
    }
    // The plug-in of mcp-tasks/telemetry: a missing @opentelemetry/api fails here, naming the package.
    const telemetryFor = await settings.telemetry?.start();
    const store = settings.store;
    await store?.open?.(); // a store another process holds fails here, before any connection is made
    let session: Session | undefined;
    let telemetry: ReturnType<NonNullable<typeof telemetryFor>> | undefined;
    try {
      const requestHeaders = new RequestHeaders();
      session = sessionFor(await openTransport(target, settings, { requestHeaders }), settings);
      // Observing from the first request on: the probe and the handshake get spans too.
      telemetry = telemetryFor?.({ session, url });
      if (telemetry !== undefined) session.observe(telemetry);
      const server = await session.connect();
      const ownsHttp = url !== undefined;
      const rights: ConnectionRights = { endsSession: true };
      if (ownsHttp) {
        rights.join = (joined, ended) => openTransport(target, settings, { join: { ...joined, ended } });
      }
      return new TaskClient<Tools>(
        session,
        server,
        settings,
        url,
        ownsHttp ? requestHeaders : undefined,
        telemetry,
        rights,
      );
    } catch (error) {
      telemetry?.close();
      await session?.close().catch(() => undefined);
      await store?.close?.().catch((closing: unknown) => {
        settings.log.warn("closing the store after a failed connect failed", closing);
      });
      throw error;
    }
  }

  /**
   * A client over a connection that is already open and negotiated (used by `tasksFor` to share an SDK
   * `Client`'s connection). Most code wants `connect` or `tasksFor` instead.
   * @internal
   */
  static adopt(transport: McpTransport, server: ServerInfo, options: TaskClientOptions = {}): TaskClient {
    const settings = settingsOf(options);
    if (settings.telemetry !== undefined) {
      throw new TypeError(
        "tasksFor: the `telemetry` option needs TaskClient.connect (it loads @opentelemetry/api)",
      );
    }
    const session = sessionFor(transport, settings);
    session.adopt(server);
    return new TaskClient(session, server, settings, undefined, undefined, undefined, {
      endsSession: false,
    });
  }

  /** What the server said about itself when the client connected. */
  get server(): ServerInfo {
    return this.serverInfo;
  }

  /** How many handles are still waiting for an outcome. */
  get activeTasks(): number {
    return this.runs.size;
  }

  /** The handles that have not ended yet, oldest first. */
  tasks(): TaskHandle<CallToolResult>[] {
    return [...this.runs].map((run) => run.handle);
  }

  /**
   * The server's tools (`tools/list`, every page), cached for the connection and fetched again after the
   * server's `notifications/tools/list_changed`. Over Streamable HTTP a tool with invalid `x-mcp-header`
   * declarations is left out, with a logger warning; so is, on any transport, a tool whose definition nests
   * objects or arrays deeper than 256 levels.
   */
  listTools(): Promise<ToolInfo[]> {
    return this.catalog.list();
  }

  /**
   * Calls a tool. Returns at once with a handle: await it for the `CallToolResult`, iterate it for status
   * updates, listen to its events, or cancel it. Works the same whether the server answers immediately or
   * creates a task. Caller mistakes (a name that is not a string, arguments that are not an object) throw a
   * `TypeError` here, before anything is sent.
   *
   * On a `TaskClient<Tools>` only the names of `Tools` are accepted, with their arguments (optional when every
   * argument is), and the handle gives a `ToolResult` whose `structuredContent` has the tool's output type.
   */
  callTool<Name extends ToolName<Tools>>(
    name: Name,
    ...rest: CallToolRest<Tools, Name>
  ): TaskHandle<ToolResultOf<Tools, Name>, Name> {
    const [args = {}, options = {}] = rest as [object?, CallToolOptions?];
    checkToolCall(name, args, options);
    this.assertOpen();
    const params: Record<string, unknown> = { name, arguments: args };
    if (options.meta) params._meta = { ...options.meta };
    const run = new TaskRun(
      withCallHandlers(this.context, options.inputHandlers),
      callSpec(name, params, options),
      deadlineOf(options, this.context.now()),
      options.signal,
    );
    this.runs.add(run);
    this.calls.add(run);
    this.telemetry?.taskStarted(run, { toolName: name, resumed: false });
    run.start();
    // The types are the caller's promise about the server; the values are the server's (checked when it has
    // an outputSchema).
    return run.handle as unknown as TaskHandle<ToolResultOf<Tools, Name>, Name>;
  }

  /**
   * A handle for a task that already exists: a `TaskRef` (from `await handle.ref`, also stored by another
   * process) or a bare task id. It behaves like one from `callTool` from its next poll on. A ref naming a task
   * on another server is refused with `TaskRefError`, and options `callTool` would refuse with a `TypeError`,
   * before a handle exists. On a `TaskClient<Tools>`, a ref whose type names a tool
   * (`await handle.ref` of a typed handle) gives that tool's result type again.
   */
  task<Name extends string = string>(
    task: TaskRef<Name> | string,
    options: Omit<CallToolOptions, "meta"> = {},
  ): TaskHandle<RefResultOf<Tools, Name>, Name> {
    checkCallOptions(options, "TaskClient.task");
    this.assertOpen();
    const ref = this.refOf(task, "task");
    const run = new TaskRun(
      withCallHandlers(this.contextFor(ref, "TaskClient.task").context, options.inputHandlers),
      undefined,
      deadlineOf(options, this.context.now()),
      options.signal,
      ref,
    );
    this.runs.add(run);
    this.telemetry?.taskStarted(run, { toolName: ref.toolName, resumed: true });
    run.start(ref.taskId);
    return run.handle as unknown as TaskHandle<RefResultOf<Tools, Name>, Name>;
  }

  /**
   * A handle for every unfinished task the client's store holds for this server: the tasks a process that
   * stopped (or crashed) was following. Answered input keys come with them, so nobody is asked twice. A task
   * this client already follows is returned as its live handle. A stored task this client cannot follow (another
   * protocol generation) is skipped with a logger warning, and its claim handed back at once.
   */
  async resume(options: Omit<CallToolOptions, "meta"> = {}): Promise<TaskHandle<CallToolResult>[]> {
    checkCallOptions(options, "TaskClient.resume");
    this.assertOpen();
    const store = this.context.store;
    if (store === undefined) throw new McpTasksError("TaskClient.resume: the client has no `store`");
    const server = this.storedRefsServer();
    if (server === undefined) return [];
    const refs = await store.list(server);
    const live = new Map<string, TaskRun>();
    for (const run of this.runs) {
      const taskId = run.taskId;
      if (taskId !== undefined) live.set(taskId, run);
    }
    // With leases, follow only what this worker could claim (the latest ref, answered keys included).
    const claims = refs.map((ref) => live.get(ref.taskId) ?? (store.claim ? store.claim(ref) : ref));
    const handles: TaskHandle<CallToolResult>[] = [];
    // A claim this client cannot follow (or one landing after close()) is handed back at once.
    const deps = this.follower(store, options, handles);
    for (const claim of await Promise.all(claims)) {
      if (claim instanceof TaskRun) handles.push(claim.handle);
      else if (claim !== undefined) followClaimed(deps, claim);
    }
    return handles;
  }

  /**
   * Sends `tasks/cancel` for a task, whether or not any handle is watching it, and resolves with the server's
   * acknowledgement. Transient faults are retried; a refusal (unknown task) rejects with a typed error. A live
   * handle of this client for the same task notices the outcome on its next poll. `close()` stops the retries:
   * the call then rejects with `TaskEndedError` (kind `closed`) carrying the task id (the task may still run).
   */
  async cancel(task: TaskRef | string): Promise<Record<string, unknown>> {
    this.assertOpen();
    const ref = this.refOf(task, "cancel");
    const { context, release } = this.contextFor(ref, "TaskClient.cancel");
    try {
      return await context.tasks.cancel(ref.taskId, this.shutdown.signal, (attempt, error) =>
        this.context.log.debug(`tasks/cancel: retry ${attempt} after a transient fault`, error),
      );
    } catch (error) {
      // Closing stopped it: no acknowledgement came, and the task may still run.
      if (this.shutdown.signal.aborted) throw new TaskEndedError("closed", ref.taskId);
      throw error;
    } finally {
      release?.();
    }
  }

  /** Every task of `tasks/list` (2025-11-25 servers declaring `tasks.list`; elsewhere `UnsupportedError`). */
  listTasks(): Promise<Task[]> {
    this.assertOpen();
    return this.era.listTasks();
  }

  /**
   * Stops every poll, ends every open handle with `TaskEndedError` of kind `closed` (which carries its task id), and closes
   * the connection. Tasks keep running on the server; their refs stay in the store (which is closed too, after
   * its pending writes). A client that opened its connection ends its HTTP session with the server (`DELETE`)
   * unless a task created in it may still be followed: one not known to be over (detached, stored, still open
   * now, or cancelled without the server confirming). A server that refuses (405) is fine; any other failure is
   * logged, and the close goes on. A `tasks/cancel` still retrying a transient fault stops: no timer of the
   * client's outlives `close()`. A handle whose `tools/call` is unanswered first waits for the answer, at most
   * `closeTimeoutMs` (default 5000), so the task the server makes is kept; then the store's writes and its close
   * get at most `closeTimeoutMs` again: a frozen store cannot hold `close()` (../run/ref-life.ts says how a ref's
   * lease ends).
   */
  close(): Promise<void> {
    this.closed = true;
    this.shutdown.abort(new McpTasksError("TaskClient is closed"));
    // Adoption stops first: no new claim, and a claim in flight is handed back as it lands.
    this.adoption?.();
    this.closing ??= (async () => {
      await closeRuns(this.runs, this.callsOut, this.context.options.closeTimeoutMs, this.context.log);
      this.subscriptions?.close();
      this.stopLegacyStatus?.();
      this.context.scheduler.close();
      this.context.alarms.close();
      await this.joined?.close();
      const endSession =
        this.rights.endsSession && this.followable.size === 0
          ? (failure: unknown) => this.context.log.warn("could not end the session with the server", failure)
          : undefined;
      await this.session.close(endSession);
      this.telemetry?.close();
      const { store, options, log } = this.context;
      await closeStore(store, this.writes, options.closeTimeoutMs, log);
    })();
    return this.closing;
  }

  /** `await using client = await TaskClient.connect(…)` closes the client when the scope ends. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** What following claimed refs needs of this client (../run/ref-life.ts). */
  private follower(
    store: NonNullable<RunContext["store"]>,
    options: Omit<CallToolOptions, "meta">,
    made: TaskHandle<CallToolResult>[] = [],
  ): FollowerDeps {
    return {
      store,
      log: this.context.log,
      follow: (ref) => void made.push(this.task(ref, options)),
      closed: () => this.closed,
    };
  }

  /** The live run following `taskId`, if any. */
  private runFor(taskId: string): TaskRun | undefined {
    for (const run of this.runs) if (run.taskId === taskId) return run;
    return undefined;
  }

  /**
   * The run context for a task known by ref: its requests in the right generation and, for a 2025-11-25 task made
   * in another HTTP session, in that session (./joined-sessions.ts). `release` lets go of the joined session when
   * no run is made (a `cancel`); a run releases it as it ends. Its refs keep the era and session they had.
   */
  private contextFor(
    ref: Partial<TaskRef>,
    operation: string,
  ): { context: RunContext; release?: () => void } {
    const base = contextForRef(this.context, this.era, this.serverInfo.era, ref, operation);
    const era = ref.era ?? (ref.v === undefined ? this.serverInfo.era : "modern");
    const session = ref.session;
    if (era === "legacy" && session !== undefined && session.id !== this.ownSession?.id && this.joined) {
      const joined = this.joined.get(session);
      const release = joined.hold();
      const tasks = new SessionBoundRequests(joined, base.tasks, this.context.retry);
      const context: RunContext = {
        ...base,
        channel: joined,
        tasks,
        refFor: (fields) => this.makeRef(fields, "legacy", joined.ended ? undefined : joined.ref),
        released: (run) => {
          tasks.forget(run.taskId);
          release();
          base.released(run);
        },
      };
      return { context, release };
    }
    if (era === "legacy" && session !== undefined && session.id !== this.ownSession?.id) {
      this.context.log.warn(
        "the task lives in another HTTP session, which a client not connected by URL cannot join; following " +
          "it in this client's session",
        { taskId: redactTaskId(ref.taskId ?? "") },
      );
    }
    // The client's own context writes refs of its era and session: right for most refs, not for all.
    if (era === this.serverInfo.era && session?.id === this.ownSession?.id) return { context: base };
    return { context: { ...base, refFor: (fields) => this.makeRef(fields, era, session) } };
  }

  /** A task's ref: the fields the run knows, this server, and the era and session the task lives in. */
  private makeRef(
    fields: Omit<TaskRef, "v" | "server">,
    era: NonNullable<TaskRef["era"]>,
    session: TaskSession | undefined,
  ): TaskRef {
    const ref: TaskRef = { v: 1, server: this.serverRef(), era, ...fields };
    if (session !== undefined) ref.session = session;
    return ref;
  }

  /** Serves a joined session's server requests and status notifications as the client's own; returns the undoing. */
  private wireJoined(session: Session, statusNotifications: boolean): () => void {
    session.serveRequests(
      (request) => this.serverRequests.serve(request),
      (method, params) => this.serverRequests.claims(method, params),
    );
    if (this.telemetry !== undefined) session.observe(this.telemetry.observerFor(session));
    const log = this.context.log;
    const stops = [
      session.onError((error) => {
        log.warn("transport error in a task's own session", error);
        this.emit("error", error);
      }),
    ];
    if (statusNotifications) stops.push(followLegacyStatus(session, log, (taskId) => this.runFor(taskId)));
    return () => {
      for (const stop of stops) stop();
    };
  }

  private assertOpen(): void {
    if (this.closed) throw new McpTasksError("TaskClient is closed");
  }

  /**
   * This server as stored refs are matched to it (`serverIdentity`), or undefined when the connection has no
   * identity (no URL, and no `serverInfo` name): it cannot be told from any other server, so `resume()` and
   * adoption hand it no stored ref, and say so once.
   */
  private storedRefsServer(): TaskRef["server"] | undefined {
    const server = this.serverRef();
    if (serverIdentity(server) !== undefined) return server;
    if (!this.saidNoIdentity) {
      this.saidNoIdentity = true;
      this.context.log.warn(
        "no URL and no serverInfo to match stored refs by: resume() and adoption follow none",
      );
    }
    return undefined;
  }

  private serverRef(): TaskRef["server"] {
    const info = this.serverInfo.serverInfo;
    const server: TaskRef["server"] = { protocolVersion: this.serverInfo.protocolVersion };
    if (this.url !== undefined) server.url = this.url;
    if (info?.name !== undefined) server.name = info.name;
    if (info?.version !== undefined) server.version = info.version;
    return server;
  }

  private refOf(task: TaskRef | string, caller: string): Partial<TaskRef> & { taskId: string } {
    if (typeof task === "string") {
      if (task.length === 0)
        throw new TypeError(`TaskClient.${caller}: the task id must be a non-empty string`);
      return { taskId: task };
    }
    if (typeof task !== "object" || task === null) {
      throw new TypeError(`TaskClient.${caller}: expected a TaskRef or a task id`);
    }
    const ref = readTaskRef(task);
    const problem = foreignServer(ref, this.serverRef());
    if (problem !== undefined) throw new TaskRefError(`TaskClient.${caller}: ${problem}`);
    return ref;
  }
}

/** The output schema checks of a client (none with `validateOutput: false`). */
function outputChecksFor(
  catalog: ToolCatalog,
  server: ServerInfo,
  { options, log }: ClientSettings,
): OutputChecks | undefined {
  const mode = options.validateOutput;
  if (mode === false) return undefined;
  // A server whose capabilities are known and name no tools has no tools/list to ask.
  const capabilities = server.discover?.capabilities ?? server.capabilities;
  return new OutputChecks(catalog, {
    validator: mode === "bundled" ? undefined : mode,
    listsTools: capabilities === undefined || capabilities.tools !== undefined,
    warn: (message, error) => log.warn(message, error),
  });
}

/** The run context of one call whose own `inputHandlers` take the place of the client's, kind by kind. */
function withCallHandlers(context: RunContext, handlers: InputHandlers | undefined): RunContext {
  if (handlers === undefined) return context;
  const inputHandlers = { ...context.options.inputHandlers, ...definedHandlers(handlers) };
  return { ...context, options: { ...context.options, inputHandlers } };
}

function definedHandlers(handlers: InputHandlers): InputHandlers {
  return Object.fromEntries(Object.entries(handlers).filter(([, handler]) => handler !== undefined));
}
