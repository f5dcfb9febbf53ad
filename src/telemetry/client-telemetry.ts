/**
 * A client's telemetry: the session's request observer and the tracer of each handle. A request belongs to a
 * task when its caller says so (the call, by its handle) or when it names the task (`tasks/*` by `taskId`, a
 * listen by its first task id); it is then a child of the task's span and carries that trace in `_meta`, so
 * the server's spans join it. Any other request (the connection's probe, `tools/list`, `client.cancel()` of a
 * task no handle follows) is a child of the caller's active context.
 *
 * A task with nothing to record (its span does not record, there is no trace context to pass on, and the meter is
 * the API's no-op one, as when the host set up no OpenTelemetry SDK) is followed silently: no trace object, and its
 * requests get no record at all. That is what keeps `telemetry: true` nearly free where nobody collects anything.
 */
import type * as Otel from "@opentelemetry/api";
import { Method } from "../protocol/constants.js";
import { redactTaskId } from "../protocol/logging.js";
import type { RequestObserver, RequestOptions, RequestWatch } from "../session/types.js";
import type { TaskOutcome, TaskWatcher } from "../task/types.js";
import type { CallToolResult } from "../schema/index.js";
import { clientInstruments, type ClientInstruments } from "./metrics.js";
import type { ResolvedTelemetryOptions } from "./options.js";
import { metaInjector, type MetaInjector, type OtelApi } from "./propagation.js";
import { RequestRecord, type RecordHost } from "./request-record.js";
import { Attr, EXECUTE_TOOL, TaskAttr } from "./semconv.js";
import { TaskTrace, type TaskTraceHost } from "./task-trace.js";
import type { ClientTelemetry, StartedCall, TracedConnection, TracedSession, WatchedTask } from "./types.js";

/** The instrumentation scope: this package. */
const SCOPE = "mcp-tasks";
const SCOPE_VERSION = "0.1.0";

/** Pushed task updates, in both generations. */
const PUSHED = new Set([Method.tasksNotification, "notifications/tasks/status"]);

interface TaskSpanStart {
  readonly name: string;
  readonly attributes: Otel.Attributes;
}

/** What a task with nothing to record is filed under (by handle and by task id), instead of a `TaskTrace`. */
const SILENT = Symbol("silent task");
type Followed = TaskTrace | typeof SILENT;

export class OtelClientTelemetry implements ClientTelemetry, TaskTraceHost, RecordHost {
  readonly instruments: ClientInstruments;
  readonly inject: MetaInjector;
  private readonly tracer: Otel.Tracer;
  private readonly byOwner = new WeakMap<object, Followed>();
  private readonly byTaskId = new Map<string, Followed>();
  /** Whether the meter is the API's no-op one: then only spans and trace context can make a task worth a trace. */
  private readonly metricsOff: boolean;
  /** The one watcher of every silent task: it only keeps their ids filed, so their requests are left alone. */
  private readonly silent: TaskWatcher<CallToolResult>;
  /** Attributes shared by every task of a tool, and of its requests by method (tools and methods are few). */
  private readonly byTool = new Map<string | undefined, Otel.Attributes>();
  private readonly measuredByTool = new Map<string | undefined, Map<string, Otel.Attributes>>();
  private readonly taskSpans = new Map<string | undefined, TaskSpanStart>();
  /** The connection's attributes, once the protocol version is known. */
  private connectionAttributes: Otel.Attributes | undefined;
  private readonly stopCounting: () => void;

  constructor(
    readonly api: OtelApi,
    private readonly options: ResolvedTelemetryOptions,
    private readonly connection: TracedConnection,
  ) {
    const tracers = (options.tracerProvider as Otel.TracerProvider | undefined) ?? api.trace;
    const meters = (options.meterProvider as Otel.MeterProvider | undefined) ?? api.metrics;
    this.tracer = tracers.getTracer(SCOPE, SCOPE_VERSION);
    const meter = meters.getMeter(SCOPE, SCOPE_VERSION);
    this.metricsOff = meter === api.createNoopMeter();
    this.instruments = clientInstruments(meter);
    this.silent = silentWatcher(this.byTaskId);
    this.inject = metaInjector(api);
    this.stopCounting = connection.session.onNotification((method) => {
      if (PUSHED.has(method)) this.instruments.pushedUpdates.add(1, { [Attr.mcpMethodName]: method });
    });
  }

  close(): void {
    this.stopCounting();
  }

  /* ---- Tasks --------------------------------------------------------------------------------------- */

