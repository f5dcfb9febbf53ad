/**
 * The Node HTTP path: every request of a URL connection over undici's dispatcher API (`Agent.request`, the HTTP
 * client Node itself ships) instead of the global `fetch`. On Node, `fetch` costs five to seven times what the
 * wire does per request (its Request and Response objects, its web streams, its fetch algorithm), and a client
 * that polls many tasks spends nearly all of its CPU there (docs/performance.md, "Over HTTP").
 *
 * Reached only through the package import `#http` (package.json "imports"), which resolves here under the `node`
 * condition and to ./http-undici-unavailable.ts for Bun, Deno, browsers and Workers, so no other runtime's bundle
 * contains undici. A `fetch` the caller passes wins over this path; `MCP_TASKS_HTTP=fetch` forces `fetch` for
 * every connection of the process (`=undici` makes this path required).
 *
 * Owner of: which dispatcher a request goes through, and how many connections it keeps (and, for the transport
 * on this path, the cheaper text of a request: ./request-text.ts). Everything else stays
 * one code for both paths, above this `FetchLike` (./http-transport.ts): redirects (the dispatcher API follows
 * none, so ./http-redirects.ts decides every one), error mapping, bounds, SSE, headers, auth. What this function
 * keeps of `fetch`'s contract for that code:
 * - an abort rejects with the signal's reason, before or during the request;
 * - a network failure is a `TypeError` whose `cause` is the socket's error (./http-resend.ts reads its code);
 * - a compressed body is decompressed and counted as such (./http-undici-response.ts).
 *
 * Connections: the polls (`tasks/get`, named by the 2026 `Mcp-Method` header) share a keep-alive pool per origin
 * of at most `connections` sockets, the client's `maxInFlight`: the scheduler never has more polls out than that.
 * Every other request (streams that stay open for a task's life, listens, tool calls, OAuth) goes through a second
 * pool without a bound, as with `fetch`, so a long-lived stream never waits behind polls, nor polls behind it.
 */
import { Agent, type Dispatcher } from "undici";
import type { FetchLike } from "../protocol/headers.js";
import { Method } from "../protocol/constants.js";
import { toWebResponse, UndiciResponse } from "./http-undici-response.js";
import { RequestText } from "./request-text.js";
import type { OutgoingMessage } from "./types.js";

/** The environment variable that picks the path: "fetch", "undici", or unset (undici on Node). */
export const HTTP_PATH_VARIABLE = "MCP_TASKS_HTTP";

/** The requests of one connection over undici, and how to let go of its sockets. */
export interface NodeHttp {
  /** For the chain under this library's own transport: answers are `UndiciResponse`s. */
  fetch: FetchLike;
  /** For code outside this library (the SDK's transport on the OAuth path): answers are real `Response`s. */
  webFetch: FetchLike;
  /** A message's JSON text, made cheaper than `JSON.stringify` for requests that share one envelope. */
  serialize(message: OutgoingMessage): string;
  /** Closes every socket; requests still out fail. */
  close(): Promise<void>;
  /** `transport`, whose `close()` now closes this path's sockets too, once its requests are aborted. */
  owns<T extends { close(): Promise<void> }>(transport: T): T;
}

/** Without a client's `maxInFlight` (a transport built on its own): the client's default. */
const DEFAULT_POLL_CONNECTIONS = 64;

