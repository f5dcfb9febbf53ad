/**
 * The `telemetry` option of `TaskClient.connect`: a plug-in made by `telemetry()` of `mcp-tasks/telemetry`. It is
 * an entry of its own because the client's OpenTelemetry code (spans, metrics, trace propagation) is a tenth of the
 * main entry: a one-file bundle (esbuild without splitting inlines a lazy `import()`) of a client without
 * telemetry should not carry it.
 */
import type { ClientTelemetry, TracedConnection } from "./types.js";

/**
 * Makes the telemetry of one connection.
 * @internal
 */
export type TelemetryFactory = (connection: TracedConnection) => ClientTelemetry;

/**
 * OpenTelemetry for a client: the `telemetry` option of `TaskClient.connect`. Make one with `telemetry({ … })`
 * from `mcp-tasks/telemetry`.
 */
export interface ConnectionTelemetry {
  /** What the plug-in records (`"opentelemetry"`). */
  readonly kind: "opentelemetry";
  /**
   * Loads what the plug-in needs (`@opentelemetry/api`) and makes each connection's telemetry.
   * @internal
   */
  start(): Promise<TelemetryFactory>;
}

const MOVED =
  'import { telemetry } from "mcp-tasks/telemetry" and pass `telemetry: telemetry()` (or `telemetry({ tracerProvider, … })`)';

/** The option checked: a `TypeError` for the forms it had before the plug-in (`true`, an options object). */
export function checkTelemetry(value: unknown): ConnectionTelemetry | undefined {
  if (value === undefined || value === false) return undefined;
  const candidate = value as Partial<Record<string, unknown>> | null;
  if (typeof candidate === "object" && candidate !== null && typeof candidate.start === "function") {
    return value as ConnectionTelemetry;
  }
  throw new TypeError(
    value === true || (typeof value === "object" && value !== null)
      ? `TaskClient: \`telemetry\` now takes the plug-in of mcp-tasks/telemetry: ${MOVED}`
      : `TaskClient: \`telemetry\` must be made by telemetry() of mcp-tasks/telemetry: ${MOVED}`,
  );
}
