/**
 * What `auth: oauth(provider)` runs: the SDK's `OAuthClientProvider` on the SDK's Streamable HTTP transport, which
 * does the OAuth work (protected-resource and authorization-server discovery, dynamic registration, PKCE, refresh
 * on a 401 and one retry, step-up on a 403 `insufficient_scope`). The SDK loads when the first OAuth transport is
 * built, so importing `mcp-tasks/oauth` (the command line does) costs little until a provider is used.
 *
 * What this module adds around it:
 * - our HTTP layer (routing and `Mcp-Param-*` headers, `headers`, error mapping) on requests to the MCP endpoint
 *   only; OAuth requests (metadata, registration, token) go out untouched;
 * - one refresh per refresh token: concurrent 401s (every poll of every task at once) share one token request,
 *   so a server that rotates refresh tokens does not see the old one twice and revoke the grant;
 * - with `authorizationResponse`, an interactive authorization started during a request is completed and the
 *   request sent again (after checking `state`; the SDK checks `iss`), at most twice per request;
 * - a token the server refused (401) makes the SDK discover the authorization server again instead of reading it
 *   from the provider's saved discovery state (see `watchRedirects`);
 * - the bounds our own transport keeps: every body read within `maxMessageBytes` (endpoint and OAuth servers
 *   alike), one HTTP response answering one POST (src/session/answers.ts), and redirects of endpoint requests
 *   followed within the origin only (in `endpoint`; the SDK's own same-origin rule then never sees one).
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import type { FetchLike, McpTransport } from "mcp-tasks/transport";
// Types only: the client hands these over at run time (its copy of the code, not this entry's).
import type { AuthTransportParts } from "../connection-auth.js";
// Pure functions, bundled into this entry; what they record goes to the connecting client (`bounds`).
import { boundedSdkAnswer } from "../../session/answers.js";
import { limitResponse } from "../../session/bounded-body.js";
import type { AuthorizationResponse, OAuthProviderLike } from "./provider.js";
import { registeringOfferedScopes, ResourceScopes } from "./registration.js";
import { withSdkWarningsTo } from "./sdk-console.js";

/** What the client hands the plug-in (its HTTP layer, its refusal log, its errors), and the provider. */
export interface OAuthTransportParts extends AuthTransportParts {
  provider: OAuthProviderLike;
  authorizationResponse: AuthorizationResponse | undefined;
}

/** At most this many interactive authorizations complete for one request (a step-up after a first login). */
const MAX_INTERACTIVE_ROUNDS = 2;

