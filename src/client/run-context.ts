/**
 * What every task run of one client shares: the connection, the scheduler and alarm clock, the settings, and
 * the client's bookkeeping hooks. Built once per client by `TaskClient`.
 */
import type { CallToolResult } from "../schema/index.js";
import type { PollScheduler } from "../scheduler/scheduler.js";
import type { AlarmClock } from "../scheduler/alarm-clock.js";
import type { PollTiming, RetryTiming } from "../scheduler/types.js";
import type { RpcChannel } from "../session/types.js";
import type { InputContext } from "../input/types.js";
import type { OutcomeMapper } from "../task/types.js";
import type { TaskRef } from "../task/ref.js";
import type { TaskStore } from "../store/types.js";
import type { CallState, LifecycleConfig } from "../lifecycle/types.js";
import type { Logger } from "./logger.js";
import type { ResolvedClientOptions } from "./options.js";
import type { TaskRequests } from "./task-requests.js";
import type { CallDialect, LegacyTasksMode } from "./dialect.js";
import type { TaskRun } from "./task-run.js";

/** What to call: the method and its params, without the envelope (the session adds it). */
export interface CallSpec {
  method: string;
  params: Record<string, unknown>;
  /** The tool name, for input handler contexts and refs. */
  toolName: string;
  /** 2025-11-25 servers: this call's `legacyTasks` (the client's option applies when absent). */
  legacyTasks?: LegacyTasksMode;
  /** 2025-11-25 servers: the `ttl` asked for when the call is task-augmented. */
  taskTtlMs?: number;
  /** Set by the dialect when it added `params.task` (2025-11-25). */
  augmented?: boolean;
}

export interface RunContext {
  channel: RpcChannel;
  /** Sends the call itself (a tools/call over HTTP gets its `Mcp-Param-*` headers). */
  sendCall(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  tasks: TaskRequests;
  /** How calls are framed and answers read on this server's protocol generation. */
  dialect: CallDialect;
  /** Polls, at most `maxInFlight` at once. */
  scheduler: PollScheduler;
  /** Time limits, on the `now()` time line: never capped, so a deadline fires while every poll slot is taken. */
  alarms: AlarmClock;
  polling: PollTiming;
  retry: RetryTiming;
  options: ResolvedClientOptions;
  config: LifecycleConfig;
  /** Which server asks, as input handlers see it. */
  identity: InputContext["server"];
  log: Logger;
  /** Where refs of unfinished tasks are kept (decision 12), when the client has a store. */
  store?: TaskStore;
  /** Records a store write in flight (the client waits for them when it closes). */
  trackWrite?(write: Promise<void>): void;
  /** Epoch milliseconds. */
  now(): number;
  /** The wait before poll retry number `attempt` after `error` (backoff with jitter, or the server's Retry-After). */
  retryDelay(attempt: number, error: unknown): number;
  /** Maps a terminal snapshot to the handle's outcome (validating the result). */
  toOutcome(state: CallState): OutcomeMapper<CallToolResult>;
  redact(taskId: string): string;
  /** Completes a ref with the server's identity. */
  refFor(fields: Omit<TaskRef, "v" | "server">): TaskRef;
  /** A run learned its task id. */
  adopted(run: TaskRun, taskId: string): void;
  /** A run's handle ended. */
  released(run: TaskRun): void;
}
