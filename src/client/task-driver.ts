/**
 * Drives one call from request to outcome: sends the task-augmented request, follows multi-round-trip input,
 * turns a `CreateTaskResult` into polling on the client's shared scheduler, answers `input_required` through
 * the input coordinator, and ends the handle with exactly one outcome. One driver per handle; it is the
 * handle's `TaskController` and the scheduler's `PollJob`.
 */
import type { CallToolResult, CreateTaskResult, DetailedTask, InputResponse } from "../schema/index.js";
import { ErrorCode, Method } from "../protocol/constants.js";
import {
  ClientClosedError,
  DeadlineExceededError,
  McpTasksError,
  OrphanedTaskError,
  ProtocolError,
  RpcError,
  TaskCancelledError,
  TaskDetachedError,
  TaskExpiredError,
  TaskFailedError,
  TaskNotFoundError,
  isTransientError,
  redactIn,
} from "../protocol/errors.js";
import { classifyResult, parseAck, parseCallToolResult, parseGetTaskResult } from "../protocol/codec.js";
import { pollDelay } from "../scheduler/timing.js";
import { retryAfterFault } from "../scheduler/retry.js";
import type { PollScheduler } from "../scheduler/scheduler.js";
import type { PollJob, PollTiming, RetryTiming } from "../scheduler/types.js";
import type { RpcChannel, ServerInfo } from "../session/types.js";
import { createTask, type TaskSink } from "../task/handle.js";
import type { TaskHandle } from "../task/handle.js";
import type { TaskController, TaskOutcome } from "../task/types.js";
import { InputCoordinator, InputRespondError, InputRounds } from "../input/index.js";
import type { ResolvedClientOptions } from "./options.js";
import { TimeLimits } from "./time-limits.js";

/** What every driver of one client shares. */
export interface DriverContext {
  channel: RpcChannel;
  scheduler: PollScheduler;
  polling: PollTiming;
  retry: RetryTiming;
  options: ResolvedClientOptions;
  server: ServerInfo;
  /** The server's URL when connected over HTTP (shown to input handlers). */
  serverUrl: string | undefined;
  now(): number;
  /** Called once when the driver's handle has ended, so the client can forget it. */
  released(driver: TaskDriver): void;
}

/** What to call: the method and its params, without the envelope (the session adds it). */
export interface CallSpec {
  method: string;
  params: Record<string, unknown>;
  /** The tool name, for input handler contexts. */
  toolName: string;
}

export class TaskDriver implements TaskController, PollJob {
  readonly handle: TaskHandle<CallToolResult>;
  private readonly sink: TaskSink<CallToolResult>;
  private taskId: string | undefined;
  /** `{ taskId }`, made once: every poll sends it (the session copies it into the framed request). */
  private taskParams: { taskId: string } | undefined;
  private readonly limits: TimeLimits;
  private cancelRequested = false;
  private cancelReason: unknown;
  private cancelPromise: Promise<void> | undefined;
  /** Settles a `cancel()` made before the task id was known, once the cancel could be sent (or was moot). */
  private cancelWaiter: { resolve(): void; reject(error: unknown): void } | undefined;
  private detached = false;
  /** `detach()` was called before the task id was known: end as detached as soon as the call answers. */
  private detachWhenAnswered = false;
  /** Multi-round-trip input in progress (before a task exists), and what stops it when the call is cancelled. */
  private inputRounds: InputRounds | undefined;
  private inputRoundsAbort: AbortController | undefined;
  private input: InputCoordinator | undefined;
  /** Aborted when the handle ends: stops retries, input handlers and multi-round-trip input. */
  private lifetime: AbortController | undefined;
  private removeAbortListener: (() => void) | undefined;

  constructor(
    private readonly context: DriverContext,
    private readonly call: CallSpec | undefined,
    deadline: number | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.limits = new TimeLimits(deadline, context.options.ttlGraceMs);
    const { handle, sink } = createTask<CallToolResult>(this);
    this.handle = handle;
    this.sink = sink;
  }

  /** Sends the request and follows its answer. Never throws: every failure ends the handle. */
  start(): void {
    if (this.watchSignal()) return;
    if (this.call === undefined)
      throw new Error("TaskDriver.start needs a call; use resume() for a known task");
    // While the call is out, the scheduler wakes this driver only to enforce the deadline.
    this.wakeAtNextTimeLimit();
    void this.sendCall(this.call).catch((error: unknown) => this.fail(error));
  }

