/**
 * `mcp-tasks-server --otel`: the server's spans, one JSON line each on stderr as they end (stdout may be the
 * protocol channel), through a tracer provider of `@opentelemetry/sdk-trace-base`. An app that wants its own
 * exporter passes `tracerProvider` to `startTaskServer` instead.
 */
import type * as SdkTraceBase from "@opentelemetry/sdk-trace-base";
import type { TracerProviderLike } from "../telemetry/options.js";

const SDK_PACKAGE = "@opentelemetry/sdk-trace-base";
const KINDS = ["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];

/** One ended span as a line: ids, name, kind, timing, attributes and status. */
export function spanLine(span: SdkTraceBase.ReadableSpan): string {
  const [seconds, nanos] = span.startTime;
  return JSON.stringify({
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    name: span.name,
    kind: KINDS[span.kind],
    start: new Date(seconds * 1000 + nanos / 1e6).toISOString(),
    durationMs: span.duration[0] * 1000 + span.duration[1] / 1e6,
    attributes: span.attributes,
    status: span.status,
  });
}

export async function stderrTracerProvider(write: (line: string) => void): Promise<TracerProviderLike> {
  let sdk: typeof SdkTraceBase;
  try {
    // A variable specifier: the package is loaded at run time, never bundled into mcp-tasks/testing.
    const specifier = SDK_PACKAGE;
    sdk = (await import(/* @vite-ignore */ specifier)) as typeof SdkTraceBase;
  } catch (error) {
    throw new Error(
      `--otel needs ${SDK_PACKAGE} and @opentelemetry/api: npm install --save-dev ${SDK_PACKAGE} @opentelemetry/api`,
      { cause: error },
    );
  }
  const exporter: SdkTraceBase.SpanExporter = {
    export(spans, done) {
      for (const span of spans) write(`${spanLine(span)}\n`);
      done({ code: 0 });
    },
    shutdown: async () => undefined,
  };
  return new sdk.BasicTracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor(exporter)] });
}
