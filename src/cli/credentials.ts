/**
 * OAuth credentials of the command, one file per server under the user's configuration directory
 * (`$XDG_CONFIG_HOME/mcp-tasks/credentials/`), readable by the user only (directory 0700, files 0600, written
 * whole and renamed into place). The directory is narrowed to 0700 whenever it is used, and a file that is a
 * symbolic link, belongs to another user or that others may read is refused, not read: someone else could have
 * put it there (private-files.ts). `CredentialsProvider` is the SDK's `OAuthClientProvider` over one such file: the
 * SDK's transport reads the access token from it for every request, refreshes through it on a 401, and saves
 * what it gets back there.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import { privateDirectory, readPrivateFile, writePrivateFile } from "./private-files.js";

/** What one server's file holds. */
export interface Credentials {
  v: 1;
  /** The MCP endpoint these are for. */
  server: string;
  /** The loopback redirect URI registered at login. */
  redirectUrl: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  discovery?: OAuthDiscoveryState;
  savedAt?: string;
}

/** `$XDG_CONFIG_HOME/mcp-tasks/credentials`, or the platform's configuration directory. */
export function defaultCredentialsDir(
  env = process.env,
  platform = process.platform,
  home = homedir(),
): string {
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, "mcp-tasks", "credentials");
  if (platform === "darwin") return join(home, "Library", "Application Support", "mcp-tasks", "credentials");
  if (platform === "win32") {
    return join(env.APPDATA ?? join(home, "AppData", "Roaming"), "mcp-tasks", "credentials");
  }
  return join(home, ".config", "mcp-tasks", "credentials");
}

/** The file of one server's credentials, in the default directory. */
export function credentialsFileFor(url: string, env = process.env): CredentialsFile {
  return new CredentialsFile(defaultCredentialsDir(env), url);
}

export class CredentialsFile {
  readonly path: string;

  constructor(
    readonly dir: string,
    readonly server: string,
  ) {
    const url = new URL(server);
    const readable = `${url.hostname}_${url.port || (url.protocol === "https:" ? "443" : "80")}`.replace(
      /[^\w.-]/g,
      "_",
    );
    const digest = createHash("sha256").update(url.href).digest("hex").slice(0, 16);
    this.path = join(dir, `${readable}-${digest}.json`);
  }

  /**
   * The stored credentials, or undefined when there are none (or the file is not a credentials file for this
   * server). Throws `NotPrivateError` for a file that is not this user's private file.
   */
  load(): Credentials | undefined {
    if (!existsSync(this.dir)) return undefined;
    privateDirectory(this.dir);
    const text = readPrivateFile(this.path);
    if (text === undefined) return undefined;
    try {
      const parsed = JSON.parse(text) as Credentials;
      return parsed.v === 1 && parsed.server === new URL(this.server).href ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  save(credentials: Credentials): void {
    privateDirectory(this.dir);
    writePrivateFile(
      this.path,
      `${JSON.stringify({ ...credentials, savedAt: new Date().toISOString() }, null, 2)}\n`,
    );
  }

  /** Deletes the file (whatever it is: a refused file is removed too, which is what `logout` is for). */
  remove(): void {
    rmSync(this.path, { force: true });
  }
}

/**
 * The SDK's `OAuthClientProvider` over a credentials file. `onRedirect` is what happens when the SDK needs the
 * user at the authorization page: `login` shows the URL (and opens a browser); every other command has none, so
 * the request fails with an `AuthError` and the command says to log in.
 */
export class CredentialsProvider implements OAuthClientProvider {
  private data: Credentials;
  private verifier: string | undefined;

  constructor(
    private readonly file: CredentialsFile,
    data: Credentials,
    private readonly onRedirect?: (url: URL) => void,
  ) {
    this.data = data;
  }

  get redirectUrl(): string {
    return this.data.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "mcp-tasks (command line)",
      redirect_uris: [this.data.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    return randomBytes(16).toString("base64url");
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.data.client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.update({ client });
  }

  tokens(): OAuthTokens | undefined {
    return this.data.tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.update({ tokens });
  }

  redirectToAuthorization(url: URL): void {
    this.onRedirect?.(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier; // one login, one process: never written to disk
  }

  codeVerifier(): string {
    if (this.verifier === undefined)
      throw new Error("no PKCE code verifier: the authorization was not started here");
    return this.verifier;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.update({ discovery });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.data.discovery;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    const next: Credentials = { ...this.data };
    if (scope === "all" || scope === "tokens") delete next.tokens;
    if (scope === "all" || scope === "client") delete next.client;
    if (scope === "all" || scope === "discovery") delete next.discovery;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    this.data = next;
    this.file.save(next);
  }

  private update(change: Partial<Credentials>): void {
    this.data = { ...this.data, ...change };
    this.file.save(this.data);
  }
}
