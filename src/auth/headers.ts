/**
 * The `headers` option of `TaskClient.connect`: credentials (or anything else) sent on every HTTP request of the
 * connection — calls, polls, `tasks/update`, `tasks/cancel`, listen streams, `tools/list`. They go to the MCP
 * endpoint only: never to an OAuth server, and never into a ref, a store, an event, a log line or an error
 * message (an invalid header is reported by name, never by value).
 */
import type { FetchLike } from "../protocol/headers.js";
import { AuthError } from "../protocol/errors.js";

/** Static headers, or a function called before every HTTP request for the headers of that request. */
export type ConnectionHeaders =
  | Readonly<Record<string, string>>
  | (() => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>);

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII and inner spaces/tabs (RFC 9110 field-value), no CR, LF or NUL. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Headers the protocol owns: the routing headers the transport derives from each body, the session header, the
 * media types, and argument mirroring. A caller who set them would break routing, so they are refused.
 */
const RESERVED = new Set([
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "mcp-session-id",
  "content-type",
  "accept",
  "content-length",
  "last-event-id",
  "host",
]);

function isReserved(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED.has(lower) || lower.startsWith("mcp-param-");
}

/**
 * Checks a set of headers, naming the first bad one (by name only: a value may be a secret). Returns the problem,
 * or undefined when they are fine.
 */
export function headersProblem(headers: unknown): string | undefined {
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
    return "must be an object of header names to string values";
  }
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (!TOKEN.test(name)) return `${JSON.stringify(name)} is not a valid header name`;
    if (isReserved(name)) return `${name} is set by the protocol and cannot be given`;
    if (typeof value !== "string") return `the value of ${name} must be a string`;
    if (!FIELD_VALUE.test(value) || value !== value.trim()) {
      return `the value of ${name} is not a valid header value (line breaks, control characters or edge spaces)`;
    }
  }
  return undefined;
}

/** Checks the `headers` option at connect time (a static object fully; a function by type only). */
export function checkConnectionHeaders(headers: unknown): ConnectionHeaders | undefined {
  if (headers === undefined) return undefined;
  if (typeof headers === "function") return headers as ConnectionHeaders;
  const problem = headersProblem(headers);
  if (problem !== undefined) throw new TypeError(`TaskClient: \`headers\`: ${problem}`);
  return { ...(headers as Record<string, string>) };
}

/**
 * Wraps `fetchImpl` so every request carries the connection's headers. A header the transport already set on the
 * request (an `Authorization` from the OAuth provider of `auth`, which holds a token) is left as it is.
 */
export function withConnectionHeaders(fetchImpl: FetchLike, headers: ConnectionHeaders): FetchLike {
  return async (url, init) => {
    const extra = await headersFor(headers, methodOf(init));
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(extra)) if (!merged.has(name)) merged.set(name, value);
    return fetchImpl(url, { ...init, headers: merged });
  };
}

async function headersFor(headers: ConnectionHeaders, method: string): Promise<Record<string, string>> {
  if (typeof headers !== "function") return headers;
  let produced: unknown;
  try {
    produced = await headers();
  } catch (error) {
    throw new AuthError({ method, reason: "authorization_failed", cause: error });
  }
  const problem = headersProblem(produced);
  if (problem !== undefined) {
    throw new AuthError({
      method,
      reason: "authorization_failed",
      cause: new TypeError(`the \`headers\` function's result: ${problem}`),
    });
  }
  return produced as Record<string, string>;
}

/** The JSON-RPC method a POST carries, for error messages; the HTTP method otherwise. */
function methodOf(init: RequestInit | undefined): string {
  if (typeof init?.body === "string") {
    const method = /"method"\s*:\s*"([^"\\]{1,100})"/.exec(init.body)?.[1];
    if (method !== undefined) return method;
  }
  return init?.method ?? "GET";
}
