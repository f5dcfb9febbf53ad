/**
 * Builds the Streamable HTTP transport for a URL target and the connection's options. Every request to the
 * endpoint goes through one function, {@link endpointFetch}, which takes these steps in this order (each step's
 * rule lives in the file named):
 *
 *   the request's `Mcp-Param-*` headers (request-headers.ts) → the connection's `headers` (src/auth/headers.ts) →
 *   the send: one resend on a dead pooled connection (http-resend.ts) over the caller's `fetch`, or else on Node
 *   undici's dispatcher API (http-undici.ts, behind `#http`), or else the global `fetch` → redirects followed
 *   within the endpoint's origin only (http-redirects.ts) → a 404 noted in a joined session → a 401/403 noted
 *   with its challenge → failures mapped (http-fetch.ts: a network failure or a failed POST's status)
 *
 * One function rather than a chain of wrappers: a poll pays one `async` step for all of them (each wrapper was
 * a promise and an await of its own on every request; docs/performance.md, "Over HTTP").
 *
 * With `join`, the transport sends in a session another connection opened (see ./streamable-http.ts), and a 404
 * from the endpoint (the transport spec's answer to a session the server has ended) is reported to `join.ended`
 * as it arrives, before the request that met it fails.
 *
 * A failed send that was about authorization becomes an `AuthError` (src/auth/failures.ts). Without an `auth`
 * plug-in the chain feeds this library's own transport (./streamable-http.ts) and nothing of OAuth runs; with one
 * (`oauth()` of `mcp-tasks/oauth`, src/auth/oauth/), the plug-in hands the chain to the SDK's transport, which runs
 * the flows. Nothing here imports the plug-in: its code, and the SDK it drives, reach a bundle only when the app
 * imports `mcp-tasks/oauth`.
 */
import type { FetchLike } from "../protocol/headers.js";
import { isMappedFailure, mapFailedAnswer, networkFailure } from "./http-fetch.js";
import { withDeadConnectionResend } from "./http-resend.js";
import { followRedirects, isRedirect, manualRedirects } from "./http-redirects.js";
import type { RequestHeaders } from "./request-headers.js";
import type { HttpSession, McpTransport } from "./types.js";
import { silentLogger, type Logger } from "../protocol/logging.js";
import { StreamableHttpTransport } from "./streamable-http.js";
import { addConnectionHeaders, type CheckedHeaders } from "../auth/headers.js";
import { describeSent, RefusalLog } from "../auth/challenge.js";
import { authFailure } from "../auth/failures.js";
import { authFailures, type AuthPlugin } from "../auth/connection-auth.js";
import { StreamFailures } from "./answers.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "./bounded-body.js";
import type { NodeHttp } from "./http-undici.js";
import { withRealSignal } from "./abort-line.js";

/** What a URL target's transport is built from: the connection's options, assembled once (src/client/connection.ts). */
export interface HttpTransportOptions {
  /**
   * The `fetch` under everything. Default: on Node, undici's dispatcher API (./http-undici.ts; `MCP_TASKS_HTTP=fetch`
   * turns it off); elsewhere the global `fetch`, looked up per request.
   */
  fetch?: FetchLike;
  /** How many polls the client keeps out at once (`maxInFlight`): the undici path's connections for them. */
  maxInFlight?: number;
  /** Per-request headers (filed by JSON-RPC id): `Mcp-Param-*` mirroring. */
  requestHeaders?: RequestHeaders;
  /** The connection's headers, on every request to the endpoint (checked: see `checkConnectionHeaders`). */
  headers?: CheckedHeaders;
  /** The authorization plug-in (`auth`), which builds the transport instead. */
  auth?: AuthPlugin;
  /** The largest body or SSE event taken from the server (`maxMessageBytes`). Default 16 MiB. */
  maxMessageBytes?: number;
  /** Where the plug-in's own warnings go (the client's logger). */
  log?: Logger;
  /** Send in this existing session instead of opening one; `ended` hears of its first 404. */
  join?: HttpSession & { ended(): void };
}

