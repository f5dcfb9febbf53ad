/**
 * An `OAuthClientProvider` that keeps everything in memory, as a desktop app's would in its keychain. It records
 * every authorization URL it was sent to (`redirects`) and never opens a browser: tests walk the page with
 * `server.auth.approve(url)`.
 */
import { randomBytes } from "node:crypto";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";

export class MemoryProvider implements OAuthClientProvider {
  readonly redirects: URL[] = [];
  /** Every token this provider ever held (access and refresh), for tests that look for leaks. */
  readonly issued: string[] = [];
  private client: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = "";
  private discovery: OAuthDiscoveryState | undefined;
  /** How many times the provider was told to drop its tokens (a refresh the server refused). */
  invalidations = 0;

  /**
   * @param saveDelayMs how long `saveTokens` takes (a keychain write): long enough for other requests that got a
   *   401 meanwhile to start refreshes of their own with the old refresh token.
   */
  constructor(
    readonly redirectUrl = "http://127.0.0.1:8976/callback",
    private readonly saveDelayMs = 0,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "mcp-tasks tests",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    return randomBytes(12).toString("base64url");
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  async saveTokens(tokens: OAuthTokens): Promise<void> {
    if (this.saveDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.saveDelayMs));
    this.saved = tokens;
    this.issued.push(
      tokens.access_token,
      ...(tokens.refresh_token === undefined ? [] : [tokens.refresh_token]),
    );
  }
  redirectToAuthorization(url: URL): void {
    this.redirects.push(url);
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "tokens") {
      this.saved = undefined;
      this.invalidations++;
    }
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }

  /** The access token now held (tests compare it with what reached the wire; never printed). */
  get accessToken(): string | undefined {
    return this.saved?.access_token;
  }
}
