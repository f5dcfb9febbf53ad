/**
 * What every task run of one client shares: the connection, the scheduler and alarm clock, the settings, and
 * the client's bookkeeping hooks. Built once per client by `TaskClient`.
 */
import type { CallToolResult } from "../schema/index.js";
import type { AlarmClock } from "../scheduler/alarm-clock.js";
import type { PollQueue, RetryTiming } from "../scheduler/types.js";
import type { CadenceSettings } from "../scheduler/cadence.js";
import type { RpcChannel, ProtocolEra } from "../session/types.js";
import type { InputContext, InputHandlers } from "../input/types.js";
import type { OutcomeMapper, UnansweredInputAction } from "../task/types.js";
import type { TaskRef } from "../task/ref.js";
import type { TaskStore } from "../store/types.js";
import type { CallState, LifecycleConfig } from "../lifecycle/types.js";
import type { Logger } from "../protocol/logging.js";
import type { TaskRequests } from "../eras/task-requests.js";
import type { CallDialect } from "../eras/dialect.js";
import type { EraParts } from "../eras/era-parts.js";
import { UnsupportedError } from "../protocol/errors.js";
import type { TaskRun } from "./task-run.js";
import type { OutputCheck, OutputChecks } from "../tools/output-checks.js";

/** The client options a run reads (the client's resolved options are one). */
export interface RunOptions {
  inputHandlers: InputHandlers;
  unansweredInput: UnansweredInputAction;
  inputConcurrency: number;
  maxInputRounds: number;
  notificationSafetyNetMs: number;
  /** Read by the client's `close()` (./ref-life.ts `closeStore`). */
  closeTimeoutMs: number;
}

export interface RunContext {
  channel: RpcChannel;
  /**
   * Sends the call itself (a tools/call over HTTP gets its `Mcp-Param-*` headers), with no per-request timeout:
   * the handle's deadline, signal and the client's `close()` bound a call, and its answer always reaches the run.
   * `owner` is the run's handle.
   */
  sendCall(method: string, params: Record<string, unknown>, owner?: object): Promise<Record<string, unknown>>;
  tasks: TaskRequests;
  /** How calls are framed and answers read on this server's protocol generation. */
  dialect: CallDialect;
  /** Polls, at most `maxInFlight` at once (on a host: at most the server's share of the host's). */
  scheduler: PollQueue;
  /** Time limits, on the `now()` time line: never capped, so a deadline fires while every poll slot is taken. */
  alarms: AlarmClock;
  /** What the cadence owner reads: the polling bounds and the safety net of pushed tasks. */
  cadence: CadenceSettings;
  retry: RetryTiming;
  options: RunOptions;
  config: LifecycleConfig;
  /** Which server asks, as input handlers see it. */
  identity: InputContext["server"];
  log: Logger;
  /** Where refs of unfinished tasks are kept (decision 12), when the client has a store. */
  store?: TaskStore;
  /** Records a store write in flight (the client waits for them when it closes). */
  trackWrite?(write: Promise<void>): void;
  /**
   * Aborted as the client closes: stops what no handle bounds (the retries of a `tasks/cancel` sent for a task
   * nobody follows, or after its handle ended), so `close()` leaves no timer behind.
   */
  closing: AbortSignal;
  /** Epoch milliseconds. */
  now(): number;
  /** The wait before poll retry number `attempt` after `error` (backoff with jitter, or the server's Retry-After). */
  retryDelay(attempt: number, error: unknown): number;
  /** Maps a terminal snapshot to the handle's outcome (validating the result, and checking it with `check`). */
  toOutcome(state: CallState, check?: OutputCheck): OutcomeMapper<CallToolResult>;
  /** Tools' output schema checks; undefined with `validateOutput: false`. */
  outputChecks?: OutputChecks;
  redact(taskId: string): string;
  /** Completes a ref with the server's identity. */
  refFor(fields: Omit<TaskRef, "v" | "server">): TaskRef;
  /** A run learned its task id. */
  adopted(run: TaskRun, taskId: string): void;
  /** The server created a task nobody follows (a late call answer); the run sent `tasks/cancel` for it. */
  orphaned(run: TaskRun, taskId: string): void;
  /** A run's handle ended. */
  released(run: TaskRun): void;
}

/**
 * The run context for a task known by ref: the client's own, or one speaking 2025-11-25 for a task made under
 * that generation on a server that now speaks 2026-07-28. Throws `UnsupportedError` when the server cannot
 * serve the task at all. A bare task id (no `v`) is taken to be of the connection's generation.
 */
export function contextForRef(
  context: RunContext,
  parts: EraParts,
  connection: ProtocolEra,
  ref: Partial<TaskRef>,
  operation: string,
): RunContext {
  const unsupported = context.tasks.unsupported(operation);
  if (unsupported !== undefined) throw unsupported;
  const era = ref.era ?? (ref.v === undefined ? connection : "modern");
  if (era === connection) return context;
  if (era === "legacy") return { ...context, tasks: parts.legacyRequests() };
  throw new UnsupportedError(
    operation,
    "2026-07-28 tasks (the ref's task was made on a 2026-07-28 connection)",
  );
}
