/** What every transport of the reference server shares: options, the engine, the SDK factory and the log. */
import type { Implementation } from "@modelcontextprotocol/server";
import type { Clock } from "./clock.js";
import { systemClock } from "./clock.js";
import { TaskEngine } from "./engine.js";
import { fixtureTools } from "./fixtures.js";
import { NotificationLog } from "./notification-log.js";
import { RequestLog } from "./request-log.js";
import { createServerFactory, type ServerFactory } from "./sdk-server.js";
import type { TaskStoreView } from "./task-store.js";
import type { ToolDefinition } from "./tool.js";
import type { ListenBehaviour } from "./listen-behaviour.js";
import type { TracerProviderLike } from "../telemetry/options.js";

/** The task generations the reference server speaks. */
export type TaskServerEra = "2026-07-28" | "2025-11-25";

/** Options shared by {@link startTaskServer} and {@link startStdioTaskServer}. */
export interface TaskServerOptions {
  /**
   * Which generation of tasks to serve. Default `"2026-07-28"`: the Tasks extension, certified by the
   * conformance suite. `"2025-11-25"` serves the same tools the 2025 way (`initialize`, `params.task`,
   * `tasks/get|result|list|cancel`, `notifications/tasks/status`) on the v1 SDK `@modelcontextprotocol/sdk`,
   * which must then be installed; `listen`, `taskShapedPrompt`, `allowOrigins` and tools'
   * `createTaskWhenUndeclared` are refused there.
   */
  readonly era?: TaskServerEra;
  /** `"2025-11-25"` only: how many tasks one `tasks/list` page holds. Default 10. */
  readonly taskListPageSize?: number;
  /** The tools to serve. Default: {@link fixtureTools}, the tools the conformance suite calls. */
  readonly tools?: readonly ToolDefinition[];
  /** Time source for timestamps, TTLs and `everyMs` scripts. Default: the real clock (fake timers apply). */
  readonly clock?: Clock;
  /** Name and version in `server/discover` and every result's `_meta`. */
  readonly serverInfo?: Implementation;
  /** Hears script errors and transport failures; they never change what is sent. */
  readonly onError?: (error: Error) => void;
  /**
   * Misbehave: also serve a prompt, `task_shaped_prompt`, whose `prompts/get` answers with a
   * `CreateTaskResult`, which is invalid for any method but `tools/call`. Default false.
   */
  readonly taskShapedPrompt?: boolean;
  /** Misbehave on task listen streams: partial acknowledgements, refusals, delays, duplicates, reordering, drops. */
  readonly listen?: ListenBehaviour;
  /**
   * Emit OpenTelemetry spans here: one SERVER span per JSON-RPC request, a child of the trace context the client
   * sent in `params._meta` (`traceparent`, `tracestate`, `baggage`). Needs `@opentelemetry/api`. Default: none.
   */
  readonly tracerProvider?: TracerProviderLike;
}

/** What a running server offers a test, whatever the transport. */
export interface TaskServer {
  /** The tasks the server holds. */
  readonly tasks: TaskStoreView;
  /** Every message clients sent, with HTTP headers. */
  readonly requests: RequestLog;
  /**
   * Every notification the server wrote on listens (acknowledgements, task changes, tool list changes) or, on
   * 2025-11-25, of tasks and tools; duplicates included.
   */
  readonly notifications: NotificationLog;
  /**
   * Serve these tools from now on, in place of the list so far, and say the list changed: every open listen that
   * asked for `toolsListChanged` gets `notifications/tools/list_changed` (2025-11-25: every connection, on its
   * GET stream over HTTP). Tasks already running keep the script they started with.
   * @throws {ToolDefinitionError} for a malformed definition or two tools of one name (nothing changes then).
   */
  setTools(tools: readonly ToolDefinition[]): void;
  /** Say the tool list changed without replacing it (after a definition was edited in place), as `setTools` does. */
  toolsChanged(): void;
  /** Stop serving: end listen streams, stop timers, close connections. Safe to call twice. */
  close(): Promise<void>;
}

export const DEFAULT_SERVER_INFO: Implementation = { name: "mcp-tasks-reference-server", version: "0.1.0" };

export interface ServerCore {
  readonly engine: TaskEngine;
  readonly factory: ServerFactory;
  readonly log: RequestLog;
  readonly sent: NotificationLog;
  readonly clock: Clock;
  readonly reportError: (error: Error) => void;
  readonly listen: ListenBehaviour;
  /** The 0-based index of the next task listen (for `dropAfterMs` functions). */
  nextListenIndex(): number;
}

export function createServerCore(options: TaskServerOptions): ServerCore {
  const clock = options.clock ?? systemClock;
  const reportError = (error: Error) => options.onError?.(error);
  let listens = 0;
  const engine = new TaskEngine({ tools: options.tools ?? fixtureTools(), clock, onError: reportError });
  return {
    engine,
    factory: createServerFactory(engine, {
      serverInfo: options.serverInfo ?? DEFAULT_SERVER_INFO,
      clock,
      taskShapedPrompt: options.taskShapedPrompt === true,
    }),
    log: new RequestLog(),
    sent: new NotificationLog(),
    clock,
    reportError,
    listen: options.listen ?? {},
    nextListenIndex: () => listens++,
  };
}
