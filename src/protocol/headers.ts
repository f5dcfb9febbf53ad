/**
 * The Streamable HTTP routing headers of revision 2026-07-28: `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name`. Servers reject requests whose headers disagree with the body, and load balancers route a task's
 * `tasks/*` requests by `Mcp-Name`, so these are part of correctness, not decoration.
 *
 * The v2 SDK transport derives them from the body itself; the v1 transport (2025-11-25 only) does not, so
 * `withRoutingHeaders()` wraps its `fetch` and adds them. Web-standard APIs only: this runs in browsers too.
 */
import { MetaKey, Method } from "./constants.js";

/** The `fetch` shape both SDK transports accept as their `fetch` option. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export const HeaderName = {
  protocolVersion: "mcp-protocol-version",
  method: "mcp-method",
  name: "mcp-name",
} as const;

/** Which request parameter `Mcp-Name` mirrors, per method. */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  [Method.toolsCall]: "name",
  "prompts/get": "name",
  "resources/read": "uri",
  [Method.tasksGet]: "taskId",
  [Method.tasksUpdate]: "taskId",
  [Method.tasksCancel]: "taskId",
};

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";

/**
 * Encodes a value for an `Mcp-*` header. A plain, header-safe ASCII value passes unchanged; anything else
 * (non-ASCII, control characters including tab, leading or trailing whitespace, the empty string, or a value
 * that itself looks like the sentinel) becomes `=?base64?{base64 of the UTF-8 bytes}?=`.
 */
export function encodeHeaderValue(value: string): string {
  return isHeaderSafe(value) ? value : `${SENTINEL_PREFIX}${utf8ToBase64(value)}${SENTINEL_SUFFIX}`;
}

/** Reverses `encodeHeaderValue`. Returns undefined for a sentinel whose payload is not valid base64 UTF-8. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!isSentinel(value)) return value;
  const payload = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  try {
    const binary = atob(payload);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function isHeaderSafe(value: string): boolean {
  if (value.length === 0 || isSentinel(value)) return false;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  if (first === 0x20 || last === 0x20) return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
}

function isSentinel(value: string): boolean {
  return (
    value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length &&
    value.startsWith(SENTINEL_PREFIX) &&
    value.endsWith(SENTINEL_SUFFIX)
  );
}

function utf8ToBase64(value: string): string {
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The routing headers for one JSON-RPC message, or undefined when it is not a request carrying the 2026-07-28
 * envelope (notifications, responses, and legacy-era requests get none, as with the v2 SDK).
 */
export function routingHeaders(message: unknown): Record<string, string> | undefined {
  if (!isRecord(message) || typeof message.method !== "string" || message.id === undefined) return undefined;
  const params = isRecord(message.params) ? message.params : undefined;
  const meta = params && isRecord(params._meta) ? params._meta : undefined;
  const version = meta?.[MetaKey.protocolVersion];
  if (typeof version !== "string") return undefined;
  const headers: Record<string, string> = {
    [HeaderName.protocolVersion]: version,
    [HeaderName.method]: message.method,
  };
  const source = NAME_SOURCE[message.method];
  const name = source === undefined ? undefined : params?.[source];
  if (typeof name === "string") headers[HeaderName.name] = encodeHeaderValue(name);
  return headers;
}

/**
 * Wraps `fetch` so every POSTed JSON-RPC request carries the routing headers, unless the caller (or the
 * transport) already set them. This is what lets the v1 SDK's transport speak 2026-07-28:
 * `new StreamableHTTPClientTransport(url, { fetch: withRoutingHeaders() })`.
 */
export function withRoutingHeaders(fetchImpl?: FetchLike): FetchLike {
  return (url, init) => {
    // Resolved per call, so a fetch patched later (test interceptors, polyfills) is still used.
    const next = fetchImpl ?? globalThis.fetch;
    const derived =
      init?.method === "POST" && typeof init.body === "string" ? headersFor(init.body) : undefined;
    if (derived === undefined) return next(url, init);
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(derived)) {
      if (!headers.has(name)) headers.set(name, value);
    }
    return next(url, { ...init, headers });
  };
}

function headersFor(body: string): Record<string, string> | undefined {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  return routingHeaders(message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
