/**
 * mcp-tasks with `telemetry` on, driven like `ours`: over the API's global no-op tracer and meter (nothing
 * registered: what a library pays when its host has not set up OpenTelemetry), and over the SDK (a basic tracer
 * provider with a batch span processor whose exporter keeps a count in memory, and a meter provider with a
 * reader that is never collected; `pollSpans` at its default, so polls that succeed get no span).
 */
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { telemetry } from "../../src/telemetry/index.js";
import { driver } from "./ours.js";

export const oursOtelNoopDriver = driver("ours-otel-noop", { telemetry: telemetry() });

/** Counts what it is given; keeping every span would measure the exporter's memory, not the client's. */
class CountingExporter implements SpanExporter {
  exported = 0;
  export(spans: Parameters<SpanExporter["export"]>[0], done: Parameters<SpanExporter["export"]>[1]): void {
    this.exported += spans.length;
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

class IdleReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export const oursOtelSdkDriver = driver("ours-otel-sdk", {
  telemetry: telemetry({
    tracerProvider: new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(new CountingExporter())],
    }),
    meterProvider: new MeterProvider({ readers: [new IdleReader()] }),
  }),
});
