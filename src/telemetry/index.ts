/**
 * OpenTelemetry for `TaskClient` (the `telemetry` option): spans for every call's whole life and for its
 * requests, the MCP semantic conventions' client metric plus task-level ones, and W3C trace context in every
 * request's `_meta`. The client imports this module only when the option is on; it loads `@opentelemetry/api`.
 */
import { OtelClientTelemetry } from "./client-telemetry.js";
import { loadOtelApi } from "./load-api.js";
import type { ResolvedTelemetryOptions } from "./options.js";
import type { OtelApi } from "./propagation.js";
import type { ClientTelemetry, TracedConnection } from "./types.js";

/** Loads the API (failing with what to install when it is missing), then makes one client's telemetry. */
export async function clientTelemetryFactory(
  options: ResolvedTelemetryOptions,
): Promise<(connection: TracedConnection) => ClientTelemetry> {
  const api = (options.api as OtelApi | undefined) ?? (await loadOtelApi("TaskClient's `telemetry` option"));
  return (connection) => new OtelClientTelemetry(api, options, connection);
}