export async function oauthTransport(parts: OAuthTransportParts): Promise<McpTransport> {
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  // The option's type names the provider structurally; it is the SDK's OAuthClientProvider.
  const offered = new ResourceScopes();
  const watched = watchRedirects(parts.provider as unknown as OAuthClientProvider, offered);
  const { bounds } = parts;
  const endpoint: FetchLike = async (input, init) => {
    const response = await parts.endpoint(input, init);
    if (response.status === 401 && new Headers(init?.headers).has("authorization")) watched.tokenRejected();
    return boundedSdkAnswer(response, init, bounds.maxBytes, bounds.noteStreamFailure);
  };
  // OAuth servers' answers are bounded too, below the layers that read them.
  const oauthServers: FetchLike = async (input, init) => {
    const response = await parts.base(input, init);
    const { origin, pathname } = new URL(input instanceof URL ? input.href : String(input));
    return limitResponse(response, bounds.maxBytes, `${init?.method ?? "GET"} ${origin}${pathname}`);
  };
  const fetch = routed(
    parts.url,
    endpoint,
    registeringOfferedScopes(oneRefreshPerToken(oauthServers), offered),
  );
  const transport = new StreamableHTTPClientTransport(parts.url, {
    authProvider: watched.provider,
    fetch,
    ...(parts.join !== undefined && { sessionId: parts.join.id }),
  });
  if (parts.join !== undefined) transport.setProtocolVersion(parts.join.protocolVersion);
  const { describeSent, refusalError, authFailure, isAuthError, claimFailure } = parts.failures;
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const request = describeSent(message);
    for (let round = 0; ; round++) {
      const redirectsBefore = watched.redirects;
      const sparedBefore = watched.spared;
      try {
        await withSdkWarningsTo(parts.log, () => send(message, options));
        parts.refusals.take(request.id);
        return;
      } catch (error) {
        claimFailure(error); // the SDK also reported it on onerror: it is this request's, not a stray fault
        const redirected = watched.redirects > redirectsBefore ? watched.lastUrl : undefined;
        const refusal = parts.refusals.take(request.id);
        const finish = parts.authorizationResponse;
        if (redirected === undefined && watched.spared > sparedBefore && refusal !== undefined) {
          // The user already consented to every scope this step-up would ask for, and the server still
          // refuses: asking again would show the same page to no end.
          throw refusalError(request, refusal, error);
        }
        if (redirected !== undefined && finish !== undefined && round >= MAX_INTERACTIVE_ROUNDS) {
          // Authorized again and again, and still refused (a scope the server never grants): the refusal is
          // the failure, not the authorization started for yet another round.
          throw refusal === undefined
            ? authFailure(error, request, { refusal, oauth: true, reason: "authorization_failed" })
            : refusalError(request, refusal, error);
        }
        if (redirected === undefined || finish === undefined) {
          throw authFailure(error, request, { refusal, oauth: true, redirected: redirected !== undefined });
        }
        try {
          const response = await finish(redirected);
          const params = callbackParams(response, redirected);
          await withSdkWarningsTo(parts.log, () =>
            typeof params === "string" ? transport.finishAuth(params) : transport.finishAuth(params),
          );
          watched.consented(redirected);
        } catch (failure) {
          throw isAuthError(failure)
            ? failure
            : authFailure(failure, request, {
                refusal,
                oauth: true,
                reason: "authorization_failed",
                askedScope: redirected.searchParams.get("scope") ?? undefined,
              });
        }
      }
    }
  };
  return transport;
}

/**
 * The provider as the SDK sees it, counting its redirects to the authorization page and keeping the last URL.
 *
 * It also hides a saved discovery state once the server rejected a token, until the SDK saves a fresh one: the SDK
 * takes the authorization server from a saved state without asking the resource again, so a server that moved to
 * another authorization server (SEP-2352; its protected-resource metadata names the new one) would otherwise be
 * sent back to the old one for ever, each new token refused in turn.
 */