  /** Observes a task that already exists (its id came from an earlier call or from storage). */
  resume(taskId: string): void {
    if (this.watchSignal()) return;
    this.adoptTask(taskId);
    this.context.scheduler.runSoon(this);
  }

  /* ---- TaskController: what the handle asks of us ------------------------------------------------- */

  cancel(reason?: unknown): Promise<void> {
    if (this.sink.isSettled) {
      // A detached task still runs on the server; cancelling it through its old handle is allowed.
      return this.detached && this.taskId !== undefined
        ? this.sendCancelRequest(this.taskId)
        : Promise.resolve();
    }
    if (this.cancelPromise) return this.cancelPromise;
    this.cancelRequested = true;
    this.cancelReason = reason;
    this.inputRoundsAbort?.abort(reason); // multi-round-trip input has no task to cancel: just stop asking
    if (this.taskId === undefined) {
      // The task id is not known yet. The call keeps going: its answer carries the id, and the cancel is sent
      // the moment it arrives (aborting the HTTP request would orphan a task the server may already have made).
      // The handle waits for that at most `cancelGraceMs`, then ends as an unconfirmed cancellation.
      this.cancelPromise = new Promise<void>((resolve, reject) => (this.cancelWaiter = { resolve, reject }));
      this.limits.startCancelGrace(this.context.now(), this.context.options.cancelGraceMs);
      this.wakeAtNextTimeLimit();
      return this.cancelPromise;
    }
    this.cancelPromise = this.sendCancel(this.taskId);
    return this.cancelPromise;
  }

  detach(): void | "deferred" {
    if (this.taskId === undefined && this.call !== undefined && !this.sink.isSettled) {
      // Nothing to stop observing yet, and ending now would drop the task id the answer brings: end when it comes.
      this.detachWhenAnswered = true;
      this.context.scheduler.unschedule(this);
      return "deferred";
    }
    this.detached = true;
    this.end({ kind: "detached" });
  }

  respond(key: string, response: InputResponse): Promise<void> {
    if (this.inputRounds) return this.inputRounds.respond(key, response);
    if (this.input) return this.input.respond(key, response);
    return Promise.reject(new InputRespondError(key, "unknown_key", "no input request is outstanding"));
  }

  /** Ends the handle because the client is closing. */
  closeForClient(): void {
    this.end({ kind: "closed" });
  }

  /* ---- PollJob: one poll, run by the shared scheduler --------------------------------------------- */

  async run(): Promise<void> {
    try {
      await this.poll();
    } catch (error) {
      this.fail(error);
    }
  }

  private async poll(): Promise<void> {
    if (this.sink.isSettled || this.stopIfOutOfTime(this.context.now())) return;
    const taskId = this.taskId;
    if (taskId === undefined) {
      this.wakeAtNextTimeLimit(); // woken for a time limit before the call answered; it has not passed yet
      return;
    }
    let raw: Record<string, unknown>;
    try {
      raw = await this.requestWithRetry(Method.tasksGet, this.taskParams as { taskId: string });
    } catch (error) {
      if (this.sink.isSettled) return;
      if (error instanceof RpcError && error.code === ErrorCode.invalidParams) {
        this.finish({ kind: "not_found", taskId, error: new TaskNotFoundError(taskId, error.rpcMessage) });
        return;
      }
      this.fail(error);
      return;
    }
    if (this.sink.isSettled) return;
    const snapshot = parseGetTaskResult(raw);
    if (snapshot.taskId !== taskId) {
      throw new ProtocolError("answered with another task's state", Method.tasksGet, raw);
    }
    this.observe(snapshot);
  }

  /* ---- The call ------------------------------------------------------------------------------------ */

