/**
 * `TaskClient`: the one object agent code holds, a facade over parts that each own one concern:
 *
 * - options, checked and defaulted once for every entry point: ./options.ts;
 * - building and wiring connections (the client's own and the HTTP sessions it joins): ./connection.ts,
 *   ./joined-sessions.ts;
 * - the run context every run shares, and the one of a task known by ref: ./run-context.ts;
 * - the live runs and which tasks may still be followed: ./runs.ts;
 * - the refs it makes and takes: ./refs.ts;
 * - taking up stored tasks (`resume()`, adoption): ./stored-tasks.ts, over ../run/ref-life.ts;
 * - its end (`close()`): ./shutdown.ts;
 * - its events: ./events.ts.
 *
 * What is left here is the public surface and the wiring of the parts. Each handle is driven by a `TaskRun`
 * (../run/task-run.ts), the interpreter of the pure lifecycle in ../lifecycle/.
 */
import type { EventEmitter } from "eventemitter3";
import type { CallToolResult, Task } from "../schema/index.js";
import { TaskEndedError, TransportError } from "../protocol/errors.js";
import { closeRuns } from "../run/ref-life.js";
import { PollScheduler } from "../scheduler/scheduler.js";
import { AlarmClock } from "../scheduler/alarm-clock.js";
import type { Session } from "../session/session.js";
import type { ConnectTarget } from "../session/targets.js";
import type { McpTransport, ServerInfo } from "../session/types.js";
import type { TaskHandle } from "../task/handle.js";
import { Emitter } from "../task/emitter.js";
import type { TaskRef } from "../task/ref.js";
import { ServerRequestRouter } from "../input/server-requests.js";
import type { RunContext } from "../run/context.js";
import { eraPartsFor, type EraParts } from "../eras/era-parts.js";
import { TaskRun } from "../run/task-run.js";
import { Subscriptions } from "../notifications/subscriptions.js";
import { ToolCatalog, type ToolInfo } from "../tools/catalog.js";
import type { ClientTelemetry } from "../telemetry/types.js";
import type {
  CallToolRest,
  RefResultOf,
  ToolName,
  ToolResultOf,
  ToolTypes,
  UntypedTools,
} from "./typed-tools.js";
import {
  callSpec,
  checkCallOptions,
  checkNegotiatedOptions,
  checkToolCall,
  deadlineOf,
  settingsOf,
  type CallToolOptions,
  type ClientSettings,
  type TaskClientOptions,
} from "./options.js";
import {
  openConnection,
  sessionFor,
  wireSession,
  type ClientConnection,
  type ConnectionRights,
  type Unwire,
} from "./connection.js";
import { joinedHttpSessionsFor, type JoinedHttpSessions } from "./joined-sessions.js";
import { buildRunContext, refContext, withCallHandlers, type RefContextParts } from "./run-context.js";
import { ClientRuns } from "./runs.js";
import { ClientRefs } from "./refs.js";
import { adoptStored, resumeStored, type StoredTasksDeps } from "./stored-tasks.js";
import { Shutdown } from "./shutdown.js";
import type { EmitClientEvent, TaskClientEvents } from "./events.js";

export type { TaskClientEvents } from "./events.js";

type ClientListener<E extends keyof TaskClientEvents> = EventEmitter.EventListener<TaskClientEvents, E>;

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
export class TaskClient<Tools extends ToolTypes<Tools> = UntypedTools> {
  /** Emission stays inside the client: callers listen through `on`, `once` and `off`. */
  private readonly events = new Emitter<TaskClientEvents>();
  private readonly emitEvent: EmitClientEvent = this.events.emit.bind(this.events);
  private readonly session: Session;
  private readonly serverInfo: ServerInfo;
  private readonly telemetry: ClientTelemetry | undefined;
  private readonly catalog: ToolCatalog;
  /** What depends on the server's protocol generation (../eras/era-parts.ts). */
  private readonly era: EraParts;
  private readonly context: RunContext;
  private readonly refContexts: RefContextParts;
  private readonly runs = new ClientRuns();
  private readonly refs: ClientRefs;
  private readonly stored: StoredTasksDeps;
  /** Stops the adoption loop (`adopt`); undefined without one. */
  private readonly stopAdoption: (() => void) | undefined;
  private readonly shutdown = new Shutdown();
  private readonly serverRequests: ServerRequestRouter;
  /** Task status notifications; undefined with `notifications: "off"` or on a 2025-era server. */
  private readonly subscriptions: Subscriptions | undefined;
  /** Sessions of other connections this client follows tasks in (URL targets only). */
  private readonly joined: JoinedHttpSessions | undefined;
  private readonly ownWiring: Unwire;
  private readonly rights: ConnectionRights;

