/**
 * `mcp-tasks logout` revokes the stored tokens only at the authorization server that issued them. The MCP server
 * moved to another authorization server (SEP-2352): a later command discovered the new one and registered there,
 * so the stored discovery state and client are the new server's, while the tokens are still the old one's. Logout
 * posts them to the old server's revocation endpoint, never to the new one's. Two loopback authorization servers
 * on 127.0.0.1 record what reaches their revocation endpoints; the credentials file is written by the command's
 * own provider, in the order the SDK's OAuth code calls it.
 */
import { rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialsFileFor, CredentialsProvider } from "../../../src/cli/credentials.js";
import { runCli, cliHome, stateDir } from "./harness.js";

const SERVER = "http://127.0.0.1:9/mcp";

interface AuthorizationServer {
  readonly issuer: string;
  /** The form of every revocation request that reached it. */
  readonly revocations: Array<Record<string, string>>;
  discovery(): OAuthDiscoveryState;
  close(): Promise<void>;
}

async function startAuthorizationServer(): Promise<AuthorizationServer> {
  const revocations: Array<Record<string, string>> = [];
  const http: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/revoke") {
        revocations.push(Object.fromEntries(new URLSearchParams(body)));
        res.writeHead(200).end();
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    issuer,
    revocations,
    discovery: () => ({
      authorizationServerUrl: issuer,
      resourceMetadata: { resource: SERVER, authorization_servers: [issuer] },
      authorizationServerMetadata: {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        revocation_endpoint: `${issuer}/revoke`,
        response_types_supported: ["code"],
      },
    }),
    close: () => new Promise((resolve) => (http.closeAllConnections(), http.close(() => resolve()))),
  };
}

let former: AuthorizationServer;
let current: AuthorizationServer;
let state: ReturnType<typeof stateDir>;
let config: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ state, config, env } = cliHome());
  [former, current] = await Promise.all([startAuthorizationServer(), startAuthorizationServer()]);
});

afterAll(async () => {
  await Promise.all([former.close(), current.close()]);
  state.remove();
  rmSync(config, { recursive: true, force: true });
});

/** The command's provider over the server's credentials file, as `login` and every later command make it. */
const provider = () =>
  new CredentialsProvider(credentialsFileFor(SERVER, { XDG_CONFIG_HOME: config }), {
    v: 1,
    server: SERVER,
    redirectUrl: "http://127.0.0.1:1/callback",
  });

describe("logout after the server moved to another authorization server", () => {
  it("revokes the tokens at the server that issued them, and sends them nowhere else", async () => {
    // `login`: discovery, registration and the code exchange at the former server (the SDK stamps the issuer).
    const login = provider();
    login.saveDiscoveryState(former.discovery());
    login.saveClientInformation({ client_id: "client-at-former", issuer: former.issuer } as never);
    login.saveTokens({
      access_token: "access-from-former",
      refresh_token: "refresh-from-former",
      token_type: "Bearer",
      issuer: former.issuer,
    } as never);
    // A later command: the token refused, the resource now names the current server; discovered and registered
    // there, then stopped for want of a browser. The tokens stay the former server's.
    const later = new CredentialsProvider(credentialsFileFor(SERVER, { XDG_CONFIG_HOME: config }), {
      ...credentialsFileFor(SERVER, { XDG_CONFIG_HOME: config }).load()!,
    });
    later.saveDiscoveryState(current.discovery());
    later.saveClientInformation({ client_id: "client-at-current", issuer: current.issuer } as never);

    const run = await runCli(["logout", SERVER], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/logged out of \S+: removed \S+ \(the server revoked the tokens\)/);
    expect(current.revocations).toEqual([]);
    expect(former.revocations).toEqual([{ token: "refresh-from-former", client_id: "client-at-former" }]);
  });

  it("revokes nothing when a file written before the issuer was recorded names another server than its tokens", async () => {
    const before = { former: former.revocations.length, current: current.revocations.length };
    // An older version's file: no `issuedBy`, the tokens stamped by the SDK with the former server.
    credentialsFileFor(SERVER, { XDG_CONFIG_HOME: config }).save({
      v: 1,
      server: SERVER,
      redirectUrl: "http://127.0.0.1:1/callback",
      discovery: current.discovery(),
      client: { client_id: "client-at-current", issuer: current.issuer } as never,
      tokens: {
        access_token: "a",
        refresh_token: "old-refresh",
        token_type: "Bearer",
        issuer: former.issuer,
      } as never,
    });
    const run = await runCli(["logout", SERVER], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("not revoked: which authorization server issued them is not known");
    expect(current.revocations.length).toBe(before.current);
    expect(former.revocations.length).toBe(before.former);
  });
});
