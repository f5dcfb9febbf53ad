/**
 * `TaskClient`: the one object agent code holds. It connects to an MCP server, negotiates the tasks extension,
 * and turns every tool call into a `TaskHandle` — whether the server answers at once or runs the call as a
 * task — polling all of its tasks on one shared scheduler. Each handle is driven by a `TaskRun`, the
 * interpreter of the pure lifecycle in `src/lifecycle`.
 */
import { EventEmitter } from "eventemitter3";
import type { CallToolResult, JSONObject } from "../schema/index.js";
import { Method } from "../protocol/constants.js";
import { McpTasksError } from "../protocol/errors.js";
import { redactTaskId } from "../protocol/redact.js";
import { PollScheduler } from "../scheduler/scheduler.js";
import { resolvePollTiming, resolveRetryTiming } from "../scheduler/timing.js";
import { retryDelay } from "../scheduler/retry.js";
import type { PollTiming, RetryTiming } from "../scheduler/types.js";
import { Session } from "../session/session.js";
import { resolveTransport, type ConnectTarget } from "../session/targets.js";
import type { McpTransport, ServerInfo } from "../session/types.js";
import type { TaskHandle } from "../task/handle.js";
import type { TaskOutcome } from "../task/types.js";
import { TaskRefError, foreignServer, readTaskRef, type TaskRef } from "../task/ref.js";
import { capabilitiesFor } from "../input/index.js";
import { safeLogger, type Logger } from "./logger.js";
import {
  checkToolCall,
  deadlineOf,
  resolveClientOptions,
  type CallToolOptions,
  type ResolvedClientOptions,
  type TaskClientOptions,
} from "./options.js";
import type { RunContext } from "./run-context.js";
import type { TaskStore } from "../store/types.js";
import { TaskRequests } from "./task-requests.js";
import { toolOutcome } from "./endings.js";
import { TaskRun } from "./task-run.js";
import { Subscriptions } from "../notifications/subscriptions.js";

/** Events of a `TaskClient` (eventemitter3; an `error` without listeners is not thrown). */
export interface TaskClientEvents {
  /** A handle learned its task id (the server created a task, or `client.task()` resumed one). */
  task: (handle: TaskHandle<CallToolResult>, taskId: string) => void;
  /** A handle ended. */
  settled: (handle: TaskHandle<CallToolResult>, outcome: TaskOutcome<CallToolResult>) => void;
  /** A fault no single handle owns: a transport error, a dropped connection, a failing scheduler job. */
  error: (error: unknown) => void;
  /** The connection ended (by `close()` or because the server went away). */
  closed: () => void;
}

export class TaskClient extends EventEmitter<TaskClientEvents> {
  private readonly runs = new Set<TaskRun>();
  /** Store writes in flight; `close()` waits for them before it closes the store. */
  private readonly writes = new Set<Promise<void>>();
  private readonly context: RunContext;
  private readonly serverInfo: ServerInfo;
  private readonly url: string | undefined;
  private closing: Promise<void> | undefined;
  /** Task status notifications; undefined with `notifications: "off"` or on a 2025-era server. */
  private readonly subscriptions: Subscriptions | undefined;
  /** The adoption loop (`adopt: true`): resumes lapsed tasks of the store now and then. */
  private adoption: ReturnType<typeof setInterval> | undefined;
  private resuming: Promise<unknown> | undefined;

  private constructor(
    private readonly session: Session,
    server: ServerInfo,
    settings: ClientSettings,
    url: string | undefined,
  ) {
    super();
    this.serverInfo = server;
    this.url = url;
    const log = settings.log;
    const onJobError = (error: unknown) => {
      log.error("a scheduled task job failed", error);
      this.emit("error", error);
    };
    this.context = {
      channel: session,
      tasks: new TaskRequests(session, settings.retry, (message) => log.warn(message)),
      scheduler: new PollScheduler({ maxInFlight: settings.options.maxInFlight, onJobError }),
      alarms: new PollScheduler({ maxInFlight: Infinity, onJobError }),
      polling: settings.polling,
      retry: settings.retry,
      options: settings.options,
      config: {
        pollRetries: settings.retry.retries,
        cancelGraceMs: settings.options.cancelGraceMs,
        ttlGraceMs: settings.options.ttlGraceMs,
        durable: settings.store !== undefined,
      },
      identity: { name: server.serverInfo?.name, version: server.serverInfo?.version, url },
      tasksDeclared: server.era === "modern",
      log,
      store: settings.store,
      trackWrite: (write) => {
        this.writes.add(write);
        void write.finally(() => this.writes.delete(write));
      },
      now: () => Date.now(),
      retryDelay: (attempt, error) => retryDelay(attempt, settings.retry, error),
      toOutcome: toolOutcome,
      redact: redactTaskId,
      refFor: (fields) => ({ v: 1, server: this.serverRef(), ...fields }),
      adopted: (run, taskId) => {
        this.subscriptions?.adopted(run, taskId);
        this.emit("task", run.handle, taskId);
      },
      released: (run) => {
        this.subscriptions?.released(run);
        this.runs.delete(run);
        const outcome = run.outcome;
        if (outcome !== undefined) this.emit("settled", run.handle, outcome);
      },
    };
    if (settings.options.notifications === "auto" && server.era === "modern") {
      const { scheduler, retry } = this.context;
      this.subscriptions = new Subscriptions({ channel: session, scheduler, log, retry });
    }
    settings.store?.onLeaseLost?.((ref) => {
      // Another worker follows this task now: stop here without cancelling it.
      for (const run of this.runs) if (run.ref()?.taskId === ref.taskId) run.detach();
    });
    if (settings.adoptEveryMs !== undefined) this.startAdoption(settings.adoptEveryMs);
    session.onError((error) => {
      log.warn("transport error", error);
      this.emit("error", error);
    });
    session.onClose(() => {
      this.subscriptions?.close();
      if (!this.closing)
        log.error("the connection to the server ended; open tasks will fail on their next request");
      this.emit("closed");
    });
  }