  private constructor(connection: ClientConnection, settings: ClientSettings) {
    const { session, server, url, telemetry, rights } = connection;
    const { log, options } = settings;
    this.session = session;
    this.serverInfo = server;
    this.telemetry = telemetry;
    this.rights = rights;
    this.refs = new ClientRefs(server, url, session.sessionId, log);
    // `Mcp-Param-*` exists on 2026-07-28 over Streamable HTTP only.
    const mirrorHeaders = server.era === "modern" ? connection.requestHeaders : undefined;
    this.catalog = new ToolCatalog(session, {
      checkParamHeaders: mirrorHeaders !== undefined,
      warn: (message) => log.warn(message),
    });
    this.era = eraPartsFor(session, server, this.catalog, {
      retry: settings.retry,
      warn: (message) => log.warn(message),
      legacyTasks: options.legacyTasks,
      now: () => Date.now(),
    });
    const onJobError = (error: unknown) => {
      log.error("a scheduled task job failed", error);
      this.emitEvent("error", error);
    };
    this.context = buildRunContext({
      session,
      server,
      settings,
      catalog: this.catalog,
      era: this.era,
      mirrorHeaders,
      // A host's client polls on its share of the host's scheduler (../scheduler/fair-scheduler.ts).
      scheduler:
        settings.host?.polls(onJobError) ??
        new PollScheduler({ maxInFlight: options.maxInFlight, onJobError }),
      alarms: new AlarmClock({ onError: onJobError }),
      refs: this.refs,
      url,
      shutdown: this.shutdown,
      hooks: {
        orphaned: (run, taskId) => {
          this.runs.leftRunning(taskId);
          this.emitEvent("orphan", taskId, run.handle);
        },
        following: (run, taskId) => {
          this.runs.learned(run, taskId);
          this.serverRequests.follow(taskId, run);
          this.subscriptions?.follow(run, taskId);
          this.emitEvent("task", run.handle, taskId);
        },
        released: (run) => {
          if (run.handle.taskId !== undefined) this.serverRequests.unfollow(run.handle.taskId, run);
          this.subscriptions?.released(run, run.handle.taskId);
          this.runs.ended(run);
          this.era.legacy?.forget(run.taskId);
          if (run.outcome !== undefined) this.emitEvent("settled", run.handle, run.outcome);
        },
      },
    });
    // Server requests: input kinds go to the handlers (through a task's inbox when they name a followed task).
    this.serverRequests = new ServerRequestRouter({
      handlers: options.inputHandlers,
      server: this.context.identity,
      log,
      concurrency: options.inputConcurrency,
    });
    const statusNotifications = options.notifications === "auto";
    const wiring = {
      serverRequests: this.serverRequests,
      log,
      onError: (error: unknown) => this.emitEvent("error", error),
      statusFollower: statusNotifications ? (taskId: string) => this.runs.runFor(taskId) : undefined,
    };
    // Status notifications of this client's own session exist on a 2025-11-25 server that offers tasks only.
    this.ownWiring = wireSession(
      session,
      { ...wiring, statusFollower: this.era.legacy ? wiring.statusFollower : undefined },
      "transport error",
    );
    if (statusNotifications && server.era === "modern") {
      this.subscriptions = new Subscriptions({
        channel: session,
        log,
        retry: this.context.retry,
        provenAfterMs: options.notificationSafetyNetMs,
        toolsListChanged: server.discover?.capabilities.tools?.listChanged === true,
      });
    }
    this.joined = joinedHttpSessionsFor({ rights, settings, server, era: this.era, wiring, telemetry });
    this.refContexts = {
      own: this.context,
      era: this.era,
      connection: server.era,
      refs: this.refs,
      joined: this.joined,
    };
    this.stored = {
      store: settings.store,
      log,
      refs: this.refs,
      runs: this.runs,
      follow: (ref) => this.task(ref),
      closed: () => this.shutdown.closed,
    };
    settings.store?.onLeaseLost?.((ref) => {
      // Another worker follows this task now: stop here without cancelling it.
      for (const run of this.runs.all()) if (run.taskId === ref.taskId) run.detach();
    });
    if (settings.adoptEveryMs !== undefined && settings.store !== undefined) {
      this.stopAdoption = adoptStored(this.stored, settings.store, settings.adoptEveryMs);
    }
    const host = settings.host;
    if (host !== undefined) {
      session.onNotification((method) => {
        if (method === "notifications/tools/list_changed") host.toolsChanged();
      });
      const reopen = connection.reopen;
      // Decision 22: a dropped connection is opened again under the same runs; the host says when.
      if (reopen !== undefined) {
        session.reopenable(() =>
          host.dropped(async () => {
            const transport = await reopen();
            await session.reopen(transport);
            // Another process may serve other tools; and its answer shows it is there (one that exits at once
            // must not count as back). An error answer is an answer.
            await this.catalog.refresh().catch(async (error: unknown) => {
              if (!(error instanceof TransportError)) return;
              await transport.close();
              throw error;
            });
          }),
        );
      }
    }
    session.onClose(() => {
      this.subscriptions?.close();
      this.ownWiring.stopStatus();
      if (!this.shutdown.closed)
        log.error("the connection to the server ended; open tasks will fail on their next request");
      this.emitEvent("closed");
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
    const settings = settingsOf(options, target); // bad options fail here, before any connection is made
    return new TaskClient<Tools>(await openConnection(target, settings), settings);
  }

  /**
   * A client over a connection that is already open and negotiated (used by `tasksFor` to share an SDK
   * `Client`'s connection). Most code wants `connect` or `tasksFor` instead.
   * @internal
   */
  static overNegotiated(
    transport: McpTransport,
    server: ServerInfo,
    options: TaskClientOptions = {},
  ): TaskClient {
    const settings = settingsOf(options);
    checkNegotiatedOptions(settings);
    const session = sessionFor(transport, settings);
    session.useNegotiated(server);
    return new TaskClient({ session, server, rights: { endsHttpSession: false } }, settings);
  }

  /** Listens to one of the client's events (see `TaskClientEvents`). */
  on<E extends keyof TaskClientEvents>(event: E, listener: ClientListener<E>): this {
    this.events.on(event, listener);
    return this;
  }

  /** Listens to the next occurrence of an event only. */
  once<E extends keyof TaskClientEvents>(event: E, listener: ClientListener<E>): this {
    this.events.once(event, listener);
    return this;
  }

  /** Removes a listener, or every listener of `event` when none is given. */
  off<E extends keyof TaskClientEvents>(event: E, listener?: ClientListener<E>): this {
    this.events.off(event, listener);
    return this;
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
    return this.runs.handles();
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
    this.shutdown.assertOpen();
    const params: Record<string, unknown> = { name, arguments: args };
    if (options.meta) params._meta = { ...options.meta };
    const run = new TaskRun(
      withCallHandlers(this.context, options.inputHandlers),
      callSpec(name, params, options),
      deadlineOf(options, this.context.now()),
      options.signal,
    );
    this.runs.add(run, true);
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
    this.shutdown.assertOpen();
    const ref = this.refs.accept(task, "TaskClient.task");
    const run = new TaskRun(
      withCallHandlers(refContext(this.refContexts, ref, "TaskClient.task").context, options.inputHandlers),
      undefined,
      deadlineOf(options, this.context.now()),
      options.signal,
      ref,
    );
    this.runs.add(run, false);
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
    this.shutdown.assertOpen();
    return resumeStored(this.stored, "TaskClient.resume", (ref) => this.task(ref, options));
  }

  /**
   * Sends `tasks/cancel` for a task, whether or not any handle is watching it, and resolves with the server's
   * acknowledgement. Transient faults are retried; a refusal (unknown task) rejects with a typed error. A live
   * handle of this client for the same task notices the outcome on its next poll. `close()` stops the retries:
   * the call then rejects with `TaskEndedError` (kind `closed`) carrying the task id (the task may still run).
   */
  async cancel(task: TaskRef | string): Promise<Record<string, unknown>> {
    this.shutdown.assertOpen();
    const ref = this.refs.accept(task, "TaskClient.cancel");
    const { context, release } = refContext(this.refContexts, ref, "TaskClient.cancel");
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
    this.shutdown.assertOpen();
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
    const { store, options, log } = this.context;
    return this.shutdown.close({
      stopAdoption: () => this.stopAdoption?.(),
      endRuns: async () => {
        await closeRuns(this.runs.all(), this.shutdown.calls, options.closeTimeoutMs, log);
        this.subscriptions?.close();
        this.ownWiring.stopStatus();
        this.context.scheduler.close();
        this.context.alarms.close();
      },
      mayEndSession: () => this.rights.endsHttpSession && this.runs.noneFollowable,
      closeConnections: async (endSession) => {
        await this.joined?.close();
        const failed = (failure: unknown) => log.warn("could not end the session with the server", failure);
        await this.session.close(endSession ? failed : undefined);
        this.telemetry?.close();
      },
      store,
      closeTimeoutMs: options.closeTimeoutMs,
      log,
    });
  }

  /** `await using client = await TaskClient.connect(…)` closes the client when the scope ends. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
