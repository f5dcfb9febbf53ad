/**
 * `@opentelemetry/api` is an optional peer dependency, imported only when telemetry is switched on. The
 * specifier is kept in a variable so that bundlers leave the import alone: an app bundled without the package
 * ships none of it and builds without it, and one that turns telemetry on resolves it at run time.
 */
import type { OtelApi } from "./propagation.js";

export const OTEL_API_PACKAGE = "@opentelemetry/api";

let loading: Promise<OtelApi> | undefined;

/** The API, loaded once; a missing package fails with what to install. */
export function loadOtelApi(who: string): Promise<OtelApi> {
  loading ??= importApi().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading.catch((error: unknown) => {
    throw explainMissingApi(error, who);
  });
}

async function importApi(): Promise<OtelApi> {
  const specifier = OTEL_API_PACKAGE;
  const loaded = (await import(/* @vite-ignore */ specifier)) as OtelApi & { default?: OtelApi };
  // From CommonJS code the namespace may hold the module under `default` only.
  return typeof loaded.trace?.getTracer === "function" ? loaded : (loaded.default as OtelApi);
}

function explainMissingApi(error: unknown, who: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : "";
  const missing =
    (code === "ERR_MODULE_NOT_FOUND" ||
      code === "MODULE_NOT_FOUND" ||
      message.includes("Failed to resolve")) &&
    message.includes(OTEL_API_PACKAGE);
  if (!missing) return error;
  return new Error(
    `${who} needs ${OTEL_API_PACKAGE}, an optional peer dependency of mcp-tasks that is not installed. ` +
      `Install it next to mcp-tasks: npm install ${OTEL_API_PACKAGE}`,
    { cause: error },
  );
}