/** The undici path with `connections` pooled for polls, or undefined when `MCP_TASKS_HTTP=fetch` asks for `fetch`. */
export function nodeHttp(options: { connections: number | undefined }): NodeHttp | undefined {
  // Bun answers `import "undici"` with a stub of its own (no dispatcher API); its `fetch` is fast anyway. Bun
  // resolves `#http` to the stub file by its `bun` condition; this covers a bundle built with the `node` one.
  if (process.versions.bun !== undefined) return undefined;
  const chosen = process.env[HTTP_PATH_VARIABLE];
  if (chosen === "fetch") return undefined;
  if (chosen !== undefined && chosen !== "" && chosen !== "undici") {
    throw new TypeError(`${HTTP_PATH_VARIABLE} must be "fetch" or "undici", got ${JSON.stringify(chosen)}`);
  }
  const connections = options.connections ?? DEFAULT_POLL_CONNECTIONS;
  const bounded = Number.isFinite(connections) && connections >= 1;
  const polls = new Agent({ connections: bounded ? Math.floor(connections) : null });
  const others = new Agent();
  const target = new TargetCache();
  const fetch: FetchLike = (input, init) => request(input, init, polls, others, target);
  const close = async () => {
    await Promise.all([polls.destroy(), others.destroy()]);
  };
  const text = new RequestText();
  return {
    fetch,
    webFetch: async (input, init) => toWebResponse(await fetch(input, init)),
    serialize: (message) => text.of(message),
    close,
    owns(transport) {
      const closeTransport = transport.close.bind(transport);
      transport.close = async () => {
        try {
          await closeTransport();
        } finally {
          await close().catch(() => undefined);
        }
      };
      return transport;
    },
  };
}

async function request(
  input: string | URL,
  init: RequestInit | undefined,
  polls: Dispatcher,
  others: Dispatcher,
  target: TargetCache,
): Promise<Response> {
  const body = init?.body;
  // Bodies the dispatcher API takes as they are; any other kind (a Blob, a FormData, a stream) is `fetch`'s.
  if (!(body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array)) {
    if (!(body instanceof URLSearchParams)) return globalThis.fetch(input, init);
  }
  const url = typeof input === "string" ? new URL(input) : input;
  target.read(url);
  const method = init?.method?.toUpperCase() ?? "GET";
  const headers = headerPairs(init?.headers);
  let payload: string | Uint8Array | null = null;
  if (body instanceof URLSearchParams) {
    payload = body.toString();
    if (!hasHeader(headers, "content-type"))
      headers.push("content-type", "application/x-www-form-urlencoded;charset=UTF-8");
  } else if (body !== undefined && body !== null) {
    payload = body as string | Uint8Array;
  }
  const signal = init?.signal ?? undefined;
  if (signal?.aborted === true) throw signal.reason;
  const dispatcher = method === "POST" && isPoll(headers) ? polls : others;
  let data: Dispatcher.ResponseData;
  try {
    data = await dispatcher.request({
      origin: target.origin,
      path: target.path,
      method: method as Dispatcher.HttpMethod,
      headers,
      body: payload,
      ...(signal !== undefined && { signal }),
    });
  } catch (error) {
    if (signal !== undefined && isAborted(signal)) throw signal.reason;
    throw new TypeError("HTTP request failed", { cause: error });
  }
  return new UndiciResponse(target.href, data, method) as unknown as Response;
}

/**
 * The origin and path of the URL last requested, read again only when the URL changes: every request of a
 * connection goes to its one endpoint, and each of `URL`'s getters makes a new string.
 */
class TargetCache {
  href = "";
  origin = "";
  path = "";

  read(url: URL): void {
    const href = url.href;
    if (href === this.href) return;
    this.href = href;
    this.origin = url.origin;
    this.path = url.pathname + url.search;
  }
}

/** Read through a call: the compiler takes `aborted` for what it was before the request's await. */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

/** The request's headers as the flat name/value list undici takes. */
function headerPairs(init: HeadersInit | undefined): string[] {
  const pairs: string[] = [];
  if (init === undefined) return pairs;
  if (init instanceof Headers) init.forEach((value, name) => pairs.push(name, value));
  else if (Array.isArray(init)) for (const [name, value] of init) pairs.push(name as string, value as string);
  else for (const name of Object.keys(init)) pairs.push(name, init[name] as string);
  return pairs;
}

function hasHeader(pairs: readonly string[], name: string): boolean {
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i]?.toLowerCase() === name) return true;
  return false;
}

/** A 2026 `tasks/get`: its `Mcp-Method` header names it (src/protocol/headers.ts sets it from the body). */
function isPoll(pairs: readonly string[]): boolean {
  for (let i = 0; i < pairs.length; i += 2) {
    if (pairs[i]?.toLowerCase() === "mcp-method") return pairs[i + 1] === Method.tasksGet;
  }
  return false;
}
