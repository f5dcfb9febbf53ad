/**
 * The `telemetry` option of `TaskClient.connect`: a plug-in made by `telemetry()` of `mcp-tasks/telemetry`. It is
 * an entry of its own because the client's OpenTelemetry code (spans, metrics, trace propagation) is a tenth of the
 * main entry: a one-file bundle (esbuild without splitting inlines a lazy `import()`) of a client without
 * telemetry should not carry it.
 */
import type { ClientTelemetry, TracedConnection } from "./types.js";

/** Makes the telemetry of one connection. */
export type TelemetryFactory = (connection: TracedConnection) => ClientTelemetry;

/**
 * OpenTelemetry for a client: the `telemetry` option of `TaskClient.connect`. Make one with `telemetry({ … })`
 * from `mcp-tasks/telemetry`.
 */
export interface ConnectionTelemetry {
  /** What the plug-in records (`"opentelemetry"`). */
  readonly kind: "opentelemetry";
  /**
   * Loads what the plug-in needs (`@opentelemetry/api`); resolves with what makes each connection's telemetry
   * (typed for the client in `TelemetryPlugin`, so the public declarations carry none of its internals).
   * @internal
   */
  start(): Promise<unknown>;
}

/** A plug-in as the client calls it and `telemetry()` makes it. */
export interface TelemetryPlugin extends ConnectionTelemetry {
  start(): Promise<TelemetryFactory>;
}

/** The option checked: a `TypeError` for anything else, such as the forms it had before the plug-in. */
export function checkTelemetry(value: unknown): TelemetryPlugin | undefined {
  if (value === undefined || value === false) return undefined;
  const candidate = value as Partial<Record<string, unknown>> | null;
  if (typeof candidate === "object" && candidate !== null && typeof candidate.start === "function") {
    return value as TelemetryPlugin;
  }
  // `true` and an options object were the option's forms before the plug-in: the message shows the new one.
  throw new TypeError("TaskClient: `telemetry` must be `telemetry()` of mcp-tasks/telemetry, or false");
}
