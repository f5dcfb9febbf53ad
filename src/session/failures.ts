/**
 * Turns whatever a transport throws into one of our typed errors. The SDK transports report HTTP failures as
 * their own error classes (v2 `SdkHttpError` with `status` and the body in `data.text`; v1 a
 * `StreamableHTTPError` whose `code` is the status and whose message ends with the body), network failures as
 * `TypeError`, an unparsable body as `SyntaxError`, and a body that is not JSON-RPC as a `ZodError`. This is
 * the one place that reads those shapes, so the rest of the library sees `RpcError`, `TransportError` or
 * `ProtocolError` only.
 */
import type { DiscoverResult, Implementation } from "../schema/index.js";
import { MetaKey } from "../protocol/constants.js";
import { errorFromRpc } from "../protocol/codec.js";
import { McpTasksError, ProtocolError, TransportError } from "../protocol/errors.js";

/** Whether an HTTP status is worth retrying: 5xx, 429 Too Many Requests and 408 Request Timeout. */
export function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/**
 * Reads an HTTP `Retry-After` value, in milliseconds from `now`: either delay-seconds or an HTTP-date.
 * Returns undefined for a missing or unreadable value; a date in the past means "now" (0).
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
  }
  // Every HTTP-date form starts with the day name; this keeps Date.parse's leniency ("1.5", "-5") out.
  const at = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Failures some request (or a sender waiting on `send()`) already owns, with their causes: a transport that also
 * reports them on `onerror` must not have them reported a second time as faults nobody owns. Weak, so nothing is
 * kept alive by being here.
 */
const claimed = new WeakSet<object>();

/** Marks `error` (and the errors in its `cause` chain) as owned by whoever received it from `send()`. */
export function claimFailure(error: unknown): void {
  let current = error;
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    claimed.add(current);
    current = (current as { cause?: unknown }).cause;
  }
}

/** Whether `error` was claimed by `claimFailure`. */
export function isClaimedFailure(error: unknown): boolean {
  return typeof error === "object" && error !== null && claimed.has(error);
}

/** The error a request rejects with when its transport's `send()` threw `error`. */
export function requestFailure(method: string, error: unknown): McpTasksError {
  if (error instanceof McpTasksError) return error;
  const http = httpFailure(error);
  if (http !== undefined) {
    const rpc = http.body === undefined ? undefined : rpcErrorInBody(http.body);
    if (rpc !== undefined && !isTransientStatus(http.status)) return errorFromRpc(method, rpc);
    return new TransportError(`${method}: the server answered HTTP ${http.status}`, {
      status: http.status,
      transient: isTransientStatus(http.status),
      cause: error,
    });
  }
  const name = error instanceof Error ? error.name : undefined;
  if (name === "ZodError") {
    return new ProtocolError("the server's answer is not a valid JSON-RPC message", method, undefined, {
      cause: error,
    });
  }
  if (name === "SyntaxError") {
    // A garbled or cut-off body: nothing was answered, and the next attempt may well get a whole one.
    return new TransportError(`${method}: the server's answer is not valid JSON`, {
      transient: true,
      cause: error,
    });
  }
  return new TransportError(`${method}: ${error instanceof Error ? error.message : String(error)}`, {
    transient: isNetworkFailure(error),
    cause: error,
  });
}

/** Network-level failures: fetch's `TypeError`, aborted or timed-out fetches, and broken pipes or sockets. */
function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "TypeError" || error.name === "AbortError" || error.name === "TimeoutError") return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && NETWORK_CODES.has(code);
}

const NETWORK_CODES: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
]);

/** The status and body of an SDK HTTP error, if `error` is one. */
function httpFailure(error: unknown): { status: number; body: string | undefined } | undefined {
  if (!(error instanceof Error)) return undefined;
  const record = error as Error & { status?: unknown; code?: unknown; data?: { text?: unknown } };
  // v2: SdkHttpError (also an auth-layer 401/403), status as a property, body in data.text.
  if (typeof record.status === "number") {
    return {
      status: record.status,
      body: typeof record.data?.text === "string" ? record.data.text : undefined,
    };
  }
  // v1: StreamableHTTPError, status as `code`, body at the end of the message.
  const v1 = /^Streamable HTTP error: Error POSTing to endpoint: ([\s\S]*)$/.exec(error.message);
  if (typeof record.code === "number" && record.code >= 400 && record.code <= 599) {
    return { status: record.code, body: v1?.[1] };
  }
  if (error.name === "UnauthorizedError") return { status: 401, body: undefined };
  return undefined;
}

/** The `error` member of a JSON-RPC error response in an HTTP body, if the body is one. */
export function rpcErrorInBody(body: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const error = (parsed as { error?: unknown }).error;
  return typeof error === "object" && error !== null ? error : undefined;
}

/**
 * The task a request is about, for `tasks/*` methods. Errors of such a request may quote the id (server text,
 * an HTTP body); the session redacts it there, so every caller (polls, cancel, input, retries) is covered.
 */
export function taskIdOf(method: string, params: Record<string, unknown>): string | undefined {
  return method.startsWith("tasks/") && typeof params.taskId === "string" ? params.taskId : undefined;
}

export function closedError(method: string): TransportError {
  return new TransportError(`${method}: the session is closed`, { transient: false });
}

/** 2026-07-28 servers put their identity in `_meta` of each result; older drafts put it in the discover body. */
export function serverInfoOf(discover: DiscoverResult): Implementation | undefined {
  const body = discover as DiscoverResult & { serverInfo?: unknown };
  const candidate = (body.serverInfo ?? discover._meta?.[MetaKey.serverInfo]) as Implementation | undefined;
  return typeof candidate?.name === "string" && typeof candidate.version === "string" ? candidate : undefined;
}
