/**
 * Observability: run one task with OpenTelemetry on and print its trace as a tree — the task's span, the client's
 * request spans and, when this example starts the reference server itself, the server's spans in the same trace.
 * Needs `@opentelemetry/api` and `@opentelemetry/sdk-trace-base`.
 */
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { TaskClient } from "mcp-tasks";
import { telemetry } from "mcp-tasks/telemetry";
import { runIfMain } from "./run-example.js";

// Spans end up in memory here; in an app this is where an OTLP exporter and a batch processor go.
const exporter = new InMemorySpanExporter();
export const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});

export async function traceTree(serverUrl: string, log: (line: string) => void = console.log): Promise<void> {
  exporter.reset();
  const client = await TaskClient.connect(serverUrl, { telemetry: telemetry({ tracerProvider }) });
  const outcome = await client.callTool("slow_compute", { seconds: 1 }).outcome();
  await client.close();
  const spans = exporter.getFinishedSpans();
  const task = spans.find((span) => span.name === "task slow_compute");
  log(`outcome: ${outcome.kind}`);
  if (task === undefined) return;
  const trace = spans.filter((span) => span.spanContext().traceId === task.spanContext().traceId);
  for (const line of treeLines(trace)) log(line);
}

const KINDS = ["internal", "server", "client", "producer", "consumer"];

/** One line per span, children under their parent in start order; events as `·` lines under their span. */
export function treeLines(spans: readonly ReadableSpan[]): string[] {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    const level = [...(children.get(parent) ?? [])].sort((a, b) => startMs(a) - startMs(b));
    for (const span of level) {
      const indent = "  ".repeat(depth);
      const error = span.attributes["error.type"];
      lines.push(
        `${indent}${span.name} (${KINDS[span.kind]})` +
          (error === undefined ? "" : ` error.type=${String(error)}`),
      );
      for (const event of span.events) {
        const status = event.attributes?.["mcp_tasks.task.status"];
        lines.push(`${indent}  · ${event.name}${status === undefined ? "" : ` ${String(status)}`}`);
      }
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

function startMs(span: ReadableSpan): number {
  return span.startTime[0] * 1000 + span.startTime[1] / 1e6;
}

await runIfMain(import.meta.url, (url) => traceTree(url), { tracerProvider });
