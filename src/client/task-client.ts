/**
 * `TaskClient`: the one object agent code holds. It connects to an MCP server, negotiates the tasks extension,
 * and turns every tool call into a `TaskHandle` — whether the server answers at once or runs the call as a
 * task — polling all of its tasks on one shared scheduler.
 */
import type { CallToolResult, JSONObject } from "../schema/index.js";
import { Method } from "../protocol/constants.js";
import { McpTasksError } from "../protocol/errors.js";
import { PollScheduler } from "../scheduler/scheduler.js";
import { resolvePollTiming, resolveRetryTiming } from "../scheduler/timing.js";
import type { PollTiming, RetryTiming } from "../scheduler/types.js";
import { Session } from "../session/session.js";
import { resolveTransport, type ConnectTarget } from "../session/targets.js";
import type { McpTransport, ServerInfo } from "../session/types.js";
import type { TaskHandle } from "../task/handle.js";
import { capabilitiesFor } from "../input/index.js";
import {
  checkToolCall,
  deadlineOf,
  resolveClientOptions,
  type CallToolOptions,
  type ResolvedClientOptions,
  type TaskClientOptions,
} from "./options.js";
import { TaskDriver, type DriverContext } from "./task-driver.js";

export class TaskClient {
  private readonly drivers = new Set<TaskDriver>();
  private readonly context: DriverContext;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly session: Session,
    server: ServerInfo,
    settings: ClientSettings,
    serverUrl: string | undefined,
  ) {
    this.context = {
      channel: session,
      scheduler: new PollScheduler({ maxInFlight: settings.options.maxInFlight }),
      polling: settings.polling,
      retry: settings.retry,
      options: settings.options,
      server,
      serverUrl,
      now: () => Date.now(),
      released: (driver) => this.drivers.delete(driver),
    };
  }

  /**
   * Connects to a server and negotiates the protocol: a URL (Streamable HTTP), a stdio server command
   * (`{ command, args }`), or any MCP SDK `Transport` (from `@modelcontextprotocol/client` or
   * `@modelcontextprotocol/sdk`).
   */
  static async connect(target: ConnectTarget, options: TaskClientOptions = {}): Promise<TaskClient> {
    const settings = settingsOf(options); // bad options fail here, before any connection is made
    const session = sessionFor(await resolveTransport(target), settings);
    const server = await session.connect();
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
    return this.context.server;
  }

  /** How many handles are still waiting for an outcome. */
  get activeTasks(): number {
    return this.drivers.size;
  }

  /**
   * Calls a tool. Returns at once with a handle: await it for the `CallToolResult`, iterate it for status
   * updates, listen to its events, or cancel it. Works the same whether the server answers immediately or
   * creates a task.
   */
  callTool(name: string, args: JSONObject = {}, options: CallToolOptions = {}): TaskHandle<CallToolResult> {
    checkToolCall(name, args, options);
    this.assertOpen();
    const params: Record<string, unknown> = { name, arguments: args };
    if (options.meta) params._meta = { ...options.meta };
    const driver = new TaskDriver(
      this.context,
      { method: Method.toolsCall, params, toolName: name },
      deadlineOf(options, this.context.now()),
      options.signal,
    );
    this.drivers.add(driver);
    driver.start();
    return driver.handle;
  }

  /**
   * Observes a task that already exists, by its id (kept from an earlier handle or from storage). The handle
   * behaves like one from `callTool`, from its next poll on.
   */
  task(taskId: string, options: Omit<CallToolOptions, "meta"> = {}): TaskHandle<CallToolResult> {
    this.assertOpen();
    if (typeof taskId !== "string" || taskId.length === 0) {
      throw new TypeError("TaskClient.task: `taskId` must be a non-empty string");
    }
    const driver = new TaskDriver(
      this.context,
      undefined,
      deadlineOf(options, this.context.now()),
      options.signal,
    );
    this.drivers.add(driver);
    driver.resume(taskId);
    return driver.handle;
  }

  /**
   * Stops every poll, ends every open handle with `ClientClosedError` (which carries its task id), and closes
   * the connection. Tasks keep running on the server.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const driver of [...this.drivers]) driver.closeForClient();
      this.context.scheduler.close();
      await this.session.close();
    })();
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private assertOpen(): void {
    if (this.closing) throw new McpTasksError("TaskClient is closed");
  }
}

/** Every option checked and defaulted, once per client. */
interface ClientSettings {
  options: ResolvedClientOptions;
  polling: PollTiming;
  retry: RetryTiming;
}

function settingsOf(options: TaskClientOptions): ClientSettings {
  return {
    options: resolveClientOptions(options),
    polling: resolvePollTiming(options.polling ?? {}),
    retry: resolveRetryTiming(options.retry ?? {}),
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
