/**
 * Authorization in front of the reference server's MCP endpoint. Every request to the endpoint needs a bearer
 * token, checked with the server SDK's `verifyBearerToken` and refused with its `bearerAuthChallengeResponse`
 * (401 `invalid_token` or 403 `insufficient_scope`, with the `WWW-Authenticate` challenge). In OAuth mode the
 * server also serves its protected-resource metadata (the SDK's `oauthMetadataResponse`, which also serves the
 * authorization-server metadata) and the endpoints of its in-process authorization server.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Clock } from "../clock.js";
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  oauthMetadataResponse,
  verifyBearerToken,
} from "../load-server-sdk.js";
import { readBody, writeWebResponse } from "../node-http.js";
import { AuthorizationServer, type TokenRequest } from "./authorization-server.js";
import { checkAuthOptions, type ServerAuthOptions } from "./options.js";

/** What a test (or a person) can do with a server's authorization: `server.auth`. */
export interface TaskServerAuth {
  readonly type: "bearer" | "oauth";
  /** OAuth: the authorization server (this server's origin); its metadata is at `/.well-known/oauth-authorization-server`. */
  readonly issuer: string | undefined;
  /** OAuth: where the protected-resource metadata is (`/.well-known/oauth-protected-resource/<path>`). */
  readonly resourceMetadataUrl: string | undefined;
  /**
   * OAuth: does what a person does in the browser: opens `authorizationUrl` (the URL a client's provider was sent
   * to), approves (or, with `deny`, denies), and resolves with the URL the page redirects to — the client's
   * redirect URI with `code`, `state` and `iss` (or `error`) — without following it.
   */
  approve(authorizationUrl: string | URL, options?: { deny?: boolean }): Promise<URL>;
  /**
   * Revokes every token issued so far, access and refresh: requests with them get 401 from now on, and the listen
   * streams open now end.
   */
  revokeAll(): void;
  /** OAuth: every token endpoint request so far (grant type, whether tokens were issued). */
  readonly tokenRequests: readonly TokenRequest[];
  /** OAuth: how many clients registered. */
  readonly clientCount: number;
}

export interface AuthGate {
  readonly view: TaskServerAuth;
  /** Answers a request to a path other than the endpoint (metadata, authorization server); false if none matches. */
  serveRoute(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
  /** The refusal for an endpoint request with these (lower-case) headers, or undefined when it may go on. */
  refusal(headers: Readonly<Record<string, string>>): Promise<Response | undefined>;
}

export function createAuthGate(
  auth: ServerAuthOptions,
  where: { origin: string; endpoint: string; clock: Clock },
): AuthGate {
  const options = checkAuthOptions(auth);
  if (options.type === "bearer")
    return bearerGate(options.token, options.scopes ?? [], options.requiredScopes ?? []);
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(where.endpoint));
  const server = new AuthorizationServer({
    issuer: where.origin,
    resource: where.endpoint,
    tokenLifetimeMs: options.tokenLifetimeMs,
    scopesSupported: options.scopesSupported,
    clock: where.clock,
  });
  const requiredScopes = [...options.requiredScopes];
  const verify = {
    verifier: { verifyAccessToken: server.verifyAccessToken },
    requiredScopes,
    resourceMetadataUrl,
  };
  const metadata = {
    oauthMetadata: server.metadata,
    resourceServerUrl: new URL(where.endpoint),
    resourceName: "mcp-tasks reference server",
    // A test server on a loopback or LAN address has no https.
    dangerouslyAllowInsecureIssuerUrl: true,
    ...(options.scopesSupported.length > 0 && { scopesSupported: [...options.scopesSupported] }),
  };
  return {
    view: {
      type: "oauth",
      issuer: where.origin,
      resourceMetadataUrl,
      approve: (url, choice) => walkAuthorizationPage(url, where.origin, choice?.deny === true),
      revokeAll: () => server.revokeAll(),
      get tokenRequests() {
        return [...server.tokenRequests];
      },
      get clientCount() {
        return server.clientCount;
      },
    },
    async serveRoute(req, res, url) {
      const known =
        url.pathname.startsWith("/.well-known/") ||
        ["/authorize", "/token", "/register", "/revoke"].includes(url.pathname);
      if (!known) return false;
      const text = req.method === "POST" ? await readBody(req) : "";
      if (text === undefined) {
        res.writeHead(413).end();
        return true;
      }
      const request = new Request(url, {
        method: req.method ?? "GET",
        headers: Object.entries(req.headers).flatMap(([name, value]) =>
          typeof value === "string" ? [[name, value] as [string, string]] : [],
        ),
        ...(req.method === "POST" && { body: text }),
      });
      const response = oauthMetadataResponse(request, metadata) ?? (await server.serve(request));
      if (response === undefined) return false;
      await writeWebResponse(response, res);
      return true;
    },
    async refusal(headers) {
      try {
        await verifyBearerToken(headers["authorization"], {
          ...verify,
          expectedResource: new URL(where.endpoint),
        });
        return undefined;
      } catch (error) {
        return bearerAuthChallengeResponse(error, { requiredScopes, resourceMetadataUrl });
      }
    },
  };
}

