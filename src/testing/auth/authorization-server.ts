/**
 * The reference server's OAuth 2.1 authorization server, in the same process and on the same origin: dynamic
 * client registration (RFC 7591), an authorization page a person (or a test) approves or denies, authorization
 * codes bound to a PKCE S256 challenge and a redirect URI, `iss` in the authorization response (RFC 9207), tokens
 * bound to the MCP server's URL (RFC 8707), refresh tokens rotated on every use, and revocation (RFC 7009). Every
 * endpoint is a web-standard handler; times come from the server's clock.
 *
 * It exists to test clients, so it is strict where clients go wrong and simple elsewhere: no consent memory, no
 * users, tokens are random strings held in memory.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { AuthInfo, OAuthMetadata } from "@modelcontextprotocol/server";
import type { Clock } from "../clock.js";
import { OAuthError, OAuthErrorCode } from "../load-server-sdk.js";

interface Client {
  id: string;
  secret: string | undefined;
  authMethod: "none" | "client_secret_basic" | "client_secret_post";
  redirectUris: string[];
  name: string | undefined;
}

interface Grant {
  clientId: string;
  scopes: string[];
  resource: string | undefined;
}

/** What a refresh token (and the access tokens issued alongside it) belong to: one authorization. */
interface IssuedGrant extends Grant {
  grantId: string;
}

interface PendingAuthorization extends Grant {
  redirectUri: string;
  state: string | undefined;
  challenge: string;
  expiresAt: number;
}

interface Code extends Grant {
  redirectUri: string;
  challenge: string;
  expiresAt: number;
}

interface AccessToken extends IssuedGrant {
  expiresAt: number;
}

/** One request to the token endpoint, as a test may want to count them. */
export interface TokenRequest {
  readonly grantType: string;
  /** Whether tokens were issued. */
  readonly issued: boolean;
}

export interface AuthorizationServerOptions {
  /** The origin, e.g. `http://127.0.0.1:4312`: the issuer and the base of every endpoint. */
  issuer: string;
  /** The MCP endpoint: the resource tokens are issued for. */
  resource: string;
  tokenLifetimeMs: number;
  scopesSupported: readonly string[];
  clock: Clock;
}

const CODE_LIFETIME_MS = 60_000;
const PAGE_LIFETIME_MS = 600_000;
const MAX_ENTRIES = 10_000;

export class AuthorizationServer {
  private readonly clients = new Map<string, Client>();
  private readonly pending = new Map<string, PendingAuthorization>();
  private readonly codes = new Map<string, Code>();
  private readonly accessTokens = new Map<string, AccessToken>();
  private readonly refreshTokens = new Map<string, IssuedGrant>();
  readonly tokenRequests: TokenRequest[] = [];
  readonly metadata: OAuthMetadata;

