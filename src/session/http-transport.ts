/**
 * Builds the Streamable HTTP transport for a URL target and the connection's options. Requests to the endpoint
 * go through one `fetch` chain, outermost first:
 *
 *   error mapping (http-fetch.ts) → refusals noted (401/403 with their challenge) → `Mcp-Param-*` headers of
 *   the request → the connection's `headers` → the caller's (or the global) `fetch`
 *
 * A failed send that was about authorization becomes an `AuthError` (src/auth/failures.ts). With an
 * `authProvider`, the OAuth glue (src/auth/oauth.ts, imported on demand) hands it to the SDK's transport; without
 * one, nothing of OAuth runs and no SDK auth function is imported.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import type { FetchLike } from "../protocol/headers.js";
import { withHttpErrorMapping } from "./http-fetch.js";
import type { RequestHeaders } from "./request-headers.js";
import type { McpTransport } from "./types.js";
import { withConnectionHeaders, type ConnectionHeaders } from "../auth/headers.js";
import { describeSent, RefusalLog } from "../auth/challenge.js";
import { authFailure, type AuthorizationResponse } from "../auth/failures.js";

export interface HttpTransportOptions {
  /** The `fetch` under everything. Default: the global `fetch`, looked up per request. */
  fetch?: FetchLike;
  /** Per-request headers (filed by JSON-RPC id): `Mcp-Param-*` mirroring. */
  requestHeaders?: RequestHeaders;
  /** The connection's headers, on every request to the endpoint. */
  headers?: ConnectionHeaders;
  authProvider?: OAuthClientProvider;
  authorizationResponse?: AuthorizationResponse;
}

export async function buildHttpTransport(
  url: URL,
  options: HttpTransportOptions = {},
): Promise<McpTransport> {
  const base: FetchLike = (input, init) => (options.fetch ?? globalThis.fetch)(input, init);
  const refusals = new RefusalLog();
  let endpoint = base;
  if (options.headers !== undefined) endpoint = withConnectionHeaders(endpoint, options.headers);
  if (options.requestHeaders !== undefined) endpoint = options.requestHeaders.wrap(endpoint);
  endpoint = withHttpErrorMapping(noteRefusals(endpoint, refusals));

  if (options.authProvider !== undefined) {
    const { oauthTransport } = await import("../auth/oauth.js");
    return oauthTransport({
      url,
      provider: options.authProvider,
      authorizationResponse: options.authorizationResponse,
      endpoint,
      base,
      refusals,
    });
  }
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const transport = new StreamableHTTPClientTransport(url, { fetch: endpoint });
  const send = transport.send.bind(transport);
  transport.send = async (message, sendOptions) => {
    const request = describeSent(message);
    try {
      await send(message, sendOptions);
    } catch (error) {
      throw authFailure(error, request, { refusal: refusals.take(request.id), oauth: false });
    } finally {
      refusals.take(request.id);
    }
  };
  return transport;
}

/** Notes every 401/403 answer to a POST, with its `WWW-Authenticate`, under the request's id. */
function noteRefusals(fetchImpl: FetchLike, refusals: RefusalLog): FetchLike {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if ((response.status === 401 || response.status === 403) && init?.method === "POST") {
      refusals.note(init.body, {
        status: response.status,
        challenge: response.headers.get("www-authenticate") ?? undefined,
      });
    }
    return response;
  };
}