/** The gate's answer for a request to the endpoint (503 in the instant before the gate exists). */
export async function refuse(
  gate: AuthGate | undefined,
  headers: Readonly<Record<string, string>>,
): Promise<Response | undefined> {
  if (gate === undefined) return new Response("starting", { status: 503, headers: { "retry-after": "1" } });
  return gate.refusal(headers);
}

function bearerGate(token: string, scopes: readonly string[], requiredScopes: readonly string[]): AuthGate {
  const verifier = {
    verifyAccessToken(presented: string): Promise<AuthInfo> {
      if (presented !== token) {
        return Promise.reject(new OAuthError(OAuthErrorCode.InvalidToken, "The bearer token is not valid"));
      }
      return Promise.resolve({
        token,
        clientId: "static",
        scopes: [...scopes],
        expiresAt: Number.MAX_SAFE_INTEGER,
      });
    },
  };
  let revoked = false;
  const required = [...requiredScopes];
  return {
    view: {
      type: "bearer",
      issuer: undefined,
      resourceMetadataUrl: undefined,
      approve: () =>
        Promise.reject(new Error("server.auth.approve: this server uses a static bearer token, not OAuth")),
      revokeAll: () => void (revoked = true),
      tokenRequests: [],
      clientCount: 0,
    },
    serveRoute: () => Promise.resolve(false),
    async refusal(headers) {
      try {
        if (revoked) throw new OAuthError(OAuthErrorCode.InvalidToken, "The bearer token was revoked");
        await verifyBearerToken(headers["authorization"], { verifier, requiredScopes: required });
        return undefined;
      } catch (error) {
        return bearerAuthChallengeResponse(error, { requiredScopes: required });
      }
    },
  };
}

/** The scripted browser: load the authorization page, press a button, and read where it redirects. */
async function walkAuthorizationPage(
  authorizationUrl: string | URL,
  origin: string,
  deny: boolean,
): Promise<URL> {
  const url = new URL(authorizationUrl);
  if (url.origin !== origin)
    throw new Error(`server.auth.approve: ${url.origin} is not this server's authorization server`);
  const shown = await fetch(url, { redirect: "manual" });
  const html = await shown.text();
  if (shown.status === 302) return new URL(shown.headers.get("location") ?? "", url); // refused at once (an error redirect)
  const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
  if (shown.status !== 200 || request === undefined) {
    const title = /<h1>([^<]*)<\/h1>/.exec(html)?.[1] ?? `HTTP ${shown.status}`;
    throw new Error(`server.auth.approve: the authorization page refused the request: ${title}`);
  }
  const decided = await fetch(new URL("/authorize", origin), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ request, decision: deny ? "deny" : "approve" }),
  });
  await decided.text();
  const location = decided.headers.get("location");
  if (decided.status !== 302 || location === null) {
    throw new Error(
      `server.auth.approve: the decision was not answered with a redirect (HTTP ${decided.status})`,
    );
  }
  return new URL(location);
}