  private async sendCall(call: CallSpec): Promise<void> {
    // tools/call is not retried: a lost answer may hide a task the server already created (no tasks/list).
    let raw = await this.context.channel.request(call.method, call.params);
    const tasksDeclared = this.context.server.era === "modern";
    let answer = classifyResult(call.method, raw, { tasksDeclared });
    if (answer.kind === "input_required") {
      raw = await this.answerInputRounds(call, answer.result);
      answer = classifyResult(call.method, raw, { tasksDeclared });
    }
    if (this.sink.isSettled) {
      // The handle ended first (deadline, unconfirmed cancel): nobody can reach a task made now, so stop it.
      if (answer.kind === "task") this.cancelUnreachable(answer.task.taskId);
      else this.settleCancelWaiter();
      return;
    }
    switch (answer.kind) {
      case "complete":
        this.sink.completeImmediately(answer.result as unknown as CallToolResult); // classifyResult validated it
        this.settleCancelWaiter();
        this.release();
        return;
      case "task":
        this.onTaskCreated(answer.task);
        return;
      case "input_required":
        throw new ProtocolError("still asks for input after the input rounds ended", call.method, raw);
    }
  }

  /** Multi-round-trip input before a task exists: answer, retry the call, until the server stops asking. */
  private async answerInputRounds(call: CallSpec, first: object): Promise<Record<string, unknown>> {
    this.inputRoundsAbort = new AbortController();
    this.inputRounds = new InputRounds({
      handlers: this.context.options.inputHandlers,
      policy: this.context.options.unansweredInput,
      maxRounds: this.context.options.maxInputRounds,
      concurrency: this.context.options.inputConcurrency,
      context: { toolName: call.toolName, server: this.serverIdentity() },
      signal: this.inputRoundsAbort.signal,
      emitInput: (event) => this.sink.emitInput(event),
      emitUnanswered: (event) => this.sink.emitInputUnanswered(event),
      method: call.method,
    });
    try {
      // No abort signal on the retries: an answer may carry a task id that must not be lost.
      return await this.inputRounds.run(first, (retry) =>
        this.context.channel.request(call.method, { ...call.params, ...retry }),
      );
    } finally {
      this.inputRounds = undefined;
    }
  }

  private onTaskCreated(task: CreateTaskResult): void {
    this.adoptTask(task.taskId);
    this.limits.trackTtl(task.createdAt, task.ttlMs, this.context.now());
    if (this.detachWhenAnswered) {
      this.detach();
      return;
    }
    if (this.cancelRequested) {
      const waiter = this.cancelWaiter;
      this.cancelWaiter = undefined;
      this.sendCancel(task.taskId).then(waiter?.resolve, waiter?.reject);
      return;
    }
    if (task.status === "working") {
      // A working seed carries everything a working snapshot has; show it at once.
      this.sink.accept({ ...task, status: "working" }, this.toOutcome);
      this.context.scheduler.schedule(this, this.delayFor(task.pollIntervalMs));
    } else {
      // Any other seed status has its payload only in tasks/get: fetch it now.
      this.context.scheduler.runSoon(this);
    }
  }

  private adoptTask(taskId: string): void {
    this.taskId = taskId;
    this.taskParams = { taskId };
    this.sink.setTaskId(taskId);
  }

  /* ---- Snapshots ----------------------------------------------------------------------------------- */

  /** Takes one server snapshot (from a poll): updates the handle, answers input, plans the next poll. */
  private observe(snapshot: DetailedTask): void {
    this.limits.trackTtl(snapshot.createdAt, snapshot.ttlMs, this.context.now());
    this.sink.accept(snapshot, this.toOutcome);
    if (this.sink.isSettled) {
      this.release();
      return;
    }
    // Every snapshot goes to the coordinator once it exists: a working one tells it which keys are no longer wanted.
    if (snapshot.status === "input_required" || this.input) this.inputCoordinator().observe(snapshot);
    this.context.scheduler.schedule(this, this.delayFor(snapshot.pollIntervalMs));
  }

  /** Maps a terminal snapshot to the handle's outcome. */
  private readonly toOutcome = (snapshot: DetailedTask): TaskOutcome<CallToolResult> => {
    switch (snapshot.status) {
      case "completed":
        return {
          kind: "completed",
          taskId: snapshot.taskId,
          result: parseCallToolResult(snapshot.result, Method.tasksGet),
        };
      case "failed":
        return {
          kind: "failed",
          taskId: snapshot.taskId,
          error: new TaskFailedError(snapshot.taskId, snapshot.error, snapshot.statusMessage),
        };
      case "cancelled":
        return {
          kind: "cancelled",
          taskId: snapshot.taskId,
          error: new TaskCancelledError(snapshot.taskId, true, this.cancelReason),
        };
      default:
        throw new ProtocolError(`status "${snapshot.status}" is not terminal`, Method.tasksGet, snapshot);
    }
  };

