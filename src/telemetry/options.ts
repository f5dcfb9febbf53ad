/**
 * The `telemetry` option of `TaskClient.connect`. Its types are structural, so the declarations of `mcp-tasks`
 * compile without `@opentelemetry/api` installed; any `TracerProvider` and `MeterProvider` of the OpenTelemetry
 * API (the SDK's, the global one) fits them.
 */

/** An OpenTelemetry `TracerProvider` (from `@opentelemetry/api` or an SDK). */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): object;
}

/** An OpenTelemetry `MeterProvider` (from `@opentelemetry/api` or an SDK). */
export interface MeterProviderLike {
  getMeter(name: string, version?: string): object;
}

/**
 * Which `tasks/get` polls get a span of their own: `"all"`, only those that failed (`"errors"`, the default;
 * the span is recorded when the failure is known, with the poll's start time), or `"none"`. Polls without a
 * span still carry the task span's trace context and are counted in the metrics.
 */
export type PollSpans = "all" | "errors" | "none";

/** What `telemetry: { … }` sets; `telemetry: true` takes every default. */
export interface TelemetryOptions {
  /**
   * The `@opentelemetry/api` module (`import * as api from "@opentelemetry/api"`). Without it the client imports
   * the package by name when it connects, which a bundled app (a browser page) cannot do: pass it there.
   */
  api?: object;
  /** Where spans go. Default: the global tracer provider of `@opentelemetry/api`. */
  tracerProvider?: TracerProviderLike;
  /** Where metrics go. Default: the global meter provider of `@opentelemetry/api`. */
  meterProvider?: MeterProviderLike;
  /** Which polls get a span. Default `"errors"`. */
  pollSpans?: PollSpans;
  /**
   * Task ids in attributes are redacted like in log lines (`abcd…yz`: they are bearer-like secrets), and so are
   * HTTP session ids (`mcp.session.id`). `"full"` records both whole, for backends that must join a trace to the
   * task id or the session.
   */
  taskIds?: "redacted" | "full";
}

export interface ResolvedTelemetryOptions {
  api: object | undefined;
  tracerProvider: TracerProviderLike | undefined;
  meterProvider: MeterProviderLike | undefined;
  pollSpans: PollSpans;
  fullTaskIds: boolean;
}

/** Checks the option before any connection is made; undefined when telemetry is off. */
export function resolveTelemetryOptions(value: unknown): ResolvedTelemetryOptions | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true)
    return {
      api: undefined,
      tracerProvider: undefined,
      meterProvider: undefined,
      pollSpans: "errors",
      fullTaskIds: false,
    };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError("TaskClient: `telemetry` must be true, false or an object of telemetry options");
  }
  const { api, tracerProvider, meterProvider, pollSpans, taskIds } = value as Record<string, unknown>;
  if (
    api !== undefined &&
    !["trace", "context", "propagation", "metrics"].every((name) => hasObject(api, name))
  ) {
    throw new TypeError("TaskClient: `telemetry.api` must be the @opentelemetry/api module");
  }
  if (tracerProvider !== undefined && !hasMethod(tracerProvider, "getTracer")) {
    throw new TypeError("TaskClient: `telemetry.tracerProvider` must be a TracerProvider (with getTracer)");
  }
  if (meterProvider !== undefined && !hasMethod(meterProvider, "getMeter")) {
    throw new TypeError("TaskClient: `telemetry.meterProvider` must be a MeterProvider (with getMeter)");
  }
  if (pollSpans !== undefined && pollSpans !== "all" && pollSpans !== "errors" && pollSpans !== "none") {
    throw new RangeError('TaskClient: `telemetry.pollSpans` must be "all", "errors" or "none"');
  }
  if (taskIds !== undefined && taskIds !== "redacted" && taskIds !== "full") {
    throw new RangeError('TaskClient: `telemetry.taskIds` must be "redacted" or "full"');
  }
  return {
    api: api as object | undefined,
    tracerProvider: tracerProvider as TracerProviderLike | undefined,
    meterProvider: meterProvider as MeterProviderLike | undefined,
    pollSpans: pollSpans ?? "errors",
    fullTaskIds: taskIds === "full",
  };
}

function hasMethod(value: unknown, name: string): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Record<string, unknown>)[name] === "function"
  );
}

function hasObject(value: unknown, name: string): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Record<string, unknown>)[name] === "object"
  );
}
