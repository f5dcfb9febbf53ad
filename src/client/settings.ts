/**
 * A client's settings: every option checked and defaulted once, before any connection is made, and the
 * session built from them.
 */
import { resolvePollTiming, resolveRetryTiming } from "../scheduler/timing.js";
import type { PollTiming, RetryTiming } from "../scheduler/types.js";
import { Session } from "../session/session.js";
import type { McpTransport } from "../session/types.js";
import type { TaskStore } from "../store/types.js";
import { capabilitiesFor } from "../input/index.js";
import { safeLogger, type Logger } from "../protocol/logging.js";
import { checkTelemetry, type TelemetryPlugin } from "../telemetry/connection-telemetry.js";
import { resolveClientOptions, type ResolvedClientOptions, type TaskClientOptions } from "./options.js";
import { checkConnectionHeaders } from "../auth/headers.js";
import { checkConnectionAuth } from "../auth/connection-auth.js";
import type { HttpTransportOptions } from "../session/http-transport.js";
import { hostHooksOf, type HostHooks } from "./host-hooks.js";

/** Every option checked and defaulted, once per client. */
export interface ClientSettings {
  options: ResolvedClientOptions;
  polling: PollTiming;
  retry: RetryTiming;
  log: Logger;
  store: TaskStore | undefined;
  adoptEveryMs: number | undefined;
  /** What a URL target's transport is built with: `headers`, `auth`. */
  http: HttpTransportOptions;
  /** Undefined when telemetry is off. */
  telemetry: TelemetryPlugin | undefined;
  /** Set when a `TaskHost` made the client (./host-hooks.ts). */
  host: HostHooks | undefined;
}

export function settingsOf(options: TaskClientOptions): ClientSettings {
  const log = safeLogger(options.logger);
  const http = httpOptions(options);
  if (http.auth !== undefined) http.log = log;
  return {
    options: resolveClientOptions(options),
    polling: resolvePollTiming(options.polling ?? {}),
    retry: resolveRetryTiming(options.retry ?? {}),
    log,
    store: checkStore(options.store),
    adoptEveryMs: adoptEvery(options),
    http,
    telemetry: checkTelemetry(options.telemetry),
    host: hostHooksOf(options),
  };
}

/** The HTTP-only options, checked; a caller mistake (a bad header, an `auth` that is not one) throws here. */
function httpOptions(options: TaskClientOptions): HttpTransportOptions {
  const http: HttpTransportOptions = {};
  const checked = checkConnectionHeaders(options.headers);
  if (checked !== undefined) http.headers = checked;
  const auth = checkConnectionAuth(options);
  if (auth !== undefined) {
    if (
      typeof checked === "object" &&
      Object.keys(checked).some((name) => name.toLowerCase() === "authorization")
    ) {
      throw new TypeError("TaskClient: give either an `Authorization` header or `auth`, not both");
    }
    http.auth = auth;
  }
  return http;
}

/** Whether any option only an HTTP connection can use was given. */
export function usesHttpOptions(settings: ClientSettings): boolean {
  return Object.keys(settings.http).length > 0;
}

/** The session every client talks through; it declares the input capabilities the host gave handlers for. */
export function sessionFor(transport: McpTransport, { options, log }: ClientSettings): Session {
  return new Session(transport, {
    clientInfo: options.clientInfo,
    capabilities: capabilitiesFor(options.inputHandlers),
    requestTimeoutMs: options.requestTimeoutMs,
    maxServerRequests: options.maxServerRequests,
    warn: (message) => log.warn(message),
  });
}

function checkStore(store: TaskStore | undefined): TaskStore | undefined {
  if (store === undefined) return undefined;
  const methods = ["put", "remove", "list"] as const;
  if (typeof store !== "object" || store === null || methods.some((m) => typeof store[m] !== "function")) {
    throw new TypeError("TaskClient: `store` must be a TaskStore (put, remove, list)");
  }
  return store;
}

function adoptEvery({ adopt, store }: TaskClientOptions): number | undefined {
  if (adopt === undefined || adopt === false) return undefined;
  if (store === undefined) throw new TypeError("TaskClient: `adopt` needs a `store`");
  const everyMs = adopt === true ? 1000 : adopt.everyMs;
  if (typeof everyMs !== "number" || !(everyMs > 0)) {
    throw new TypeError("TaskClient: `adopt.everyMs` must be a positive number");
  }
  return everyMs;
}
