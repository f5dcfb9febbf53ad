/**
 * The command against a strict authorization server (oidc-provider, on another origin than the endpoint), whose
 * endpoint asks for `tasks:write` as well for `write_job`: a call the stored tokens cannot make names the missing
 * scope and says how to log in for it; `login --scope` asks for it; `login --json` gives scripts the URL to open.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defineTool, step, textResult } from "../../../src/testing/index.js";
import { NARROW, WIDE, startStrictSetup, type StrictSetup } from "../auth/strict-authorization.js";
import { runCli, spawnCli, cliHome, stateDir, Terminal, waitFor } from "./harness.js";

let setup: StrictSetup;
let state: ReturnType<typeof stateDir>;
let config: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ state, config, env } = cliHome());
  setup = await startStrictSetup({
    tools: [
      defineTool({ name: "read_job", task: "never", steps: [step.complete(textResult("read"))] }),
      defineTool({ name: "write_job", task: "never", steps: [step.complete(textResult("written"))] }),
    ],
    wideTools: ["write_job"],
  });
});

afterAll(async () => {
  await setup.close();
  state.remove();
  rmSync(config, { recursive: true, force: true });
});

/** Runs `login` with `args`, plays the browser with the URL from its first JSON line, and returns its lines. */
async function login(args: string[]): Promise<Record<string, unknown>[]> {
  const child = spawnCli(["login", setup.url, "--no-browser", "--json", ...args], env);
  let stdout = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  try {
    const url = await waitFor(
      () => /\{"event":"authorize","url":"([^"]+)"\}/.exec(stdout)?.[1],
      () => child.output(),
    );
    const landed = await fetch(await setup.approve(url));
    expect(landed.status).toBe(200);
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code, child.output()).toBe(0);
  } finally {
    child.kill();
  }
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

it("login --json prints the authorization URL and the outcome as JSON lines on stdout", async () => {
  const lines = await login([]);
  expect(lines.map((line) => line["event"])).toEqual(["authorize", "loggedIn"]);
  expect(new URL(String(lines[0]!["url"])).origin).toBe(setup.issuer);
  expect(lines[1]).toMatchObject({ event: "loggedIn", server: setup.url, stored: true });
  expect(String(lines[1]!["scope"]).split(" ")).toContain(NARROW);
}, 60_000);

it("a call the stored tokens lack the scope for names the scope and says how to log in for it", async () => {
  expect(await runCli(["call", setup.url, "read_job"], env)).toMatchObject({ code: 0, stdout: "read\n" });
  const run = await runCli(["call", setup.url, "write_job"], env);
  expect(run.code).toBe(8);
  expect(run.stderr).toContain(`needs scope "${NARROW} ${WIDE}"`);
  expect(run.stderr).toContain(`run \`mcp-tasks login ${setup.url} --scope '${NARROW} ${WIDE}'\``);
}, 60_000);

it("login --scope asks for that scope, and the call then goes through", async () => {
  const lines = await login(["--scope", `${NARROW} ${WIDE}`]);
  const asked = new URL(String(lines[0]!["url"])).searchParams.get("scope")!.split(" ");
  expect(asked).toEqual(expect.arrayContaining([NARROW, WIDE]));
  expect(String(lines.at(-1)!["scope"]).split(" ")).toEqual(expect.arrayContaining([NARROW, WIDE]));
  expect(await runCli(["call", setup.url, "write_job"], env)).toMatchObject({ code: 0, stdout: "written\n" });
}, 60_000);

it("on a terminal, a call that needs a wider scope asks once in the browser and carries on", async () => {
  await login([]); // stored tokens with the first challenge's scope only
  const terminal = new Terminal(["call", setup.url, "write_job"], env, config);
  try {
    const screen = await terminal.waitForText("open this URL in a browser");
    expect(screen).toContain(`scope "${NARROW} ${WIDE}`);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S*?%2Fmcp)/.exec(
      terminal.screen().replace(/\n/g, ""),
    )?.[1];
    expect(url).toBeDefined();
    const landed = await fetch(await setup.approve(url!)); // the redirect reaches the command's listener
    expect(landed.status).toBe(200);
    expect(await terminal.exitCode(30_000)).toBe(0);
    expect(terminal.screen()).toContain("written");
  } finally {
    terminal.close();
  }
}, 60_000); // a login, then the call on a terminal with its browser step
