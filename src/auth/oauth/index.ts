/**
 * `mcp-tasks/oauth`: OAuth for `TaskClient.connect` (the MCP authorization spec), through the SDK's
 * `OAuthClientProvider` and its Streamable HTTP transport:
 *
 * ```ts
 * import { TaskClient } from "mcp-tasks";
 * import { oauth } from "mcp-tasks/oauth";
 *
 * const client = await TaskClient.connect(url, { auth: oauth(provider, { authorizationResponse }) });
 * ```
 *
 * An entry of its own so that the SDK's OAuth code is in an app's bundle only when the app imports it: the main
 * entry, bundled into one file (no code splitting), carries none of it.
 *
 * @module mcp-tasks/oauth
 */
import type { ConnectionAuth } from "mcp-tasks";
import type { AuthPlugin } from "../connection-auth.js";
import { checkAuthorizationResponse, checkProvider, type AuthorizationResponse } from "./provider.js";
import type { OAuthProviderLike } from "./provider.js";
import { oauthTransport } from "./transport.js";

export type { AuthorizationResponse, OAuthProviderLike } from "./provider.js";

/** Options of `oauth()`. */
export interface OAuthOptions {
  /**
   * Completes an interactive authorization that a request started. Called with the URL the provider was sent to
   * (`redirectToAuthorization`); resolve with the URL the browser came back to (your `redirectUrl` with `code`,
   * `state`, `iss`). The client checks `state`, exchanges the code (the SDK checks `iss`), and sends the request
   * again, all within that request's timeout (`requestTimeoutMs`). A bare code is taken too, but skips the `state`
   * check and fails at authorization servers that send `iss` (RFC 9207). Without it, such a request fails with
   * `AuthError` (`reason: "authorization_required"`).
   */
  authorizationResponse?: AuthorizationResponse;
}

/**
 * OAuth for a URL connection: pass the result as `TaskClient.connect(url, { auth })`. `provider` is an
 * `OAuthClientProvider` from `@modelcontextprotocol/client` (your storage for the client registration, the tokens
 * and the PKCE verifier). The SDK's transport runs the flow with it: discovery, dynamic registration, PKCE, one
 * refresh and one retry on a 401 (concurrent 401s share one refresh), step-up on a 403 `insufficient_scope`. A
 * request that still fails on authorization fails with `AuthError`; a task keeps running and its handle keeps its
 * id. Throws a `TypeError` at once for a provider without the methods the SDK needs.
 */
export function oauth(provider: OAuthProviderLike, options: OAuthOptions = {}): ConnectionAuth {
  const checked = checkProvider(provider);
  const authorizationResponse = checkAuthorizationResponse(options.authorizationResponse);
  const plugin: AuthPlugin = {
    kind: "oauth",
    transport: (parts) => oauthTransport({ ...parts, provider: checked, authorizationResponse }),
  };
  return plugin;
}