export async function buildHttpTransport(
  url: URL,
  options: HttpTransportOptions = {},
): Promise<McpTransport> {
  const node = options.fetch === undefined ? await nodePath(options.maxInFlight) : undefined;
  // The SDK's transport (the OAuth path) reads answers as real `Response`s; this library's own reads the lighter ones.
  const under = options.fetch ?? (options.auth !== undefined ? node?.webFetch : node?.fetch);
  // A request's abort comes down the chain as the session's line (./abort-line.ts): undici takes it as it is, a
  // `fetch` gets a real signal.
  const direct = node !== undefined && under === node.fetch;
  const base = withDeadConnectionResend(
    direct ? node.fetch : (input, init) => (under ?? globalThis.fetch)(input, withRealSignal(init)),
  );
  const refusals = new RefusalLog();
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const endpoint = endpointFetch(base, {
    requestHeaders: options.requestHeaders,
    headers: options.headers,
    ended: options.join?.ended,
    refusals,
    maxBytes,
  });
  const join = options.join && { id: options.join.id, protocolVersion: options.join.protocolVersion };

  if (options.auth !== undefined) {
    const streamFailures = new StreamFailures();
    const transport = await options.auth.transport({
      url,
      endpoint,
      base,
      refusals,
      log: options.log ?? silentLogger,
      failures: authFailures,
      bounds: { maxBytes, noteStreamFailure: streamFailures.note },
      ...(join !== undefined && { join }),
    });
    Object.assign(transport, { takeStreamFailure: (id: string | number) => streamFailures.take(id) });
    return node?.owns(transport) ?? transport;
  }
  const transport = new StreamableHttpTransport(url, {
    fetch: endpoint,
    ...(options.maxMessageBytes !== undefined && { maxMessageBytes: options.maxMessageBytes }),
    ...(join !== undefined && { join }),
    ...(direct && { serialize: node.serialize }),
    // A send that succeeded was not refused: only a failure is described (with the refusal noted under its id).
    sendFailure: (error, message) => {
      const request = describeSent(message);
      return authFailure(error, request, { refusal: refusals.take(request.id), oauth: false });
    },
  });
  return node?.owns(transport) ?? transport;
}

/** The undici path on Node (unless `MCP_TASKS_HTTP=fetch`); undefined elsewhere, where `#http` has none. */
async function nodePath(maxInFlight: number | undefined): Promise<NodeHttp | undefined> {
  return (await import("#http")).nodeHttp({ connections: maxInFlight });
}

/** What {@link endpointFetch} adds to the send, beyond it. */
interface EndpointSteps {
  requestHeaders: RequestHeaders | undefined;
  headers: CheckedHeaders | undefined;
  /** In a joined session: hears of every 404, the server saying the session is over. */
  ended: (() => void) | undefined;
  /** Where every 401/403 answer to a POST is noted, with its `WWW-Authenticate`, under the request's id. */
  refusals: RefusalLog;
  /** The largest error body read for a JSON-RPC error. */
  maxBytes: number;
}

/** The endpoint's `fetch`: the steps named at the top of this file around `send`, in that order. */
function endpointFetch(send: FetchLike, steps: EndpointSteps): FetchLike {
  const { requestHeaders, headers, ended, refusals, maxBytes } = steps;
  return async (input, init) => {
    let response: Response;
    try {
      let sent = manualRedirects(requestHeaders === undefined ? init : requestHeaders.apply(init));
      if (headers !== undefined) sent = await addConnectionHeaders(sent, headers);
      response = await send(input, sent);
      if (isRedirect(response)) response = await followRedirects(send, input, sent, response);
    } catch (error) {
      throw networkFailure(error);
    }
    const status = response.status;
    if (status === 404) ended?.();
    if ((status === 401 || status === 403) && init?.method === "POST") {
      refusals.note(init.body, { status, challenge: response.headers.get("www-authenticate") ?? undefined });
    }
    return isMappedFailure(response, init) ? mapFailedAnswer(response, init?.body, maxBytes) : response;
  };
}
