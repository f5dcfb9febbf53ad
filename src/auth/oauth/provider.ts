/**
 * What `oauth()` takes: the SDK's provider, named structurally, and the function that completes an interactive
 * authorization; each checked when the plug-in is made, so a mistake fails where it was written.
 */

/**
 * The SDK's `OAuthClientProvider` (from `@modelcontextprotocol/client`), named structurally: any provider the SDK's
 * transport takes fits. Declared here so that the public types import no SDK declarations (a consumer without
 * `@types/node` could not check them).
 */
export interface OAuthProviderLike {
  readonly redirectUrl: string | URL | undefined;
  readonly clientMetadata: object;
  clientInformation(...context: never[]): unknown;
  tokens(...context: never[]): unknown;
  saveTokens(...args: never[]): unknown;
  redirectToAuthorization(authorizationUrl: URL): void | Promise<void>;
  saveCodeVerifier(codeVerifier: string): void | Promise<void>;
  codeVerifier(): string | Promise<string>;
}

/**
 * Completes an interactive authorization: given the authorization URL the provider was sent to, resolves with
 * the authorization response (the callback URL the browser landed on, or the bare code).
 */
export type AuthorizationResponse = (authorizationUrl: URL) => Promise<URL | string>;

/** The methods without which the SDK's transport cannot run a flow at all. */
const REQUIRED_METHODS = ["tokens", "saveTokens", "clientInformation", "redirectToAuthorization"];

export function checkProvider(provider: unknown): OAuthProviderLike {
  const candidate = provider as Partial<Record<string, unknown>> | null;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    REQUIRED_METHODS.some((method) => typeof candidate[method] !== "function")
  ) {
    throw new TypeError("oauth(): the provider must be an OAuthClientProvider (tokens, saveTokens, …)");
  }
  return provider as OAuthProviderLike;
}

export function checkAuthorizationResponse(response: unknown): AuthorizationResponse | undefined {
  if (response !== undefined && typeof response !== "function") {
    throw new TypeError("oauth(): `authorizationResponse` must be a function");
  }
  return response as AuthorizationResponse | undefined;
}
