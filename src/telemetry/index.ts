/**
 * `mcp-tasks/telemetry`: OpenTelemetry for `TaskClient`. Spans for every call's whole life and for its requests,
 * the MCP semantic conventions' client metric plus task-level ones, and W3C trace context in every request's
 * `_meta`:
 *
 * ```ts
 * import { TaskClient } from "mcp-tasks";
 * import { telemetry } from "mcp-tasks/telemetry";
 *
 * const client = await TaskClient.connect(url, { telemetry: telemetry({ tracerProvider }) });
 * ```
 *
 * An entry of its own so that a client without telemetry carries none of this code, whatever its bundler does;
 * `@opentelemetry/api` (an optional peer dependency) loads when a client connects with it.
 *
 * @module mcp-tasks/telemetry
 */
import type { ConnectionTelemetry } from "mcp-tasks";
import type { TelemetryPlugin } from "./connection-telemetry.js";
import { OtelClientTelemetry } from "./client-telemetry.js";
import { loadOtelApi } from "./load-api.js";
import { resolveTelemetryOptions, type TelemetryOptions } from "./options.js";
import type { OtelApi } from "./propagation.js";

export type { MeterProviderLike, PollSpans, TelemetryOptions, TracerProviderLike } from "./options.js";

/**
 * OpenTelemetry for a client: pass the result as `TaskClient.connect(target, { telemetry })`. Without options it
 * uses the global tracer and meter providers of `@opentelemetry/api`, which the client imports by name when it
 * connects (a bundled page passes the module as `api`). Throws a `TypeError` (or `RangeError`) at once for an
 * option it cannot use. Not available through `tasksFor`.
 */
export function telemetry(options: TelemetryOptions = {}): ConnectionTelemetry {
  const resolved = resolveTelemetryOptions(options);
  const plugin: TelemetryPlugin = {
    kind: "opentelemetry",
    start: async () => {
      const api =
        (resolved.api as OtelApi | undefined) ?? (await loadOtelApi("TaskClient's `telemetry` option"));
      return (connection) => new OtelClientTelemetry(api, resolved, connection);
    },
  };
  return plugin;
}
