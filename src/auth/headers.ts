/**
 * The `headers` option of `TaskClient.connect`: credentials (or anything else) sent on every HTTP request of the
 * connection — calls, polls, `tasks/update`, `tasks/cancel`, listen streams, `tools/list`. They go to the MCP
 * endpoint only: never to an OAuth server, and never into a ref, a store, an event, a log line or an error
 * message (an invalid header is reported by name, never by value).
 */
import type { FetchLike } from "../protocol/headers.js";
import { AuthError } from "../protocol/errors.js";

/**
 * Static headers, or a function called before every HTTP request for the headers of that request. Either may be
 * any `HeadersInit`: a plain object, a `Headers`, or an array of `[name, value]` pairs.
 */
export type ConnectionHeaders = HeadersInit | (() => HeadersInit | Promise<HeadersInit>);

/** The option once checked: static headers read into a plain object, or the function as given. */
export type CheckedHeaders = Readonly<Record<string, string>> | (() => HeadersInit | Promise<HeadersInit>);

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

const SHAPE =
  "a plain object of header names to string values, a Headers, or an array of [name, value] pairs";

/**
 * Reads any `HeadersInit` into a plain object, checking every header and naming the first bad one (by name only: a
 * value may be a secret). Names that differ only in case are one header, their values joined with ", " (as
 * `Headers` does). Returns the headers, or the problem as text. A `Headers` is recognised by shape (`forEach`,
 * `get`, `append`), so one from another realm or a polyfill counts too; any other object that is not plain is refused
 * rather than read as no headers.
 */
export function headersFromInit(headers: unknown): Record<string, string> | string {
  if (typeof headers !== "object" || headers === null) return `must be ${SHAPE}`;
  const read = new HeaderReader();
  if (Array.isArray(headers)) {
    for (const pair of headers as unknown[]) {
      if (!Array.isArray(pair) || pair.length !== 2) return `must be ${SHAPE} (an entry is not a pair)`;
      read.add(pair[0], pair[1]);
    }
  } else if (isHeadersLike(headers)) {
    headers.forEach((value, name) => read.add(name, value));
  } else {
    const proto = Object.getPrototypeOf(headers) as unknown;
    if (proto !== Object.prototype && proto !== null) return `must be ${SHAPE}`;
    for (const name of Object.keys(headers)) read.add(name, (headers as Record<string, unknown>)[name]);
  }
  return read.problem ?? read.headers();
}

function isHeadersLike(value: object): value is Headers {
  const like = value as { forEach?: unknown; get?: unknown; append?: unknown };
  return (
    typeof like.forEach === "function" && typeof like.get === "function" && typeof like.append === "function"
  );
}

/** Collects headers, keeping the first problem. */
class HeaderReader {
  problem: string | undefined;
  /** By lower-case name: the name as first given, and the value. */
  private readonly byName = new Map<string, [string, string]>();

  add(name: unknown, value: unknown): void {
    if (this.problem !== undefined) return;
    if (typeof name !== "string" || !TOKEN.test(name)) {
      this.problem = `${JSON.stringify(name)} is not a valid header name`;
    } else if (isReserved(name)) {
      this.problem = `${name} is set by the protocol and cannot be given`;
    } else if (typeof value !== "string") {
      this.problem = `the value of ${name} must be a string`;
    } else if (!FIELD_VALUE.test(value) || value !== value.trim()) {
      this.problem = `the value of ${name} is not a valid header value (line breaks, control characters or edge spaces)`;
    } else {
      const key = name.toLowerCase();
      const known = this.byName.get(key);
      this.byName.set(key, known === undefined ? [name, value] : [known[0], `${known[1]}, ${value}`]);
    }
  }

  headers(): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of this.byName.values()) headers[name] = value;
    return headers;
  }
}

/**
 * Checks the `headers` option at connect time: static headers are read into a plain object (from a `Headers` or
 * pairs too) and checked fully; a function is checked by type here, and its result on every request.
 */
export function checkConnectionHeaders(headers: unknown): CheckedHeaders | undefined {
  if (headers === undefined) return undefined;
  if (typeof headers === "function") return headers as () => HeadersInit | Promise<HeadersInit>;
  const read = headersFromInit(headers);
  if (typeof read === "string") throw new TypeError(`TaskClient: \`headers\`: ${read}`);
  return read;
}

/**
 * Wraps `fetchImpl` so every request carries the connection's headers. A header the transport already set on the
 * request (an `Authorization` from the OAuth provider of `auth`, which holds a token) is left as it is.
 */
export function withConnectionHeaders(fetchImpl: FetchLike, headers: CheckedHeaders): FetchLike {
  return async (url, init) => fetchImpl(url, await addConnectionHeaders(init, headers));
}

/** `init` with the connection's headers added where it has none of that name (see {@link withConnectionHeaders}). */
export async function addConnectionHeaders(
  init: RequestInit | undefined,
  headers: CheckedHeaders,
): Promise<RequestInit> {
  const extra = await headersFor(headers, methodOf(init));
  const merged = new Headers(init?.headers);
  for (const [name, value] of Object.entries(extra)) if (!merged.has(name)) merged.set(name, value);
  return { ...init, headers: merged };
}

async function headersFor(
  headers: CheckedHeaders,
  method: string,
): Promise<Readonly<Record<string, string>>> {
  if (typeof headers !== "function") return headers;
  let produced: unknown;
  try {
    produced = await headers();
  } catch (error) {
    throw new AuthError({ method, reason: "authorization_failed", cause: error });
  }
  const read = headersFromInit(produced);
  if (typeof read === "string") {
    throw new AuthError({
      method,
      reason: "authorization_failed",
      cause: new TypeError(`the \`headers\` function's result: ${read}`),
    });
  }
  return read;
}

/** The JSON-RPC method a POST carries, for error messages; the HTTP method otherwise. */
function methodOf(init: RequestInit | undefined): string {
  if (typeof init?.body === "string") {
    const method = /"method"\s*:\s*"([^"\\]{1,100})"/.exec(init.body)?.[1];
    if (method !== undefined) return method;
  }
  return init?.method ?? "GET";
}