  constructor(private readonly options: AuthorizationServerOptions) {
    const { issuer } = options;
    this.metadata = {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      revocation_endpoint: `${issuer}/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
      revocation_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
      authorization_response_iss_parameter_supported: true,
      ...(options.scopesSupported.length > 0 && { scopes_supported: [...options.scopesSupported] }),
    } as OAuthMetadata;
  }

  /** How many clients registered. */
  get clientCount(): number {
    return this.clients.size;
  }

  /** Answers a request to one of the endpoints, or undefined for any other path. */
  async serve(request: Request): Promise<Response | undefined> {
    const path = new URL(request.url).pathname;
    try {
      if (path === "/register") return await this.register(request);
      if (path === "/authorize") return await this.authorize(request);
      if (path === "/token") return await this.token(request);
      if (path === "/revoke") return await this.revoke(request);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      const status = error.code === OAuthErrorCode.InvalidClient ? 401 : 400;
      return Response.json(error.toResponseObject(), { status, headers: { "cache-control": "no-store" } });
    }
    return undefined;
  }

  /** The verifier the resource side uses: what an access token grants, or `invalid_token`. */
  verifyAccessToken = (token: string): Promise<AuthInfo> => {
    const entry = this.accessTokens.get(token);
    const now = this.options.clock.now();
    if (entry === undefined) {
      return Promise.reject(
        new OAuthError(OAuthErrorCode.InvalidToken, "The access token is unknown or revoked"),
      );
    }
    if (entry.expiresAt <= now) {
      this.accessTokens.delete(token);
      return Promise.reject(new OAuthError(OAuthErrorCode.InvalidToken, "The access token expired"));
    }
    const info: AuthInfo = {
      token,
      clientId: entry.clientId,
      scopes: [...entry.scopes],
      // The SDK compares with Date.now(); the remaining lifetime on our clock keeps the two in step.
      expiresAt: Math.floor((Date.now() + (entry.expiresAt - now)) / 1000),
    };
    if (entry.resource !== undefined) info.resource = new URL(entry.resource);
    return Promise.resolve(info);
  };

  /** Revokes every token issued so far (access and refresh) and every unused code. */
  revokeAll(): void {
    this.accessTokens.clear();
    this.refreshTokens.clear();
    this.codes.clear();
  }

  /* ---- registration (RFC 7591) -------------------------------------------------------------------- */

  private async register(request: Request): Promise<Response> {
    if (request.method !== "POST") return methodNotAllowed("POST");
    const body = (await request.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (typeof body !== "object" || body === null) {
      throw new OAuthError("invalid_client_metadata", "the body must be a JSON object");
    }
    const redirectUris = body.redirect_uris;
    if (!Array.isArray(redirectUris) || redirectUris.length === 0 || !redirectUris.every(isRedirectUri)) {
      throw new OAuthError("invalid_redirect_uri", "redirect_uris must list https or loopback http URLs");
    }
    const method = body.token_endpoint_auth_method ?? "client_secret_basic";
    if (method !== "none" && method !== "client_secret_basic" && method !== "client_secret_post") {
      throw new OAuthError("invalid_client_metadata", "unsupported token_endpoint_auth_method");
    }
    if (this.clients.size >= MAX_ENTRIES)
      throw new OAuthError(OAuthErrorCode.ServerError, "too many clients");
    const client: Client = {
      id: `client-${secret(12)}`,
      secret: method === "none" ? undefined : secret(24),
      authMethod: method,
      redirectUris: redirectUris as string[],
      name: typeof body.client_name === "string" ? body.client_name : undefined,
    };
    this.clients.set(client.id, client);
    const issuedAt = Math.floor(this.options.clock.now() / 1000);
    return Response.json(
      {
        ...body,
        client_id: client.id,
        client_id_issued_at: issuedAt,
        ...(client.secret !== undefined && { client_secret: client.secret, client_secret_expires_at: 0 }),
        token_endpoint_auth_method: method,
        redirect_uris: client.redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      },
      { status: 201, headers: { "cache-control": "no-store" } },
    );
  }

  /* ---- authorization (the page, then the decision) ------------------------------------------------ */

  private async authorize(request: Request): Promise<Response> {
    if (request.method === "GET") return this.authorizationPage(new URL(request.url).searchParams);
    if (request.method === "POST") return this.decide(new URLSearchParams(await request.text()));
    return methodNotAllowed("GET, POST");
  }

  /** Checks the request; errors about the client or redirect URI are shown, never redirected (RFC 6749 §4.1.2.1). */
  private authorizationPage(query: URLSearchParams): Response {
    const client = this.clients.get(query.get("client_id") ?? "");
    if (client === undefined) return page(400, "Unknown client", "<p>The client_id is not registered.</p>");
    const redirectUri =
      query.get("redirect_uri") ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : "");
    if (redirectUri === undefined || !client.redirectUris.some((uri) => sameRedirect(uri, redirectUri))) {
      return page(400, "Bad redirect URI", "<p>The redirect_uri is not one the client registered.</p>");
    }
    const state = query.get("state") ?? undefined;
    const refuse = (error: string, description: string) =>
      this.redirectBack(redirectUri, { error, error_description: description }, state);
    if (query.get("response_type") !== "code")
      return refuse("unsupported_response_type", "response_type must be code");
    const challenge = query.get("code_challenge");
    if (challenge === null || query.get("code_challenge_method") !== "S256") {
      return refuse("invalid_request", "PKCE with code_challenge_method S256 is required");
    }
    const resource = query.get("resource") ?? undefined;
    if (resource !== undefined && !sameResource(resource, this.options.resource)) {
      return refuse("invalid_target", "resource is not this server");
    }
    const scopes = this.grantedScopes(query.get("scope"));
    if (scopes === undefined) return refuse("invalid_scope", "a requested scope is not supported");
    this.forgetExpired();
    const id = secret(16);
    this.pending.set(id, {
      clientId: client.id,
      scopes,
      resource,
      redirectUri,
      state,
      challenge,
      expiresAt: this.options.clock.now() + PAGE_LIFETIME_MS,
    });
    const who = escapeHtml(client.name ?? client.id);
    const what = scopes.length > 0 ? ` with scope <code>${escapeHtml(scopes.join(" "))}</code>` : "";
    return page(
      200,
      "Authorize",
      `<p><strong>${who}</strong> asks to use the MCP server${what}.</p>
<form method="post" action="${escapeHtml(this.metadata.authorization_endpoint)}">
<input type="hidden" name="request" value="${id}">
<button name="decision" value="approve">Approve</button>
<button name="decision" value="deny">Deny</button>
</form>`,
    );
  }

  private decide(form: URLSearchParams): Response {
    const id = form.get("request") ?? "";
    const pending = this.pending.get(id);
    this.pending.delete(id);
    if (pending === undefined || pending.expiresAt <= this.options.clock.now()) {
      return page(400, "Expired", "<p>This authorization request is unknown or expired. Start again.</p>");
    }
    if (form.get("decision") !== "approve") {
      return this.redirectBack(
        pending.redirectUri,
        { error: "access_denied", error_description: "the request was denied" },
        pending.state,
      );
    }
    const code = secret(24);
    this.codes.set(code, { ...pending, expiresAt: this.options.clock.now() + CODE_LIFETIME_MS });
    return this.redirectBack(pending.redirectUri, { code }, pending.state);
  }

  private redirectBack(
    redirectUri: string,
    params: Record<string, string>,
    state: string | undefined,
  ): Response {
    const target = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
    if (state !== undefined) target.searchParams.set("state", state);
    target.searchParams.set("iss", this.options.issuer);
    return new Response(null, {
      status: 302,
      headers: { location: target.href, "cache-control": "no-store" },
    });
  }

  /* ---- tokens ------------------------------------------------------------------------------------- */

  private async token(request: Request): Promise<Response> {
    if (request.method !== "POST") return methodNotAllowed("POST");
    const form = new URLSearchParams(await request.text());
    const grantType = form.get("grant_type") ?? "";
    try {
      const client = this.authenticate(request, form);
      const tokens =
        grantType === "authorization_code"
          ? this.exchangeCode(client, form)
          : grantType === "refresh_token"
            ? this.refresh(client, form)
            : unsupportedGrant();
      this.tokenRequests.push({ grantType, issued: true });
      return Response.json(tokens, { headers: { "cache-control": "no-store", pragma: "no-cache" } });
    } catch (error) {
      this.tokenRequests.push({ grantType, issued: false });
      throw error;
    }
  }

  /** The client a token or revocation request comes from, by the method it registered. */
  private authenticate(request: Request, form: URLSearchParams): Client {
    const basic = /^Basic\s+(.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    let id = form.get("client_id") ?? undefined;
    let presented = form.get("client_secret") ?? undefined;
    let method: Client["authMethod"] = presented === undefined ? "none" : "client_secret_post";
    if (basic !== undefined) {
      const [user = "", password = ""] = Buffer.from(basic, "base64").toString("utf8").split(":");
      id = decodeURIComponent(user);
      presented = decodeURIComponent(password);
      method = "client_secret_basic";
    }
    const client = id === undefined ? undefined : this.clients.get(id);
    if (client === undefined) throw new OAuthError(OAuthErrorCode.InvalidClient, "unknown client");
    if (client.authMethod !== method) {
      throw new OAuthError(OAuthErrorCode.InvalidClient, `the client registered ${client.authMethod}`);
    }
    if (client.secret !== undefined && !sameSecret(client.secret, presented ?? "")) {
      throw new OAuthError(OAuthErrorCode.InvalidClient, "wrong client secret");
    }
    return client;
  }

  private exchangeCode(client: Client, form: URLSearchParams): Record<string, unknown> {
    const code = this.codes.get(form.get("code") ?? "");
    this.codes.delete(form.get("code") ?? ""); // one use, whatever happens next
    if (code === undefined || code.expiresAt <= this.options.clock.now() || code.clientId !== client.id) {
      throw new OAuthError(OAuthErrorCode.InvalidGrant, "the code is unknown, used or expired");
    }
    if (form.get("redirect_uri") !== code.redirectUri) {
      throw new OAuthError(
        OAuthErrorCode.InvalidGrant,
        "redirect_uri does not match the authorization request",
      );
    }
    const verifier = form.get("code_verifier") ?? "";
    if (createHash("sha256").update(verifier).digest("base64url") !== code.challenge) {
      throw new OAuthError(OAuthErrorCode.InvalidGrant, "code_verifier does not match the code_challenge");
    }
    const resource = form.get("resource") ?? code.resource;
    if (resource !== undefined && !sameResource(resource, this.options.resource)) {
      throw new OAuthError("invalid_target", "resource is not this server");
    }
    return this.issue({ clientId: client.id, scopes: code.scopes, resource, grantId: secret(9) });
  }

  private refresh(client: Client, form: URLSearchParams): Record<string, unknown> {
    const presented = form.get("refresh_token") ?? "";
    const grant = this.refreshTokens.get(presented);
    // Rotation: a refresh token works once. A second use (a client that raced itself) is refused.
    this.refreshTokens.delete(presented);
    if (grant === undefined || grant.clientId !== client.id) {
      throw new OAuthError(OAuthErrorCode.InvalidGrant, "the refresh token is unknown, used or revoked");
    }
    let scopes = grant.scopes;
    const asked = form.get("scope");
    if (asked !== null) {
      const narrowed = asked.split(" ").filter(Boolean);
      if (!narrowed.every((scope) => grant.scopes.includes(scope))) {
        throw new OAuthError(OAuthErrorCode.InvalidScope, "a refresh cannot widen the scope");
      }
      scopes = narrowed;
    }
    return this.issue({ ...grant, scopes });
  }

  private issue(grant: IssuedGrant): Record<string, unknown> {
    if (this.accessTokens.size >= MAX_ENTRIES) this.forgetExpired();
    const access = `mcpt_at_${secret(24)}`;
    const refresh = `mcpt_rt_${secret(24)}`;
    const lifetime = this.options.tokenLifetimeMs;
    this.accessTokens.set(access, { ...grant, expiresAt: this.options.clock.now() + lifetime });
    this.refreshTokens.set(refresh, grant);
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: Math.max(1, Math.round(lifetime / 1000)),
      refresh_token: refresh,
      ...(grant.scopes.length > 0 && { scope: grant.scopes.join(" ") }),
    };
  }

  private async revoke(request: Request): Promise<Response> {
    if (request.method !== "POST") return methodNotAllowed("POST");
    const form = new URLSearchParams(await request.text());
    const client = this.authenticate(request, form);
    const token = form.get("token") ?? "";
    if (this.accessTokens.get(token)?.clientId === client.id) this.accessTokens.delete(token);
    const grant = this.refreshTokens.get(token);
    if (grant?.clientId === client.id) {
      // Revoking a refresh token ends its whole authorization, access tokens included (RFC 7009 §2.1).
      this.refreshTokens.delete(token);
      for (const [access, entry] of this.accessTokens)
        if (entry.grantId === grant.grantId) this.accessTokens.delete(access);
    }
    return new Response(null, { status: 200 });
  }

  /** The scopes to grant for a request's `scope` (none asked: every supported one), or undefined if unsupported. */
  private grantedScopes(asked: string | null): string[] | undefined {
    const supported = this.options.scopesSupported;
    const wanted = asked === null ? [...supported] : asked.split(" ").filter(Boolean);
    if (supported.length === 0) return wanted;
    // `offline_access` is how some clients ask for a refresh token; one comes anyway.
    const granted = wanted.filter((scope) => scope !== "offline_access");
    return granted.every((scope) => supported.includes(scope)) ? granted : undefined;
  }

  private forgetExpired(): void {
    const now = this.options.clock.now();
    for (const [id, entry] of this.pending) if (entry.expiresAt <= now) this.pending.delete(id);
    for (const [code, entry] of this.codes) if (entry.expiresAt <= now) this.codes.delete(code);
    for (const [token, entry] of this.accessTokens)
      if (entry.expiresAt <= now) this.accessTokens.delete(token);
  }
}

function unsupportedGrant(): never {
  throw new OAuthError(
    OAuthErrorCode.UnsupportedGrantType,
    "grant_type must be authorization_code or refresh_token",
  );
}

function secret(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}

function sameSecret(expected: string, presented: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

function isRedirectUri(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return (
      url.hash === "" &&
      (url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname)))
    );
  } catch {
    return false;
  }
}

/** Exact match, except that a loopback redirect may use any port (RFC 8252 §7.3). */
function sameRedirect(registered: string, presented: string): boolean {
  if (registered === presented) return true;
  try {
    const a = new URL(registered);
    const b = new URL(presented);
    if (a.protocol !== "http:" || !LOOPBACK.has(a.hostname)) return false;
    a.port = "";
    b.port = "";
    return a.href === b.href;
  } catch {
    return false;
  }
}

/** Compared as URLs without a fragment or a trailing slash, as the SDK's resource check does. */
function sameResource(a: string, b: string): boolean {
  const normal = (value: string) => {
    try {
      const url = new URL(value);
      url.hash = "";
      return url.href.replace(/\/$/, "");
    } catch {
      return value;
    }
  };
  return normal(a) === normal(b);
}

function methodNotAllowed(allow: string): Response {
  return new Response("Method not allowed", { status: 405, headers: { allow } });
}

function page(status: number, title: string, body: string): Response {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
  return new Response(html, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