function watchRedirects(
  provider: OAuthClientProvider,
  offered: ResourceScopes,
): {
  provider: OAuthClientProvider;
  readonly redirects: number;
  readonly lastUrl: URL | undefined;
  /** Step-up redirects not passed on, because they asked only for scopes the user already consented to. */
  readonly spared: number;
  consented(authorizationUrl: URL): void;
  tokenRejected(): void;
} {
  let redirects = 0;
  let spared = 0;
  let lastUrl: URL | undefined;
  let rediscover = false;
  /** Scopes the user consented to (authorizations completed here) since the server last rejected a token. */
  const consented = new Set<string>();
  const redirectToAuthorization = async (url: URL): Promise<void> => {
    const asked = scopesOf(url);
    if (asked.length > 0 && asked.every((scope) => consented.has(scope))) {
      // A step-up for nothing new (a rejected token clears `consented`, so this is never a re-login).
      spared++;
      return;
    }
    redirects++;
    lastUrl = url;
    await provider.redirectToAuthorization(url);
  };
  const discoveryState: OAuthClientProvider["discoveryState"] = async () => {
    if (rediscover) return undefined;
    const state = await provider.discoveryState?.();
    offered.note(state?.resourceMetadata);
    return state;
  };
  const saveDiscoveryState: OAuthClientProvider["saveDiscoveryState"] = async (state) => {
    rediscover = false;
    offered.note(state.resourceMetadata);
    await provider.saveDiscoveryState?.(state);
  };
  const proxy = new Proxy(provider, {
    get(target, key) {
      if (key === "redirectToAuthorization") return redirectToAuthorization;
      if (key === "discoveryState" && target.discoveryState !== undefined) return discoveryState;
      if (key === "saveDiscoveryState" && target.saveDiscoveryState !== undefined) return saveDiscoveryState;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    provider: proxy,
    get redirects() {
      return redirects;
    },
    get lastUrl() {
      return lastUrl;
    },
    get spared() {
      return spared;
    },
    consented(authorizationUrl) {
      for (const scope of scopesOf(authorizationUrl)) consented.add(scope);
    },
    tokenRejected() {
      rediscover = true;
      consented.clear();
    },
  };
}

function scopesOf(authorizationUrl: URL): string[] {
  return (authorizationUrl.searchParams.get("scope") ?? "").split(" ").filter(Boolean);
}

/**
 * The arguments of the transport's `finishAuth` for an authorization response: the callback URL's query (with
 * `code`, `iss`, or `error`) after its `state` was checked against the one sent, or a bare code.
 */
function callbackParams(response: URL | string, authorizationUrl: URL): URLSearchParams | string {
  let callback: URL | undefined;
  if (response instanceof URL) callback = response;
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(response)) callback = new URL(response);
  if (callback === undefined) {
    if (typeof response !== "string" || response.length === 0) {
      throw new TypeError(
        "`authorizationResponse` must resolve with the callback URL or the authorization code",
      );
    }
    return response;
  }
  const sent = authorizationUrl.searchParams.get("state");
  if (sent !== null && callback.searchParams.get("state") !== sent) {
    throw new Error(
      "the authorization response's state does not match the request's (a forged or stale response)",
    );
  }
  return callback.searchParams;
}

/** Requests to the MCP endpoint through `endpoint`, the rest (OAuth) through `other`. */
function routed(url: URL, endpoint: FetchLike, other: FetchLike): FetchLike {
  const target = `${url.origin}${url.pathname}${url.search}`;
  return (input, init) => {
    const requested = new URL(input instanceof URL ? input.href : String(input));
    return `${requested.origin}${requested.pathname}${requested.search}` === target
      ? endpoint(input, init)
      : other(input, init);
  };
}

/** How long a refresh's answer is handed to later requests that bring the same refresh token. */
const REFRESH_REUSE_MS = 60_000;

interface Answered {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
}

/**
 * A token request with `grant_type=refresh_token` that repeats one in flight (or answered within a minute) gets
 * that request's answer instead of going out again: each waiting request then saves and uses the same new tokens.
 */
function oneRefreshPerToken(fetchImpl: FetchLike): FetchLike {
  const shared = new Map<string, { at: number; answer: Promise<Answered> }>();
  return async (input, init) => {
    const body = init?.body;
    const form = body instanceof URLSearchParams ? body : undefined;
    if (init?.method !== "POST" || form?.get("grant_type") !== "refresh_token") return fetchImpl(input, init);
    const now = Date.now();
    for (const [key, entry] of shared) if (now - entry.at > REFRESH_REUSE_MS) shared.delete(key);
    const key = `${String(input)}\n${form.get("refresh_token") ?? ""}`;
    let entry = shared.get(key);
    if (entry === undefined) {
      const answer = fetchImpl(input, init).then(async (response) => ({
        status: response.status,
        statusText: response.statusText,
        headers: [...response.headers.entries()],
        body: await response.text(),
      }));
      entry = { at: now, answer };
      shared.set(key, entry);
      // A failed exchange is not shared: the next request tries for itself.
      answer.then(
        (answered) => answered.status >= 500 && shared.delete(key),
        () => shared.delete(key),
      );
    }
    const answered = await entry.answer;
    return new Response(answered.body, {
      status: answered.status,
      statusText: answered.statusText,
      headers: answered.headers,
    });
  };
}
