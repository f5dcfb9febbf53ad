/**
 * The `auth` option of the reference server (`startTaskServer({ auth })`, `mcp-tasks-server --auth`): a static
 * bearer token, or OAuth with an authorization server in the same process.
 */
/** Every request must carry `Authorization: Bearer <token>`. */
export interface BearerAuthOptions {
  readonly type: "bearer";
  readonly token: string;
  /** The scopes the token has. Default: `requiredScopes` (all of them). */
  readonly scopes?: readonly string[];
  /** Scopes every request needs; a token without them gets 403 `insufficient_scope` naming them. Default none. */
  readonly requiredScopes?: readonly string[];
}

/**
 * The server is an OAuth 2.1 protected resource (RFC 9728 metadata) with its own authorization server on the same
 * origin: metadata (RFC 8414, with `iss` in the authorization response, RFC 9207), dynamic client registration
 * (RFC 7591), an authorization page to approve or deny, PKCE (S256 only), refresh tokens rotated on every use,
 * and tokens bound to the server's URL (RFC 8707).
 */
export interface OAuthServerOptions {
  readonly type: "oauth";
  /** How long an access token lives. Default one hour. */
  readonly tokenLifetimeMs?: number;
  /** `scopes_supported` of both metadata documents. Default none (tokens then carry the scope asked for). */
  readonly scopesSupported?: readonly string[];
  /** Scopes every request needs; a token without them gets 403 `insufficient_scope` naming them. Default none. */
  readonly requiredScopes?: readonly string[];
}

/** The `auth` option of `startTaskServer`: a fixed bearer token, or a small OAuth authorization server. */
export type ServerAuthOptions = BearerAuthOptions | OAuthServerOptions;

const DEFAULT_TOKEN_LIFETIME_MS = 3_600_000;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** The options, checked; a mistake throws a `TypeError` naming the field. */
export function checkAuthOptions(auth: ServerAuthOptions): Required<OAuthServerOptions> | BearerAuthOptions {
  const type = (auth as { type?: unknown }).type;
  const scopes = (name: string, value: readonly string[] | undefined): readonly string[] => {
    if (value === undefined) return [];
    if (
      !Array.isArray(value) ||
      !value.every((scope) => typeof scope === "string" && SCOPE_TOKEN.test(scope))
    ) {
      throw new TypeError(`auth.${name} must be an array of scope tokens`);
    }
    return [...value];
  };
  if (type === "bearer") {
    const { token } = auth as BearerAuthOptions;
    if (typeof token !== "string" || !/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
      throw new TypeError("auth.token must be a non-empty bearer token (RFC 6750 b64token characters)");
    }
    const required = scopes("requiredScopes", (auth as BearerAuthOptions).requiredScopes);
    const has = (auth as BearerAuthOptions).scopes;
    return {
      type,
      token,
      requiredScopes: required,
      scopes: has === undefined ? required : scopes("scopes", has),
    };
  }
  if (type === "oauth") {
    const options = auth as OAuthServerOptions;
    const lifetime = options.tokenLifetimeMs ?? DEFAULT_TOKEN_LIFETIME_MS;
    if (!Number.isSafeInteger(lifetime) || lifetime <= 0) {
      throw new TypeError("auth.tokenLifetimeMs must be a positive whole number of milliseconds");
    }
    return {
      type,
      tokenLifetimeMs: lifetime,
      scopesSupported: scopes("scopesSupported", options.scopesSupported),
      requiredScopes: scopes("requiredScopes", options.requiredScopes),
    };
  }
  throw new TypeError('auth.type must be "bearer" or "oauth"');
}
