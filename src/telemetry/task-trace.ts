/**
 * One span for a call's whole life, from `callTool` (or `client.task()`) to the handle's end, driven only by the
 * handle's own events: an event when the task is created, at every status change, for every input round, every
 * unanswered input and every retry; the outcome as `mcp_tasks.task.outcome`, the span status and `error.type`.
 * The requests of the task (the call, polls, updates, cancels) are its children.
 */
import type * as Otel from "@opentelemetry/api";
import type { CallToolResult } from "../schema/index.js";
import type { TaskHandle } from "../task/handle.js";
import type { InputRequestEvent, RetryEvent, TaskOutcome, TaskUpdate } from "../task/types.js";
import { outcomeError, requestError } from "./errors.js";
import type { ClientInstruments } from "./metrics.js";
import type { MetaInjector, OtelApi } from "./propagation.js";
import { Attr, TaskAttr, TaskEvent } from "./semconv.js";

/** What a task trace needs from the client's telemetry. */
export interface TaskTraceHost {
  readonly api: OtelApi;
  readonly instruments: ClientInstruments;
  readonly inject: MetaInjector;
  /** The task id as attributes show it (redacted unless the options say otherwise). */
  shownTaskId(taskId: string): string;
  /** `gen_ai.tool.name` as attributes, one object per tool for every task of it. */
  toolAttributes(toolName: string | undefined): Otel.Attributes;
  /** The task learned its id: requests naming it belong to this trace from now on. */
  bind(taskId: string, trace: TaskTrace): void;
  /** The handle ended. */
  unbind(taskId: string | undefined, trace: TaskTrace): void;
}

export class TaskTrace {
  /** The span's context: the parent of every request of the task. */
  readonly context: Otel.Context;
  /** `gen_ai.tool.name`, shared by the task's metrics. */
  readonly toolAttributes: Otel.Attributes;
  private readonly startedAt = performance.now();
  private meta: Readonly<Record<string, string>> | undefined | null = null;
  private taskId: string | undefined;
  private status: string | undefined;
  private rounds = 0;
  /** Input requests of the round being gathered (a round's requests are announced in one go). */
  private round: InputRequestEvent[] | undefined;

  constructor(
    private readonly host: TaskTraceHost,
    readonly span: Otel.Span,
    parent: Otel.Context,
    readonly toolName: string | undefined,
  ) {
    this.context = host.api.trace.setSpan(parent, span);
    this.toolAttributes = host.toolAttributes(toolName);
    host.instruments.activeTasks.add(1, this.toolAttributes);
  }

  /**
   * Follows the handle's events until it ends. A span that records nothing (the API's no-op tracer, a sampler
   * that dropped it) needs no status or input events: only what the metrics and the requests' parents use.
   */
  follow(handle: TaskHandle<CallToolResult>): void {
    handle.on("task", (taskId) => this.created(taskId));
    handle.on("retry", (event) => this.retried(event));
    handle.on("settled", (outcome) => this.settled(outcome));
    if (!this.span.isRecording()) return;
    handle.on("update", (update) => this.updated(update));
    handle.on("input", (event) => this.inputRequested(event));
    handle.on("inputUnanswered", (event) =>
      this.span.addEvent(TaskEvent.inputUnanswered, {
        [TaskAttr.inputKeys]: [event.key],
        [TaskAttr.inputMethods]: [event.request.method],
        [TaskAttr.inputAction]: event.action,
      }),
    );
  }

  /** The `_meta` trace context of requests that belong to the task but have no span of their own (polls). */
  taskMeta(): Readonly<Record<string, string>> | undefined {
    if (this.meta === null) this.meta = this.host.inject(this.context);
    return this.meta;
  }

  private created(taskId: string): void {
    this.taskId = taskId;
    this.host.bind(taskId, this);
    if (!this.span.isRecording()) return;
    const shown = this.host.shownTaskId(taskId);
    this.span.setAttribute(TaskAttr.taskId, shown);
    this.span.addEvent(TaskEvent.created, { [TaskAttr.taskId]: shown });
  }

  private updated(update: TaskUpdate<CallToolResult>): void {
    if (update.status === this.status) return;
    this.status = update.status;
    this.span.addEvent(TaskEvent.status, { [TaskAttr.status]: update.status });
  }

  /** The requests of one round arrive together: one event for the round, once they are all in. */
  private inputRequested(event: InputRequestEvent): void {
    if (this.round === undefined) {
      this.round = [];
      queueMicrotask(() => this.closeRound());
    }
    this.round.push(event);
  }

  private closeRound(): void {
    const round = this.round;
    this.round = undefined;
    if (round === undefined || round.length === 0) return;
    this.span.addEvent(TaskEvent.input, {
      [TaskAttr.inputRound]: ++this.rounds,
      [TaskAttr.inputKeys]: round.map((event) => event.key),
      [TaskAttr.inputMethods]: round.map((event) => event.request.method),
    });
  }

  private retried(event: RetryEvent): void {
    const errorType = requestError(event.error).type;
    if (this.span.isRecording())
      this.span.addEvent(TaskEvent.retry, {
        [Attr.mcpMethodName]: event.method,
        [TaskAttr.retryAttempt]: event.attempt,
        [Attr.errorType]: errorType,
      });
    this.host.instruments.retries.add(1, { [Attr.mcpMethodName]: event.method, [Attr.errorType]: errorType });
  }

  private settled(outcome: TaskOutcome<CallToolResult>): void {
    this.closeRound();
    const span = this.span;
    const error = outcomeError(outcome);
    const measured: Otel.Attributes = { ...this.toolAttributes, [TaskAttr.outcome]: outcome.kind };
    if (error !== undefined) measured[Attr.errorType] = error.type;
    if (span.isRecording()) {
      span.setAttribute(TaskAttr.outcome, outcome.kind);
      if (this.status !== undefined) span.setAttribute(TaskAttr.status, this.status);
      if (error !== undefined) {
        span.setAttribute(Attr.errorType, error.type);
        if (error.code !== undefined) span.setAttribute(Attr.rpcResponseStatusCode, error.code);
        span.setStatus({ code: this.host.api.SpanStatusCode.ERROR, message: error.message });
      }
    }
    span.end();
    this.host.unbind(this.taskId, this);
    const { activeTasks, taskDuration } = this.host.instruments;
    activeTasks.add(-1, this.toolAttributes);
    taskDuration.record((performance.now() - this.startedAt) / 1000, measured);
  }
}
