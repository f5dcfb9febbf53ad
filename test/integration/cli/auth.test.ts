/**
 * The command against authenticated reference servers: `--header` (with `${VAR}` and `@file`), `login` with the
 * browser step scripted (the authorization page approved with `fetch`, the redirect followed to the command's
 * loopback listener), a call using the stored tokens (refreshed once they expire), `logout`, and exit code 8 with
 * advice when the server refuses. No credential is ever printed.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTaskServer, type Clock, type HttpTaskServer } from "../../../src/testing/index.js";
import { runCli, spawnCli, cliHome, stateDir, waitFor } from "./harness.js";
import { cliTestTools } from "./tools.js";

const TOKEN = "cli-bearer-9c2e51f0";
let skew = 0;
const clock: Clock = {
  now: () => Date.now() + skew,
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

let bearer: HttpTaskServer;
let oauth: HttpTaskServer;
let state: ReturnType<typeof stateDir>;
let config: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ state, config, env } = cliHome());
  [bearer, oauth] = await Promise.all([
    startTaskServer({ tools: cliTestTools(), auth: { type: "bearer", token: TOKEN } }),
    startTaskServer({ tools: cliTestTools(), clock, auth: { type: "oauth", tokenLifetimeMs: 600_000 } }),
  ]);
});

afterAll(async () => {
  await Promise.all([bearer.close(), oauth.close()]);
  state.remove();
  rmSync(config, { recursive: true, force: true });
});

const credentialsDir = () => join(config, "mcp-tasks", "credentials");

describe("--header", () => {
  it("sends the header on every request, reading ${VAR} from the environment, and never prints it", async () => {
    const run = await runCli(
      ["call", bearer.url, "greet", "name=Ada", "--header", "Authorization: Bearer ${CLI_TOKEN}"],
      { ...env, CLI_TOKEN: TOKEN },
    );
    expect(run).toMatchObject({ code: 0, stdout: "Hello, Ada!\n" });
    const mine = bearer.requests.all().filter((request) => request.method === "tools/call");
    expect(mine.at(-1)?.headers["authorization"]).toBe(`Bearer ${TOKEN}`);
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });

  it("reads headers from @file", async () => {
    const file = join(config, "headers.txt");
    writeFileSync(file, `# staging\nAuthorization: Bearer ${TOKEN}\nX-Trace: cli-test\n`, { mode: 0o600 });
    const run = await runCli(["call", bearer.url, "greet", "name=Bo", "--header", `@${file}`], env);
    expect(run).toMatchObject({ code: 0, stdout: "Hello, Bo!\n" });
    expect(bearer.requests.last("tools/call")?.headers["x-trace"]).toBe("cli-test");
  });

  it("exits 8 when the server refuses the header, without advising login (the header replaces stored tokens) or printing the value", async () => {
    const run = await runCli(
      ["call", bearer.url, "greet", "--header", "Authorization: Bearer nope-7f3a"],
      env,
    );
    expect(run.code).toBe(8);
    expect(run.stderr).toContain(`${bearer.url} refused the --header Authorization (HTTP 401)`);
    expect(run.stderr).not.toContain("mcp-tasks login");
    expect(run.stdout + run.stderr).not.toContain("nope-7f3a");
  });

  it("a refusal in the middle of a task exits 8 and says how to follow the task again", async () => {
    const child = spawnCli(
      ["call", bearer.url, "long_job", "--header", "Authorization: Bearer ${CLI_TOKEN}"],
      { ...env, CLI_TOKEN: TOKEN },
    );
    try {
      await waitFor(
        () => /task (\S+) created/.exec(child.output()) ?? undefined,
        () => child.output(),
      );
      bearer.auth!.revokeAll(); // for good: this is the last test of the bearer server
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code).toBe(8);
      expect(child.output()).toMatch(
        /refused the --header Authorization \(HTTP 401\).*the task keeps running: once authorized, follow it with: mcp-tasks watch \S+ --server \S+ \(with the same --header options\)/,
      );
      expect(child.output()).not.toContain(TOKEN);
    } finally {
      child.kill();
    }
  });
});

describe("login, a call with the stored tokens, logout", () => {
  it("logs in through the browser step, stores the tokens readable by the user only, and uses them", async () => {
    const login = spawnCli(["login", oauth.url, "--no-browser"], env);
    let authorizationUrl: string;
    try {
      authorizationUrl = await waitFor(
        () => /^\s+(http\S+\/authorize\?\S+)$/m.exec(login.output())?.[1],
        () => login.output(),
      );
      // The browser: the authorization page, the Approve button, then the redirect to the command's listener.
      const callback = await oauth.auth!.approve(authorizationUrl);
      expect(callback.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const landed = await fetch(callback);
      expect(landed.status).toBe(200);
      expect(await landed.text()).toContain("You can close this window");
      const code = await new Promise<number | null>((resolve) => login.once("exit", resolve));
      expect(code, login.output()).toBe(0);
    } finally {
      login.kill();
    }
    expect(new URL(authorizationUrl).searchParams.get("code_challenge_method")).toBe("S256");
    expect(login.output()).toMatch(/logged in to \S+; tokens stored in \S+ \(readable by you only\)/);

    const [file] = readdirSync(credentialsDir());
    const path = join(credentialsDir(), file!);
    expect(statSync(credentialsDir()).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(path, "utf8")) as {
      server: string;
      tokens: { access_token: string };
    };
    expect(stored.server).toBe(oauth.url);
    expect(login.output()).not.toContain(stored.tokens.access_token);

    const call = await runCli(["call", oauth.url, "greet", "name=Cy"], env);
    expect(call).toMatchObject({ code: 0, stdout: "Hello, Cy!\n" });
    expect(oauth.requests.last("tools/call")?.headers["authorization"]).toBe(
      `Bearer ${stored.tokens.access_token}`,
    );
  }, 40_000); // one command doing the whole flow: discovery, registration, the page, the exchange

  it("refreshes expired stored tokens and writes the new ones back", async () => {
    const path = join(credentialsDir(), readdirSync(credentialsDir())[0]!);
    const before = JSON.parse(readFileSync(path, "utf8")) as { tokens: { access_token: string } };
    skew += 601_000; // every access token has expired
    const call = await runCli(["tools", oauth.url], env);
    expect(call.code, call.stderr).toBe(0);
    const after = JSON.parse(readFileSync(path, "utf8")) as { tokens: { access_token: string } };
    expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
    expect(oauth.auth!.tokenRequests.at(-1)).toEqual({ grantType: "refresh_token", issued: true });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("logs out: the file goes, the grant is revoked, and the next call is told to log in", async () => {
    const path = join(credentialsDir(), readdirSync(credentialsDir())[0]!);
    const stored = JSON.parse(readFileSync(path, "utf8")) as { tokens: { access_token: string } };
    const logout = await runCli(["logout", oauth.url], env);
    expect(logout.code).toBe(0);
    expect(logout.stderr).toMatch(/logged out of \S+: removed \S+ \(the server revoked the tokens\)/);
    expect(readdirSync(credentialsDir())).toEqual([]);
    const call = await runCli(["call", oauth.url, "greet"], env);
    expect(call.code).toBe(8);
    expect(call.stderr).toContain(`run \`mcp-tasks login ${oauth.url}\``);
    // Revoking the refresh token ended the whole grant: the old access token is refused too.
    const reuse = await runCli(
      ["call", oauth.url, "greet", "--header", `Authorization: Bearer ${stored.tokens.access_token}`],
      env,
    );
    expect(reuse.code).toBe(8);
    expect(reuse.stdout + reuse.stderr).not.toContain(stored.tokens.access_token);
  });

  it("login to a server that does not ask for authorization stores nothing", async () => {
    const open = await startTaskServer({ tools: cliTestTools() });
    try {
      const run = await runCli(["login", open.url, "--no-browser"], env);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain("did not ask for authorization; nothing was stored");
      expect(readdirSync(credentialsDir())).toEqual([]);
    } finally {
      await open.close();
    }
  });
});
