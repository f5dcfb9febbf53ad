/**
 * The one place that decides whether a failed `send()` on an HTTP transport this library built is an
 * authorization failure, and which: the request's own 401/403 (recorded by the HTTP layer with its challenge),
 * an interactive authorization the provider started, or an OAuth flow that broke. Anything else (a network
 * failure, a 5xx) is left as it is.
 */
import { AuthError, type AuthFailure } from "../protocol/errors.js";
import type { Refusal, SentRequest } from "./challenge.js";
import { readChallenge, refusalError } from "./challenge.js";

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

/** The SDK marks every error that escapes its auth seam (token(), 401 handling, step-up) with this symbol. */
const SDK_AUTH_SEAM = Symbol.for("mcp.authSeamEscape");

/** What is known about a failed send besides its error. */
export interface SendFailure {
  /** The request's own 401/403, when it got one. */
  refusal: Refusal | undefined;
  /** Whether the transport runs an OAuth flow (an `authProvider`): only then can an error be the flow's own. */
  oauth: boolean;
  /** Whether the provider was sent to the authorization page during the send. */
  redirected?: boolean;
  /** The reason to report, when the caller already knows it. */
  reason?: AuthFailure;
  /** The scope the client asked the authorization server for, when an authorization it started failed. */
  askedScope?: string | undefined;
}

/** The `AuthError` a failed send means, or `error` itself when it is not about authorization. */
export function authFailure(error: unknown, request: SentRequest, failure: SendFailure): unknown {
  const { refusal } = failure;
  if (error instanceof AuthError) {
    return error.taskId === undefined && request.taskId !== undefined ? error.forTask(request.taskId) : error;
  }
  let reason = failure.reason;
  if (reason === undefined && failure.redirected === true) reason = "authorization_required";
  if (reason === undefined && refusal !== undefined && isTheRefusal(error, refusal, failure.oauth)) {
    return refusalError(request, refusal, error);
  }
  if (reason === undefined && !isAuthSeamEscape(error)) {
    // A 401/403 that was not the request's own answer (a proxy, a redirect) still is one, without a challenge.
    const status = statusOf(error);
    if (status === 401 || status === 403)
      return refusalError(request, { status, challenge: undefined }, error);
    return error;
  }
  const init: ConstructorParameters<typeof AuthError>[0] = {
    method: request.method,
    reason: reason ?? "authorization_failed",
    cause: error,
  };
  if (request.taskId !== undefined) init.taskId = request.taskId;
  if (refusal !== undefined) {
    const said = readChallenge(refusal.challenge);
    init.status = refusal.status;
    if (refusal.challenge !== undefined) init.challenge = refusal.challenge;
    if (said.scope !== undefined) init.scope = said.scope;
    if (said.error !== undefined) init.oauthError = said.error;
    if (said.errorDescription !== undefined) init.errorDescription = said.errorDescription;
    if (said.resourceMetadataUrl !== undefined) init.resourceMetadataUrl = said.resourceMetadataUrl;
  }
  if (init.scope === undefined && failure.askedScope !== undefined) init.scope = failure.askedScope;
  // The authorization server's own refusal (invalid_scope, invalid_grant, access_denied …) says more than the
  // challenge that started the flow.
  const flow = oauthErrorOf(error);
  if (flow !== undefined) {
    init.oauthError = flow.code;
    if (flow.description !== undefined) init.errorDescription = flow.description;
  }
  return new AuthError(init);
}

/** The OAuth error code (RFC 6749 §5.2, §4.1.2.1) of an SDK `OAuthError`, looked for down the cause chain. */
function oauthErrorOf(error: unknown): { code: string; description: string | undefined } | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (current.name === "OAuthError" && typeof code === "string" && /^[a-z_]{1,64}$/.test(code)) {
      const description =
        current.message.length > 0 && current.message !== code ? current.message : undefined;
      return { code, description };
    }
    current = current.cause;
  }
  return undefined;
}

/**
 * Whether the send failed because of its 401/403 itself: always without an OAuth flow; with one, when the SDK
 * gave up on the status (a 401 after the refresh, a 403 after step-up) rather than failing in the flow.
 */
function isTheRefusal(error: unknown, refusal: Refusal, oauth: boolean): boolean {
  if (!oauth) return true;
  if (statusOf(error) === refusal.status) return true;
  return error instanceof Error && error.name === "InsufficientScopeError";
}

function isAuthSeamEscape(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[SDK_AUTH_SEAM] === true
  );
}

/** The HTTP status an SDK error reports (v2 `status`, v1 `code`), if any. */
function statusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { status, code } = error as { status?: unknown; code?: unknown };
  if (typeof status === "number") return status;
  return typeof code === "number" && code >= 400 && code < 600 ? code : undefined;
}
