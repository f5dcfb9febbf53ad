/**
 * The conformance client's OAuth side: an `OAuthClientProvider` (the SDK's interface, handed to `TaskClient` as
 * `auth: oauth(provider)`) that keeps everything in memory for one run, and a non-interactive
 * `authorizationResponse`.
 *
 * The suite's authorization servers approve every request at once: their authorization endpoint answers with a
 * redirect to our `redirect_uri` carrying the code (or an error). There is no browser and nothing listens on the
 * redirect URI; `approve` reads the `Location` and hands it to `TaskClient` as the callback URL, which checks
 * `state` and finishes the flow.
 */
import { randomBytes } from "node:crypto";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";

/** Never visited: the authorization server's redirect to it is read, not followed. */
export const REDIRECT_URL = "http://127.0.0.1:3000/callback";

export interface ConformanceProviderOptions {
  /** A client registered ahead of time (`auth/pre-registration`): no dynamic registration. */
  client?: OAuthClientInformationMixed;
  /** The client ID metadata document's URL, used when the server accepts one (`auth/basic-cimd`). */
  clientMetadataUrl?: string;
  /** Overrides of the registration metadata (grant types, auth method). */
  metadata?: Partial<OAuthClientMetadata>;
}

export class ConformanceOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl: string | undefined;
  /** Every authorization URL the SDK sent us to, in order (a scenario may check the scopes asked for). */
  readonly authorizations: URL[] = [];
  private client: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  constructor(private readonly options: ConformanceProviderOptions = {}) {
    this.client = options.client;
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "mcp-tasks conformance client",
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...this.options.metadata,
    };
  }

  state(): string {
    return randomBytes(16).toString("base64url");
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.client = client;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizations.push(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error("no PKCE code verifier saved");
    return this.verifier;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.discovery = discovery;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    // A pre-registered client stays: there is no other way to get one.
    if ((scope === "all" || scope === "client") && this.options.client === undefined) this.client = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }
}

/** How long the authorization endpoint may take to answer. */
const AUTHORIZE_TIMEOUT_MS = 10_000;

/**
 * `authorizationResponse` for servers that approve at once: requests the authorization URL without following the
 * redirect, and resolves with the redirect's target (the callback URL with `code`, `state` and maybe `iss`).
 */
export async function approve(authorizationUrl: URL): Promise<URL> {
  const response = await fetch(authorizationUrl, {
    redirect: "manual",
    signal: AbortSignal.timeout(AUTHORIZE_TIMEOUT_MS),
  });
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (response.status < 300 || response.status >= 400 || location === null) {
    throw new Error(`the authorization endpoint answered HTTP ${response.status} without a redirect`);
  }
  return new URL(location, authorizationUrl);
}
