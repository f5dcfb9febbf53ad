/**
 * One span for a call's whole life, from `callTool` (or `client.task()`) to the handle's end, driven only by the
 * handle's own events: an event when the task is created, at every status change, for every input round, every
 * unanswered input and every retry; the outcome as `mcp_tasks.task.outcome`, the span status and `error.type`.
 * The requests of the task (the call, polls, updates, cancels) are its children.
 *
 * It hears the events as the handle's internal watcher (one method per event), not as listeners: listeners would
 * give every handle an event emitter and three closures, which is most of what telemetry costs per task.
 */
import type * as Otel from "@opentelemetry/api";
import type { CallToolResult } from "../schema/index.js";
import type {
  InputRequestEvent,
  RetryEvent,
  TaskOutcome,
  TaskUpdate,
  TaskWatcher,
  UnansweredInputAction,
} from "../task/types.js";
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

export class TaskTrace implements TaskWatcher<CallToolResult> {
  /** The span's context: the parent of every request of the task. */
  readonly context: Otel.Context;
  /** `gen_ai.tool.name`, shared by the task's metrics. */
  readonly toolAttributes: Otel.Attributes;
  private readonly startedAt = performance.now();
  /**
   * Whether the span records. One that does not (the API's no-op tracer, a sampler that dropped it) needs no
   * attributes and no events: only what the metrics and the requests' parents use.
   */
  private readonly recording: boolean;
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
    this.recording = span.isRecording();
    this.toolAttributes = host.toolAttributes(toolName);
    host.instruments.activeTasks.add(1, this.toolAttributes);
  }

  /** The `_meta` trace context of requests that belong to the task but have no span of their own (polls). */
  taskMeta(): Readonly<Record<string, string>> | undefined {
    if (this.meta === null) this.meta = this.host.inject(this.context);
    return this.meta;
  }

  /* ---- TaskWatcher: the handle's events ----------------------------------------------------------- */

  task(taskId: string): void {
    this.taskId = taskId;
    this.host.bind(taskId, this);
    if (!this.recording) return;
    const shown = this.host.shownTaskId(taskId);
    this.span.setAttribute(TaskAttr.taskId, shown);
    this.span.addEvent(TaskEvent.created, { [TaskAttr.taskId]: shown });
  }

  update(update: TaskUpdate<CallToolResult>): void {
    if (!this.recording || update.status === this.status) return;
    this.status = update.status;
    this.span.addEvent(TaskEvent.status, { [TaskAttr.status]: update.status });
  }

  /** The requests of one round arrive together: one event for the round, once they are all in. */
  input(event: InputRequestEvent): void {
    if (!this.recording) return;
    if (this.round === undefined) {
      this.round = [];
      queueMicrotask(() => this.closeRound());
    }
    this.round.push(event);
  }

  inputUnanswered(event: InputRequestEvent & { reason: string; action: UnansweredInputAction }): void {
    if (!this.recording) return;
    this.span.addEvent(TaskEvent.inputUnanswered, {
      [TaskAttr.inputKeys]: [event.key],
      [TaskAttr.inputMethods]: [event.request.method],
      [TaskAttr.inputAction]: event.action,
    });
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

  retry(event: RetryEvent): void {
    const errorType = requestError(event.error).type;
    if (this.recording)
      this.span.addEvent(TaskEvent.retry, {
        [Attr.mcpMethodName]: event.method,
        [TaskAttr.retryAttempt]: event.attempt,
        [Attr.errorType]: errorType,
      });
    this.host.instruments.retries.add(1, { [Attr.mcpMethodName]: event.method, [Attr.errorType]: errorType });
  }

  settled(outcome: TaskOutcome<CallToolResult>): void {
    this.closeRound();
    const span = this.span;
    const error = outcomeError(outcome);
    const measured: Otel.Attributes = { ...this.toolAttributes, [TaskAttr.outcome]: outcome.kind };
    if (error !== undefined) measured[Attr.errorType] = error.type;
    if (this.recording) {
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