  /* ---- Input --------------------------------------------------------------------------------------- */

  private inputCoordinator(): InputCoordinator {
    if (this.input) return this.input;
    const taskId = this.taskId as string;
    this.input = new InputCoordinator({
      channel: this.context.channel,
      taskId,
      toolName: this.call?.toolName ?? "",
      server: this.serverIdentity(),
      handlers: this.context.options.inputHandlers,
      policy: this.context.options.unansweredInput,
      concurrency: this.context.options.inputConcurrency,
      signal: this.lifetimeController().signal,
      emitInput: (event) => this.sink.emitInput(event),
      emitUnanswered: (event) => this.sink.emitInputUnanswered(event),
      pollSoon: () => {
        if (!this.sink.isSettled) this.context.scheduler.runSoon(this);
      },
      cancelTask: (reason) => void this.cancel(reason),
      fail: (error) => this.fail(error),
    });
    return this.input;
  }

  /* ---- Cancellation -------------------------------------------------------------------------------- */

  private async sendCancelRequest(taskId: string): Promise<void> {
    const ack = await this.requestWithRetry(Method.tasksCancel, { taskId });
    parseAck(Method.tasksCancel, ack);
  }

  private async sendCancel(taskId: string): Promise<void> {
    try {
      await this.sendCancelRequest(taskId);
    } catch (error) {
      if (this.sink.isSettled) return;
      // The server could not take the cancel (unknown task, or it kept failing). The next poll reports what
      // the task really is; if that fails too, the handle ends with that error.
      this.limits.startCancelGrace(this.context.now(), this.context.options.cancelGraceMs);
      this.context.scheduler.runSoon(this);
      throw error;
    }
    if (this.sink.isSettled) return;
    // Cancellation is cooperative: keep observing for the server's final word, for a bounded time.
    this.limits.startCancelGrace(this.context.now(), this.context.options.cancelGraceMs);
    this.context.scheduler.runSoon(this);
  }

  /* ---- Time ---------------------------------------------------------------------------------------- */

  /**
   * Ends the handle if, at time `at`, the caller's deadline, the TTL backstop or the cancel grace period has
   * passed. Polls ask about now; retries ask about the end of the wait they are about to start.
   */
  private stopIfOutOfTime(at: number): boolean {
    const taskId = this.taskId;
    switch (this.limits.passedAt(at, taskId !== undefined)) {
      case "deadline":
        this.end({ kind: "deadline_exceeded" });
        return true;
      case "expired":
        this.finish({
          kind: "expired",
          taskId: taskId as string,
          error: new TaskExpiredError(taskId as string, this.limits.expiredAt()),
        });
        return true;
      case "cancel_unconfirmed":
        this.finish({
          kind: "cancelled",
          taskId,
          error: new TaskCancelledError(taskId, false, this.cancelReason),
        });
        return true;
      case undefined:
        return false;
    }
  }

  /** While no task id is known there is nothing to poll: wake only for the nearest time limit, if any. */
  private wakeAtNextTimeLimit(): void {
    const wait = this.limits.untilNextBeforeTask(this.context.now());
    if (wait !== undefined) this.context.scheduler.schedule(this, wait);
  }

  /** The delay before the next poll: the server's interval within bounds, never past a time limit. */
  private delayFor(serverIntervalMs: number | undefined): number {
    return this.limits.clamp(pollDelay(serverIntervalMs, this.context.polling), this.context.now());
  }

  /* ---- Plumbing ------------------------------------------------------------------------------------ */

  /**
   * Sends a request that is safe to repeat, retrying transient faults. The first attempt is a plain request with
   * no retry machinery (no closures, no signal): that is every poll of every task while the server is healthy.
   */
  private async requestWithRetry(
    method: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    try {
      return await this.context.channel.request(method, params, this.requestOptions());
    } catch (error) {
      if (!isTransientError(error)) throw error;
      return retryAfterFault(
        () => this.context.channel.request(method, params, this.requestOptions()),
        error,
        {
          timing: this.context.retry,
          // Aborted when the handle ends, which also ends any backoff wait.
          signal: this.lifetimeController().signal,
          onRetry: ({ error: fault, attempt, delayMs }) => {
            // A wait that would end past a time limit is not started: the handle ends now, as it would then.
            if (this.stopIfOutOfTime(this.context.now() + delayMs)) throw fault;
            this.sink.emitRetry({ method, error: fault, attempt });
          },
        },
      );
    }
  }

