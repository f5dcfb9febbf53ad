/**
 * The pieces of a client that depend on the server's protocol generation, chosen once at connect: how `tasks/*`
 * are spoken, and how calls are framed and answers read (from the tool catalog both eras share).
 */
import type { Task } from "../schema/index.js";
import { UnsupportedError } from "../protocol/errors.js";
import { legacyTaskSupport, type LegacyTaskSupport } from "./legacy/capabilities.js";
import type { RetryTiming } from "../scheduler/types.js";
import type { ReplyChannel, ServerInfo } from "../session/types.js";
import type { ToolSchemas } from "../tools/catalog.js";
import { legacyDialect, modernDialect, type CallDialect, type LegacyTasksMode } from "./dialect.js";
import { LegacyTaskRequests } from "./legacy/requests.js";
import { RefusingTaskRequests, TaskRequests, UnsupportedTaskRequests } from "./task-requests.js";

export interface EraParts {
  tasks: TaskRequests;
  dialect: CallDialect;
  /** Set on a 2025-11-25 server that offers tasks. */
  legacy: LegacyTaskRequests | undefined;
  /** `client.listTasks()`. */
  listTasks(): Promise<Task[]>;
  /**
   * 2025-11-25 requests for a task made under that generation, followed over this connection, or over `channel`
   * (another HTTP session of the same server, which offers what this one does).
   */
  legacyRequests(channel?: ReplyChannel): LegacyTaskRequests;
}

export interface EraDeps {
  retry: RetryTiming;
  warn: (message: string) => void;
  legacyTasks: LegacyTasksMode;
  now(): number;
}

export function eraPartsFor(
  channel: ReplyChannel,
  server: ServerInfo,
  tools: ToolSchemas,
  deps: EraDeps,
): EraParts {
  if (server.era === "modern") {
    // Every 2026 call declares the extension, so a task answer is followed as before. Only a server whose
    // discover result is known to lack the extension has task ids refused up front (client.task, cancel,
    // describe); a client over a negotiated connection (tasksFor) cannot know, and refuses nothing.
    const knownWithout = !server.supportsTasks && server.discover !== undefined;
    const tasks = knownWithout
      ? new RefusingTaskRequests(
          channel,
          deps.retry,
          deps.warn,
          "the tasks extension (io.modelcontextprotocol/tasks)",
        )
      : new TaskRequests(channel, deps.retry, deps.warn);
    return {
      tasks,
      dialect: modernDialect(true, deps.warn),
      legacy: undefined,
      listTasks: () =>
        Promise.reject(
          new UnsupportedError(
            "TaskClient.listTasks",
            "tasks/list (2026-07-28 servers have no task listing)",
          ),
        ),
      // A dual-era server may still serve the 2025 requests for tasks made under 2025 (SEP-2663 compatibility).
      legacyRequests: (over = channel) =>
        new LegacyTaskRequests(over, deps.retry, deps.warn, {
          any: true,
          toolCalls: false,
          list: false,
          cancel: true,
        }),
    };
  }
  const support: LegacyTaskSupport = legacyTaskSupport(server.capabilities);
  const legacy = support.any ? new LegacyTaskRequests(channel, deps.retry, deps.warn, support) : undefined;
  return {
    tasks:
      legacy ?? new UnsupportedTaskRequests(channel, deps.retry, deps.warn, "tasks (capabilities.tasks)"),
    dialect: legacyDialect({ tools, support, mode: deps.legacyTasks, warn: deps.warn, now: deps.now }),
    legacy,
    listTasks: () =>
      legacy
        ? legacy.list()
        : Promise.reject(
            new UnsupportedError("TaskClient.listTasks", "tasks/list (capabilities.tasks.list)"),
          ),
    legacyRequests: (over) =>
      over === undefined && legacy !== undefined
        ? legacy
        : new LegacyTaskRequests(over ?? channel, deps.retry, deps.warn, support),
  };
}
