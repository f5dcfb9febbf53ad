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
  /**
   * Who issued `tokens`, recorded when they were issued: `logout` revokes them there and nowhere else. The
   * discovery state and the client move to another authorization server when the resource names a new one
   * (SEP-2352), while the old tokens stay until a login replaces them.
   */
  issuedBy?: TokenIssuer;
  savedAt?: string;
}

/** The authorization server that issued the stored tokens, and what revoking them there takes. */
export interface TokenIssuer {
  issuer: string;
  /** The client the tokens were issued to (`client_id` of the revocation request). */
  clientId: string;
  /** Its revocation endpoint (RFC 7009), when its metadata named one. */
  revocationEndpoint?: string;
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
    // The SDK saves tokens again to stamp them, without a new grant: who issued them is what was recorded then.
    const reissued = !sameGrant(this.data.tokens, tokens);
    const issuedBy = reissued ? issuerOf(this.data, tokens) : this.data.issuedBy;
    const next: Credentials = { ...this.data, tokens };
    if (issuedBy === undefined) delete next.issuedBy;
    else next.issuedBy = issuedBy;
    this.data = next;
    this.file.save(next);
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
    if (scope === "all" || scope === "tokens") {
      delete next.tokens;
      delete next.issuedBy;
    }
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

/** Whether two token sets are one grant (the same access and refresh tokens). */
function sameGrant(before: OAuthTokens | undefined, after: OAuthTokens): boolean {
  return (
    before !== undefined &&
    before.access_token === after.access_token &&
    before.refresh_token === after.refresh_token
  );
}

/**
 * Who issued the stored tokens: as recorded when they were issued, or, in a file written before that was
 * recorded, the stored authorization server when the SDK's `issuer` stamps on the tokens and the client both name
 * it (tokens without a stamp are not taken to be its). Undefined when it is not known.
 */
export function tokenIssuer(stored: Credentials): TokenIssuer | undefined {
  if (stored.issuedBy !== undefined) return stored.issuedBy;
  const tokens = stored.tokens;
  if (tokens === undefined || (tokens as { issuer?: unknown }).issuer === undefined) return undefined;
  return issuerOf(stored, tokens);
}

/**
 * The issuer of tokens just issued: the authorization server of the discovery state the SDK used for them (it
 * saves that state first), with the client registered there. Undefined when what is stored does not agree on one
 * issuer (the SDK's `issuer` stamps on the tokens and the client say which they belong to).
 */
function issuerOf(data: Credentials, tokens: OAuthTokens): TokenIssuer | undefined {
  const discovery = data.discovery;
  const client = data.client;
  if (discovery === undefined || client === undefined) return undefined;
  const metadata = discovery.authorizationServerMetadata as
    { issuer?: unknown; revocation_endpoint?: unknown } | undefined;
  const issuer = typeof metadata?.issuer === "string" ? metadata.issuer : discovery.authorizationServerUrl;
  if (!stampAgrees(tokens, issuer) || !stampAgrees(client, issuer)) return undefined;
  const endpoint = metadata?.revocation_endpoint;
  return {
    issuer,
    clientId: client.client_id,
    ...(typeof endpoint === "string" && { revocationEndpoint: endpoint }),
  };
}

/** Whether a credential's SDK `issuer` stamp, if it has one, names `issuer` (one trailing "/" aside, as the SDK). */
function stampAgrees(credential: object, issuer: string): boolean {
  const stamp = (credential as { issuer?: unknown }).issuer;
  if (stamp === undefined) return true;
  if (typeof stamp !== "string") return false;
  return stamp.replace(/\/$/, "") === issuer.replace(/\/$/, "");
}