  taskStarted(task: WatchedTask, call: StartedCall): void {
    const parent = this.api.context.active();
    const { name, attributes } = this.taskSpanOf(call.toolName, call.resumed);
    const span = this.tracer.startSpan(name, { kind: this.api.SpanKind.INTERNAL, attributes }, parent);
    if (
      this.metricsOff &&
      !span.isRecording() &&
      this.inject(this.api.trace.setSpan(parent, span)) === undefined
    ) {
      span.end();
      this.byOwner.set(task.handle, SILENT);
      task.watch(this.silent);
      return;
    }
    const trace = new TaskTrace(this, span, parent, call.toolName);
    this.byOwner.set(task.handle, trace);
    task.watch(trace);
  }

  /** A task span's name and attributes, the same for every task of a tool (kept once the connection is known). */
  private taskSpanOf(toolName: string | undefined, resumed: boolean): TaskSpanStart {
    let start = this.taskSpans.get(toolName);
    if (start === undefined) {
      const attributes = { ...this.connectionAttributesNow(), ...this.toolAttributes(toolName) };
      start = {
        name: toolName === undefined ? "task" : `task ${toolName}`,
        attributes: Object.freeze(attributes),
      };
      if (this.connectionAttributes !== undefined) this.taskSpans.set(toolName, start);
    }
    if (!resumed) return start;
    return { name: start.name, attributes: { ...start.attributes, [TaskAttr.resumed]: true } };
  }

  toolAttributes(toolName: string | undefined): Otel.Attributes {
    let attributes = this.byTool.get(toolName);
    if (attributes === undefined) {
      attributes = Object.freeze(toolName === undefined ? {} : { [Attr.genAiToolName]: toolName });
      this.byTool.set(toolName, attributes);
    }
    return attributes;
  }

  shownTaskId(taskId: string): string {
    return this.options.fullTaskIds ? taskId : redactTaskId(taskId);
  }

  /** A session id is a secret like a task id, and is shown (or redacted) the same way. */
  private shownSessionId(sessionId: string): string {
    return this.options.fullTaskIds ? sessionId : redactTaskId(sessionId);
  }

  bind(taskId: string, trace: TaskTrace): void {
    this.byTaskId.set(taskId, trace);
  }

  unbind(taskId: string | undefined, trace: TaskTrace): void {
    if (taskId !== undefined && this.byTaskId.get(taskId) === trace) this.byTaskId.delete(taskId);
  }

  /* ---- Requests (RequestObserver) ------------------------------------------------------------------ */

  request(
    id: string,
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions | undefined,
  ): RequestWatch | undefined {
    return this.observed(id, method, params, options, this.connection.session);
  }

  observerFor(session: TracedSession): RequestObserver {
    return { request: (id, method, params, options) => this.observed(id, method, params, options, session) };
  }

  private observed(
    id: string,
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions | undefined,
    session: TracedSession,
  ): RequestWatch | undefined {
    try {
      return this.record(id, method, params, options, session.sessionId);
    } catch {
      // Telemetry must never break a request; a broken tracer or meter costs the request its record only.
      return undefined;
    }
  }

  private record(
    id: string,
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions | undefined,
    sessionId: string | undefined,
  ): RequestWatch | undefined {
    const found = this.taskOf(method, params, options?.owner);
    if (found === SILENT) return undefined;
    const task = found;
    const signal = options?.signal;
    const toolName =
      method === Method.toolsCall && typeof params.name === "string" ? params.name : task?.toolName;
    const measured =
      this.measuredByTool.get(toolName)?.get(method) ?? this.measuredAttributes(method, toolName);
    const parent = task?.context ?? this.api.context.active();
    if (method === Method.tasksGet && this.options.pollSpans !== "all") {
      const meta = task !== undefined ? task.taskMeta() : this.inject(parent);
      const late = this.options.pollSpans === "errors" ? parent : undefined;
      const polled = task?.toolAttributes ?? {};
      return new RequestRecord(
        this,
        id,
        method,
        params,
        sessionId,
        signal,
        meta,
        undefined,
        measured,
        polled,
        late,
      );
    }
    const span = this.startSpan(id, method, params, sessionId, measured, parent, undefined);
    const meta = this.inject(this.api.trace.setSpan(parent, span));
    const polled = method === Method.tasksGet ? (task?.toolAttributes ?? {}) : undefined;
    return new RequestRecord(
      this,
      id,
      method,
      params,
      sessionId,
      signal,
      meta,
      span,
      measured,
      polled,
      undefined,
    );
  }

  lateSpan(
    record: RequestRecord,
    measured: Otel.Attributes,
    parent: Otel.Context,
    startTime: number,
  ): Otel.Span {
    const { id, method, params, sessionId } = record;
    return this.startSpan(id, method, params, sessionId, measured, parent, startTime);
  }

