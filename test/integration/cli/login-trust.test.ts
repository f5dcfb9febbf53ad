/**
 * `login` and the stored credentials against what another party controls: an authorization URL the server
 * chooses (only https://, or http:// to this machine, is shown or opened), requests to the loopback listener
 * that did not come from the authorization server (answered 400; the login waits on), and the credentials
 * directory and files on a shared machine (narrowed to 0700; a file that is a link, or that others may read,
 * is refused).
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTaskServer, type HttpTaskServer } from "../../../src/testing/index.js";
import { runCli, spawnCli, stateDir, waitFor } from "./harness.js";
import { cliTestTools } from "./tools.js";

let oauth: HttpTaskServer;
let state: ReturnType<typeof stateDir>;
let config: string;
let env: NodeJS.ProcessEnv;
let browserLog: string;

beforeAll(async () => {
  state = stateDir();
  config = mkdtempSync(join(tmpdir(), "mcp-tasks-config-"));
  // $BROWSER is a script that records what it was asked to open.
  browserLog = join(config, "browser.log");
  const browser = join(config, "browser.sh");
  writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${browserLog}'\n`, { mode: 0o755 });
  env = { ...state.env, XDG_CONFIG_HOME: config, BROWSER: browser, DISPLAY: "", WAYLAND_DISPLAY: "" };
  oauth = await startTaskServer({ tools: cliTestTools(), auth: { type: "oauth", tokenLifetimeMs: 600_000 } });
});

afterAll(async () => {
  await oauth.close();
  state.remove();
  rmSync(config, { recursive: true, force: true });
});

const credentialsDir = () => join(config, "mcp-tasks", "credentials");
const opened = (): string[] =>
  existsSync(browserLog) ? readFileSync(browserLog, "utf8").trim().split("\n") : [];

/**
 * An MCP endpoint that wants OAuth and names an authorization server (itself) whose authorization endpoint is
 * `authorizationEndpoint`, with dynamic registration, so the client gets as far as opening that URL.
 */
async function serverWithAuthorizationEndpoint(
  authorizationEndpoint: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const http: HttpServer = createServer((req, res) => {
    const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    req.resume();
    if (req.url === "/mcp") {
      res
        .writeHead(401, {
          "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        })
        .end();
    } else if (req.url?.startsWith("/.well-known/oauth-protected-resource")) {
      json(200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
    } else if (req.url === "/.well-known/oauth-authorization-server") {
      json(200, {
        issuer: origin,
        authorization_endpoint: authorizationEndpoint,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ["code"],
        code_challenge_methods_supported: ["S256"],
      });
    } else if (req.url === "/register") {
      json(201, { client_id: "hostile-client", redirect_uris: ["http://127.0.0.1/callback"] });
    } else json(404, {});
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: () => new Promise((resolve) => (http.closeAllConnections(), http.close(() => resolve()))),
  };
}

describe("the authorization URL", () => {
  it.each([
    ["file:///etc/passwd", "its scheme is file:"],
    ["http://auth.example/authorize", "it is plain http:// to another machine"],
  ])("%s is neither shown nor opened, and login exits 8", async (endpoint, why) => {
    const hostile = await serverWithAuthorizationEndpoint(endpoint);
    try {
      const before = opened().length;
      const run = await runCli(["login", hostile.url, "--timeout", "3s"], env);
      expect(opened().length).toBe(before); // the browser was never started
      expect(run.stderr).not.toContain(endpoint.split("?")[0]);
      expect(run.code).toBe(8);
      expect(run.stderr).toContain(
        `cannot log in to ${hostile.url}: its authorization URL was not shown or opened, because ${why}`,
      );
    } finally {
      await hostile.close();
    }
  });
});

describe("login on a shared machine", () => {
  it("answers a forged callback 400, keeps waiting, and narrows a wider credentials directory", async () => {
    mkdirSync(credentialsDir(), { recursive: true });
    chmodSync(credentialsDir(), 0o777);
    const login = spawnCli(["login", oauth.url], env);
    try {
      // The loopback URL is http:// to this machine: accepted, shown and opened.
      const authorizationUrl = await waitFor(
        () => opened().find((url) => url.startsWith(oauth.url.replace(/\/mcp$/, ""))),
        () => login.output(),
        30_000, // discovery, registration and a browser start on a busy machine
      );
      expect(login.output()).toContain(authorizationUrl);
      const listener = new URL(authorizationUrl).searchParams.get("redirect_uri") as string;
      // A page elsewhere makes the browser call the listener first, with a code of its own.
      const forged = [`${listener}?code=attacker&state=guessed`, `${listener}?code=attacker`];
      for (const url of forged) expect((await fetch(url)).status).toBe(400);
      expect(login.exitCode).toBeNull(); // still waiting for the real answer

      const callback = await oauth.auth!.approve(authorizationUrl);
      expect((await fetch(callback)).status).toBe(200);
      expect((await fetch(callback)).status).toBe(400); // the same answer twice is taken once
      const code = await new Promise<number | null>((resolve) => login.once("exit", resolve));
      expect(code, login.output()).toBe(0);
    } finally {
      login.kill();
    }
    expect(statSync(credentialsDir()).mode & 0o777).toBe(0o700);
  }, 40_000);

  it("refuses a credentials file that is a symbolic link, or that others may read", async () => {
    const [name] = readdirSync(credentialsDir());
    const path = join(credentialsDir(), name!);
    const elsewhere = join(config, "elsewhere.json");
    copyFileSync(path, elsewhere);
    chmodSync(elsewhere, 0o600);
    const works = await runCli(["call", oauth.url, "greet", "name=Ann"], env);
    expect(works).toMatchObject({ code: 0, stdout: "Hello, Ann!\n" });

    rmSync(path);
    symlinkSync(elsewhere, path);
    const linked = await runCli(["call", oauth.url, "greet", "name=Ann"], env);
    expect(linked.code).toBe(2);
    expect(linked.stderr).toContain(`refusing the stored credentials: ${path} is a symbolic link`);

    rmSync(path);
    copyFileSync(elsewhere, path);
    chmodSync(path, 0o644);
    const readable = await runCli(["call", oauth.url, "greet", "name=Ann"], env);
    expect(readable.code).toBe(2);
    expect(readable.stderr).toContain(
      `refusing the stored credentials: ${path}: others may read or change it (mode 0644, not 0600)`,
    );
    expect(readable.stderr).toContain(`mcp-tasks logout ${oauth.url}`);

    const logout = await runCli(["logout", oauth.url], env);
    expect(logout.code).toBe(0);
    expect(logout.stderr).toContain(`removed ${path} without revoking anything`);
    expect(existsSync(path)).toBe(false);
  });
});