  private requestOptions(): { signal?: AbortSignal } | undefined {
    return this.lifetime ? { signal: this.lifetime.signal } : undefined;
  }

  /** Created only when something needs it: most polls of most tasks never do. */
  private lifetimeController(): AbortController {
    this.lifetime ??= new AbortController();
    return this.lifetime;
  }

  private serverIdentity(): { name?: string; version?: string; url?: string } {
    const info = this.context.server.serverInfo;
    return { name: info?.name, version: info?.version, url: this.context.serverUrl };
  }

  /** Links the caller's AbortSignal to cancellation. Returns true when it was already aborted. */
  private watchSignal(): boolean {
    const signal = this.signal;
    if (!signal) return false;
    if (signal.aborted) {
      this.finish({
        kind: "cancelled",
        taskId: undefined,
        error: new TaskCancelledError(undefined, false, signal.reason),
      });
      return true;
    }
    const onAbort = () => void this.cancel(signal.reason).catch(() => undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    this.removeAbortListener = () => signal.removeEventListener("abort", onAbort);
    return false;
  }

  /** Ends the handle for a reason that is not a server snapshot. */
  private end(reason: { kind: "detached" | "closed" | "deadline_exceeded" }): void {
    const taskId = this.taskId;
    switch (reason.kind) {
      case "detached":
        this.finish({ kind: "detached", taskId, error: new TaskDetachedError(taskId) });
        return;
      case "closed":
        this.finish({ kind: "closed", taskId, error: new ClientClosedError(taskId) });
        return;
      case "deadline_exceeded": {
        const deadline = new Date(this.limits.deadline ?? this.context.now());
        this.finish({
          kind: "deadline_exceeded",
          taskId,
          error: new DeadlineExceededError(taskId, deadline),
        });
        return;
      }
    }
  }

  /** Ends the handle with an error that stopped the work (not a server-reported final state). */
  private fail(error: unknown): void {
    if (this.sink.isSettled) return;
    const taskId = this.taskId;
    if (error instanceof OrphanedTaskError && error.taskId !== undefined) {
      // The server made a task we cannot follow (wrong method, or not declared): ask it to stop, best effort.
      this.cancelUnreachable(error.taskId);
    }
    if (error instanceof TaskCancelledError) {
      this.finish({ kind: "cancelled", taskId, error });
    } else if (this.cancelRequested && taskId === undefined) {
      // Cancelled before a task existed, and then the call failed: to the caller, it was cancelled.
      this.finish({
        kind: "cancelled",
        taskId,
        error: new TaskCancelledError(undefined, false, this.cancelReason),
      });
    } else if (error instanceof McpTasksError) {
      if (taskId !== undefined) error.message = redactIn(error.message, taskId);
      this.finish({ kind: "error", taskId, error });
    } else {
      this.finish({ kind: "error", taskId, error: new McpTasksError(String(error), { cause: error }) });
    }
    this.settleCancelWaiter();
  }

  /** Settles the handle once and lets go of everything the driver holds. */
  private finish(outcome: TaskOutcome<CallToolResult>): void {
    if (!this.sink.settle(outcome)) return;
    this.release();
  }

  /** Best-effort `tasks/cancel` for a task nobody can observe any more. Settles a pending `cancel()`. */
  private cancelUnreachable(taskId: string): void {
    this.context.channel.request(Method.tasksCancel, { taskId }).then(
      () => this.settleCancelWaiter(),
      (error: unknown) => this.settleCancelWaiter(error),
    );
  }

  /** Settles a `cancel()` made before the task id was known. */
  private settleCancelWaiter(error?: unknown): void {
    const waiter = this.cancelWaiter;
    this.cancelWaiter = undefined;
    if (error === undefined) waiter?.resolve();
    else waiter?.reject(error);
  }

  /** Drops everything this driver holds: its poll, its abort listener, its input work. */
  private release(): void {
    this.context.scheduler.unschedule(this);
    this.removeAbortListener?.();
    this.removeAbortListener = undefined;
    this.lifetime?.abort(new McpTasksError("the task handle ended"));
    this.input?.dispose();
    this.context.released(this);
  }
}