  /**
   * A CLIENT span named `{mcp.method.name} {target}`, the target being the tool when there is one. It names the
   * session the request went in (redacted unless `taskIds: "full"`): the client's own, or a task's (joined).
   */
  private startSpan(
    id: string,
    method: string,
    params: Record<string, unknown>,
    sessionId: string | undefined,
    measured: Otel.Attributes,
    parent: Otel.Context,
    startTime: number | undefined,
  ): Otel.Span {
    const toolName = measured[Attr.genAiToolName];
    const name = typeof toolName === "string" ? `${method} ${toolName}` : method;
    const attributes: Otel.Attributes = { ...measured, [Attr.jsonrpcRequestId]: id };
    if (sessionId !== undefined) attributes[Attr.mcpSessionId] = this.shownSessionId(sessionId);
    if (typeof params.taskId === "string") attributes[TaskAttr.taskId] = this.shownTaskId(params.taskId);
    const options: Otel.SpanOptions = { kind: this.api.SpanKind.CLIENT, attributes };
    if (startTime !== undefined) options.startTime = startTime;
    if (method === Method.listen) {
      // A listen carries many tasks: a child of the first one's span, linked to each one's.
      attributes[TaskAttr.listenTasks] = listenIds(params).length;
      options.links = this.listenLinks(params);
    }
    return this.tracer.startSpan(name, options, parent);
  }

  /**
   * The task a request belongs to: its owner's, the task it names, or a listen's first traced task (a listen is
   * the connection's, so silent tasks never silence it).
   */
  private taskOf(
    method: string,
    params: Record<string, unknown>,
    owner: object | undefined,
  ): Followed | undefined {
    if (owner !== undefined) return this.byOwner.get(owner);
    if (typeof params.taskId === "string") return this.byTaskId.get(params.taskId);
    if (method === Method.listen) {
      for (const taskId of listenIds(params)) {
        const trace = this.byTaskId.get(taskId);
        if (trace instanceof TaskTrace) return trace;
      }
    }
    return undefined;
  }

  /** A listen carries many tasks: it is linked to each traced one's span. */
  private listenLinks(params: Record<string, unknown>): Otel.Link[] {
    const links: Otel.Link[] = [];
    for (const taskId of listenIds(params)) {
      const trace = this.byTaskId.get(taskId);
      if (trace instanceof TaskTrace) links.push({ context: trace.span.spanContext() });
    }
    return links;
  }

  /** The attributes of `mcp.client.operation.duration` (kept per tool and method once the connection is known). */
  private measuredAttributes(method: string, toolName: string | undefined): Otel.Attributes {
    const attributes: Otel.Attributes = { [Attr.mcpMethodName]: method, ...this.connectionAttributesNow() };
    if (toolName !== undefined) attributes[Attr.genAiToolName] = toolName;
    if (method === Method.toolsCall) attributes[Attr.genAiOperationName] = EXECUTE_TOOL;
    if (this.connectionAttributes === undefined) return attributes; // the probe: not negotiated yet
    let byMethod = this.measuredByTool.get(toolName);
    if (byMethod === undefined) this.measuredByTool.set(toolName, (byMethod = new Map()));
    byMethod.set(method, Object.freeze(attributes));
    return attributes;
  }

  /** Transport, server address and, once negotiated, the protocol version. */
  private connectionAttributesNow(): Otel.Attributes {
    if (this.connectionAttributes !== undefined) return this.connectionAttributes;
    const { session, url } = this.connection;
    const attributes: Otel.Attributes = {};
    if (session.transportKind === "stdio") {
      attributes[Attr.networkTransport] = "pipe";
    } else {
      attributes[Attr.networkTransport] = "tcp";
      attributes[Attr.networkProtocolName] = "http";
    }
    if (url !== undefined) Object.assign(attributes, serverAddress(url));
    const version = session.server?.protocolVersion;
    if (version === undefined) return attributes; // the probe: not negotiated yet
    attributes[Attr.mcpProtocolVersion] = version;
    this.connectionAttributes = Object.freeze(attributes);
    return attributes;
  }
}

/** Files a silent task's id while its handle lives, so requests naming the id are left alone too. */
function silentWatcher(byTaskId: Map<string, Followed>): TaskWatcher<CallToolResult> {
  const nothing = () => {};
  return {
    task: (taskId) => void byTaskId.set(taskId, SILENT),
    settled: ({ taskId }: TaskOutcome<CallToolResult>) => {
      if (taskId !== undefined && byTaskId.get(taskId) === SILENT) byTaskId.delete(taskId);
    },
    update: nothing,
    input: nothing,
    inputUnanswered: nothing,
    retry: nothing,
  };
}

function listenIds(params: Record<string, unknown>): string[] {
  const notifications = params.notifications as { taskIds?: unknown } | undefined;
  const ids = notifications?.taskIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
}

/** `server.address` and `server.port` of an HTTP(S) URL (the default port when it names none). */
function serverAddress(url: string): Otel.Attributes {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  const host = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname;
  const port = parsed.port !== "" ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
  return { [Attr.serverAddress]: host, [Attr.serverPort]: port };
}