  /**
   * Connects to a server and negotiates the protocol: a URL (Streamable HTTP), a stdio server command
   * (`{ command, args }`), or any MCP SDK `Transport` (from `@modelcontextprotocol/client` or
   * `@modelcontextprotocol/sdk`). A failed connection closes the transport it opened (a stdio child exits).
   */
  static async connect(target: ConnectTarget, options: TaskClientOptions = {}): Promise<TaskClient> {
    const settings = settingsOf(options); // bad options fail here, before any connection is made
    await settings.store?.open?.(); // a store another process holds fails here, before any connection is made
    const session = sessionFor(await resolveTransport(target), settings);
    let server: ServerInfo;
    try {
      server = await session.connect();
    } catch (error) {
      await session.close().catch(() => undefined);
      throw error;
    }
    const url = typeof target === "string" ? target : target instanceof URL ? target.href : undefined;
    return new TaskClient(session, server, settings, url);
  }

  /**
   * A client over a connection that is already open and negotiated (used by `tasksFor` to share an SDK
   * `Client`'s connection). Most code wants `connect` or `tasksFor` instead.
   * @internal
   */
  static adopt(transport: McpTransport, server: ServerInfo, options: TaskClientOptions = {}): TaskClient {
    const settings = settingsOf(options);
    const session = sessionFor(transport, settings);
    session.adopt(server);
    return new TaskClient(session, server, settings, undefined);
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
   * Calls a tool. Returns at once with a handle: await it for the `CallToolResult`, iterate it for status
   * updates, listen to its events, or cancel it. Works the same whether the server answers immediately or
   * creates a task. Caller mistakes (a name that is not a string, arguments that are not an object) throw a
   * `TypeError` here, before anything is sent.
   */
  callTool(name: string, args: JSONObject = {}, options: CallToolOptions = {}): TaskHandle<CallToolResult> {
    checkToolCall(name, args, options);
    this.assertOpen();
    const params: Record<string, unknown> = { name, arguments: args };
    if (options.meta) params._meta = { ...options.meta };
    const run = new TaskRun(
      this.context,
      { method: Method.toolsCall, params, toolName: name },
      deadlineOf(options, this.context.now()),
      options.signal,
    );
    this.runs.add(run);
    run.start();
    return run.handle;
  }

  /**
   * A handle for a task that already exists: a `TaskRef` (from `await handle.ref`, also stored by another
   * process) or a bare task id. It behaves like one from `callTool` from its next poll on. A ref naming a task
   * on another server is refused with `TaskRefError`.
   */
  task(task: TaskRef | string, options: Omit<CallToolOptions, "meta"> = {}): TaskHandle<CallToolResult> {
    this.assertOpen();
    const ref = this.refOf(task, "task");
    const run = new TaskRun(
      this.context,
      undefined,
      deadlineOf(options, this.context.now()),
      options.signal,
      ref,
    );
    this.runs.add(run);
    run.start(ref.taskId);
    return run.handle;
  }

  /**
   * A handle for every unfinished task the client's store holds for this server: the tasks a process that
   * stopped (or crashed) was following. Answered input keys come with them, so nobody is asked twice. A task
   * this client already follows is returned as its live handle.
   */
  async resume(options: Omit<CallToolOptions, "meta"> = {}): Promise<TaskHandle<CallToolResult>[]> {
    this.assertOpen();
    const store = this.context.store;
    if (store === undefined) throw new McpTasksError("TaskClient.resume: the client has no `store`");
    const refs = await store.list(this.serverRef());
    const live = new Map<string, TaskRun>();
    for (const run of this.runs) {
      const taskId = run.ref()?.taskId;
      if (taskId !== undefined) live.set(taskId, run);
    }
    // With leases, follow only what this worker could claim (the latest ref, answered keys included).
    const claims = refs.map((ref) => live.get(ref.taskId) ?? (store.claim ? store.claim(ref) : ref));
    const handles: TaskHandle<CallToolResult>[] = [];
    for (const claim of await Promise.all(claims)) {
      if (claim instanceof TaskRun) handles.push(claim.handle);
      else if (claim !== undefined && !this.closing) handles.push(this.task(claim, options));
    }
    return handles;
  }

  /**
   * Sends `tasks/cancel` for a task, whether or not any handle is watching it, and resolves with the server's
   * acknowledgement. Transient faults are retried; a refusal (unknown task) rejects with a typed error. A live
   * handle of this client for the same task notices the outcome on its next poll.
   */
  async cancel(task: TaskRef | string): Promise<Record<string, unknown>> {
    this.assertOpen();
    const ref = this.refOf(task, "cancel");
    return this.context.tasks.cancel(ref.taskId, undefined, (attempt, error) =>
      this.context.log.debug(`tasks/cancel: retry ${attempt} after a transient fault`, error),
    );
  }

  /**
   * Stops every poll, ends every open handle with `ClientClosedError` (which carries its task id), and closes
   * the connection. Tasks keep running on the server; their refs stay in the store (which is closed too, after
   * its pending writes).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.adoption !== undefined) clearInterval(this.adoption);
      await this.resuming;
      for (const run of [...this.runs]) run.closeForClient();
      this.subscriptions?.close();
      this.context.scheduler.close();
      this.context.alarms.close();
      await this.session.close();
      while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
      await this.context.store?.close?.();
    })();
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Every `everyMs`, takes over the store's tasks whose owner stopped renewing their lease. */
  private startAdoption(everyMs: number): void {
    this.adoption = setInterval(() => {
      if (this.closing || this.resuming) return;
      const store = this.context.store;
      const adopting = store?.claimLapsed
        ? store.claimLapsed(this.serverRef()).then((refs) => {
            const live = new Set([...this.runs].map((run) => run.ref()?.taskId));
            for (const ref of refs) if (!this.closing && !live.has(ref.taskId)) this.task(ref);
          })
        : this.resume();
      this.resuming = adopting
        .catch((error: unknown) => this.context.log.warn("adopting stored tasks failed", error))
        .finally(() => (this.resuming = undefined));
    }, everyMs);
  }

  private assertOpen(): void {
    if (this.closing) throw new McpTasksError("TaskClient is closed");
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

/** Every option checked and defaulted, once per client. */
interface ClientSettings {
  options: ResolvedClientOptions;
  polling: PollTiming;
  retry: RetryTiming;
  log: Logger;
  store: TaskStore | undefined;
  adoptEveryMs: number | undefined;
}

function settingsOf(options: TaskClientOptions): ClientSettings {
  return {
    options: resolveClientOptions(options),
    polling: resolvePollTiming(options.polling ?? {}),
    retry: resolveRetryTiming(options.retry ?? {}),
    log: safeLogger(options.logger),
    store: checkStore(options.store),
    adoptEveryMs: adoptEvery(options),
  };
}

/** The session every client talks through; it declares the input capabilities the host gave handlers for. */
function sessionFor(transport: McpTransport, { options }: ClientSettings): Session {
  return new Session(transport, {
    clientInfo: options.clientInfo,
    capabilities: capabilitiesFor(options.inputHandlers),
    requestTimeoutMs: options.requestTimeoutMs,
  });
}

function checkStore(store: TaskStore | undefined): TaskStore | undefined {
  if (store === undefined) return undefined;
  const methods = ["put", "remove", "list"] as const;
  if (typeof store !== "object" || store === null || methods.some((m) => typeof store[m] !== "function")) {
    throw new TypeError("TaskClient: `store` must be a TaskStore (put, remove, list)");
  }
  return store;
}

function adoptEvery({ adopt, store }: TaskClientOptions): number | undefined {
  if (adopt === undefined || adopt === false) return undefined;
  if (store === undefined) throw new TypeError("TaskClient: `adopt` needs a `store`");
  const everyMs = adopt === true ? 1000 : adopt.everyMs;
  if (typeof everyMs !== "number" || !(everyMs > 0)) {
    throw new TypeError("TaskClient: `adopt.everyMs` must be a positive number");
  }
  return everyMs;
}
