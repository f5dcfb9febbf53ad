/**
 * OpenTelemetry SDK pieces for the telemetry tests: an in-memory span exporter behind a simple span processor,
 * an in-memory metric reader, and ways to read what they hold (span trees, data points, `_meta` trace context).
 */
import type { Attributes } from "@opentelemetry/api";
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
  type MetricData,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import type { RecordedRequest } from "mcp-tasks/testing";

/** Keeps what the meter provider collected until `collect()` is called. */
class InMemoryMetricReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export interface Otel {
  exporter: InMemorySpanExporter;
  tracerProvider: BasicTracerProvider;
  meterProvider: MeterProvider;
  spans(): ReadableSpan[];
  /** One metric as collected now, by name; undefined when it recorded nothing. */
  metric(name: string): Promise<MetricData | undefined>;
  /** The data points of one metric, by name (empty when it recorded nothing). */
  points(name: string): Promise<DataPoint<number | Histogram>[]>;
}

export function inMemoryOtel(): Otel {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new InMemoryMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    exporter,
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    async metric(name: string) {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((candidate) => candidate.descriptor.name === name);
    },
    async points(name: string) {
      return ((await this.metric(name))?.dataPoints ?? []) as DataPoint<number | Histogram>[];
    },
  };
}

export const id = (span: ReadableSpan): string => span.spanContext().spanId;
export const traceOf = (span: ReadableSpan): string => span.spanContext().traceId;
export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

/** The spans whose parent is `parent`, oldest first. */
export function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  return spans
    .filter((span) => parentOf(span) === id(parent))
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

/** The one span with this name and kind (1 CLIENT, 2 SERVER…); fails loudly when there is not exactly one. */
export function only(spans: readonly ReadableSpan[], name: string, kind?: number): ReadableSpan {
  const found = spans.filter((span) => span.name === name && (kind === undefined || span.kind === kind));
  if (found.length !== 1) {
    throw new Error(
      `expected one span "${name}", found ${found.length}: ${spans.map((s) => s.name).join(", ")}`,
    );
  }
  return found[0] as ReadableSpan;
}

/** The CLIENT span of the request with this JSON-RPC id. */
export function clientSpanFor(spans: readonly ReadableSpan[], requestId: unknown): ReadableSpan | undefined {
  return spans.find((span) => span.kind === CLIENT && span.attributes["jsonrpc.request.id"] === requestId);
}

/** The SERVER span of the request with this JSON-RPC id. */
export function serverSpanFor(spans: readonly ReadableSpan[], requestId: unknown): ReadableSpan | undefined {
  return spans.find((span) => span.kind === SERVER && span.attributes["jsonrpc.request.id"] === requestId);
}

export const INTERNAL = 0;
export const SERVER = 1;
export const CLIENT = 2;

/** A request's `_meta`, as the server received it. */
export function metaOf(request: RecordedRequest): Record<string, unknown> {
  const params = (request.body as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params;
  return params?._meta ?? {};
}

/** The trace id and parent span id of a `traceparent` value. */
export function traceparentOf(request: RecordedRequest): { traceId: string; parentId: string } | undefined {
  const value = metaOf(request).traceparent;
  if (typeof value !== "string") return undefined;
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(value);
  if (match === null) throw new Error(`not a sampled W3C traceparent: ${value}`);
  return { traceId: match[1] as string, parentId: match[2] as string };
}

export const TRACE_KEYS = ["traceparent", "tracestate", "baggage"];

/** The sum of a counter's data points whose attributes include `match`. */
export function sumOf(points: DataPoint<number | Histogram>[], match: Attributes = {}): number {
  return points
    .filter((point) => Object.entries(match).every(([key, value]) => point.attributes[key] === value))
    .reduce((total, point) => total + (typeof point.value === "number" ? point.value : point.value.count), 0);
}
