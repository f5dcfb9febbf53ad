/**
 * `--config`: the command over the servers of a user's MCP config file (two reference servers over Streamable
 * HTTP on 127.0.0.1 and one over stdio, from the build): `servers`, `tools`, `call SERVER/TOOL`, `ls`, `watch`
 * and `cancel` across them, `MCP_TASKS_CONFIG`, and the rule that no config file in the working directory is
 * ever read (a cloned repository's `.mcp.json` names commands to start).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTaskServer, type HttpTaskServer } from "../../../src/testing/index.js";
import { ROOT } from "../../package/packed.js";
import { runCli, stateDir } from "./harness.js";
import { cliTestTools } from "./tools.js";

let alpha: HttpTaskServer;
let beta: HttpTaskServer;
let state: ReturnType<typeof stateDir>;
let config: string;
let env: NodeJS.ProcessEnv;
const TOOL_COUNT = 9; // cliTestTools(): the seven fixtures, long_job and stubborn_job
const STDIO_TOOL_COUNT = 7; // the stdio reference server's fixtures

/** The reference server over stdio, from the build. */
const stdioServer = [
  "--input-type=module",
  "-e",
  `const m = await import(${JSON.stringify(join(ROOT, "dist/testing/index.js"))}); await m.taskServerMain(["--stdio"]);`,
];

/** A command that leaves `marker` behind if it is ever run. */
function markerServer(marker: string): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "ran")`],
  };
}

function calledTools(server: HttpTaskServer): string[] {
  return server.requests
    .forMethod("tools/call")
    .map((request) => String((request.body as { params?: { name?: unknown } }).params?.name));
}

function lines(text: string): unknown[] {
  return text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);
}

beforeAll(async () => {
  state = stateDir();
  [alpha, beta] = await Promise.all([
    startTaskServer({ tools: cliTestTools() }),
    startTaskServer({ tools: cliTestTools() }),
  ]);
  config = join(state.storeDir, "..", "claude_desktop_config.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        alpha: { url: alpha.url },
        beta: { url: beta.url, headers: { "X-Team": "${env:TEAM}" } },
        local: { command: process.execPath, args: stdioServer },
        off: { ...markerServer(join(state.storeDir, "..", "disabled.ran")), disabled: true },
      },
    }),
  );
  env = { ...state.env, TEAM: "blue" };
});

afterAll(async () => {
  await Promise.all([alpha.close(), beta.close()]);
  state.remove();
});

describe("--config", () => {
  it("servers: each server of the file, ready, with tasks support and its tool count; a disabled one is skipped", async () => {
    const run = await runCli(["servers", "--config", config, "--json"], env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(lines(run.stdout)).toEqual([
      { name: "alpha", state: "ready", supportsTasks: true, tools: TOOL_COUNT, where: alpha.url },
      { name: "beta", state: "ready", supportsTasks: true, tools: TOOL_COUNT, where: beta.url },
      expect.objectContaining({
        name: "local",
        state: "ready",
        supportsTasks: true,
        tools: STDIO_TOOL_COUNT,
      }),
    ]);
    expect(existsSync(join(state.storeDir, "..", "disabled.ran"))).toBe(false);
    // The ${env:TEAM} header went to beta, and only there.
    expect(beta.requests.all().every((request) => request.headers["x-team"] === "blue")).toBe(true);
    expect(alpha.requests.all().some((request) => "x-team" in request.headers)).toBe(false);
  });

  it("servers: a server that cannot be reached is failed with its error, the others still listed (exit 2)", async () => {
    const withDown = join(state.storeDir, "..", "with-down.json");
    writeFileSync(
      withDown,
      JSON.stringify({
        servers: {
          alpha: { type: "http", url: alpha.url },
          down: { type: "http", url: "http://127.0.0.1:9/mcp" },
        },
      }),
    );
    const run = await runCli(["servers", "--config", withDown], env);
    expect(run.code).toBe(2);
    const [header, first, second] = run.stdout.trim().split("\n");
    expect(header).toMatch(/^SERVER +STATE +TASKS +TOOLS +WHERE$/);
    expect(first).toMatch(
      new RegExp(`^alpha +ready +yes +${TOOL_COUNT} +${alpha.url.replace(/[.]/g, "\\.")}$`),
    );
    expect(second).toMatch(/^down +failed: .+ +\? +- +http:\/\/127\.0\.0\.1:9\/mcp$/);
  });

  it("MCP_TASKS_CONFIG names the file when --config does not", async () => {
    const run = await runCli(["servers", "--json"], { ...env, MCP_TASKS_CONFIG: config });
    expect(run.code).toBe(0);
    expect(lines(run.stdout).map((row) => (row as { name: string }).name)).toEqual([
      "alpha",
      "beta",
      "local",
    ]);
  });

  it("tools: every server's tools as SERVER/TOOL", async () => {
    const run = await runCli(["tools", "--config", config], env);
    expect(run.code).toBe(0);
    const names = run.stdout.split("\n").filter((line) => !line.startsWith(" ") && line !== "");
    expect(names).toHaveLength(2 * TOOL_COUNT + STDIO_TOOL_COUNT);
    for (const server of ["alpha", "beta", "local"])
      expect(names).toContain(`${server}/greet  [task: decided per call]`);
    // One server of the file, by its name: its own tool names.
    const one = await runCli(["tools", "local", "--config", config], env);
    expect(one.code).toBe(0);
    expect(one.stdout.split("\n").filter((line) => /^\S/.test(line))).toHaveLength(STDIO_TOOL_COUNT);
    expect(one.stdout).toContain("greet  [task: decided per call]\n");
  });

  it("call SERVER/TOOL reaches that server only, over HTTP (with the file's headers) or stdio", async () => {
    alpha.requests.clear();
    beta.requests.clear();
    const http = await runCli(["call", "beta/greet", "name=Ada", "--config", config], env);
    expect(http.stdout).toBe("Hello, Ada!\n");
    expect(http.code).toBe(0);
    expect(calledTools(beta)).toEqual(["greet"]);
    expect(beta.requests.forMethod("tools/call")[0]?.headers["x-team"]).toBe("blue");
    expect(calledTools(alpha)).toEqual([]);
    const stdio = await runCli(["call", "local/greet", "name=Grace", "--config", config], env);
    expect(stdio.stdout).toBe("Hello, Grace!\n");
    expect(stdio.code).toBe(0);
    expect(calledTools(alpha)).toEqual([]);
  });

  it("call names an unknown server or tool form clearly (exit 2)", async () => {
    const run = await runCli(["call", "gamma/greet", "--config", config], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'mcp-tasks: with --config, name the tool as SERVER/TOOL (servers: alpha, beta, local), got "gamma/greet"\n',
    );
  });

  it("ls, watch and cancel find a detached task's server in the file", async () => {
    const detached = await runCli(["call", "alpha/long_job", "--detach", "--config", config], env);
    expect(detached.code).toBe(7);
    const { taskId } = JSON.parse(detached.stdout) as { taskId: string };
    expect(detached.stderr).toContain(
      `detached; follow it with: mcp-tasks watch ${taskId} --config ${config} --server alpha`,
    );
    const ls = await runCli(["ls", "--config", config], env);
    expect(ls.stdout).toMatch(new RegExp(`^${taskId} +alpha +long_job +`, "m"));
    // A config without alpha does not list it.
    const other = join(state.storeDir, "..", "beta-only.json");
    writeFileSync(other, JSON.stringify({ mcpServers: { beta: { url: beta.url } } }));
    expect((await runCli(["ls", "--config", other, "--json"], env)).stdout).toBe("");
    const watch = await runCli(["watch", taskId, "--config", config, "--timeout", "300ms"], env);
    expect(watch.code).toBe(6);
    beta.requests.clear();
    const cancel = await runCli(["cancel", taskId, "--config", config], env);
    expect(cancel.code).toBe(4);
    expect(alpha.tasks.get(taskId)?.status).toBe("cancelled");
    expect(beta.requests.all()).toEqual([]);
  });

  it("a task id the store does not know goes only to the server --server names", async () => {
    const bare = await runCli(["watch", "not-in-the-store", "--config", config], env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toBe(
      `mcp-tasks: the store does not know this task's server: give --server with a server of ${config} (the task id goes to that server only)\n`,
    );
    alpha.requests.clear();
    beta.requests.clear();
    const named = await runCli(["watch", "not-in-the-store", "--config", config, "--server", "beta"], env);
    expect(named.code).toBe(5);
    expect(beta.requests.forMethod("tasks/get")).toHaveLength(1);
    expect(alpha.requests.all()).toEqual([]);
  });

  it("a malformed file is a usage error naming the file and the field", async () => {
    const bad = join(state.storeDir, "..", "bad.json");
    writeFileSync(bad, JSON.stringify({ mcpServers: { files: { command: "x", args: "not a list" } } }));
    const run = await runCli(["servers", "--config", bad], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`mcp-tasks: ${bad}: mcpServers.files.args must be an array of strings\n`);
  });
});

describe("a config file in the working directory", () => {
  it("is never read: its commands never start, whatever the command", async () => {
    const repo = join(state.storeDir, "..", "cloned-repo");
    mkdirSync(join(repo, ".vscode"), { recursive: true });
    const markers = [join(repo, "mcp-json.ran"), join(repo, "vscode.ran"), join(repo, "cursor.ran")];
    writeFileSync(
      join(repo, ".mcp.json"),
      JSON.stringify({ mcpServers: { evil: markerServer(markers[0]!) } }),
    );
    writeFileSync(
      join(repo, ".vscode", "mcp.json"),
      JSON.stringify({ servers: { evil: { type: "stdio", ...markerServer(markers[1]!) } } }),
    );
    mkdirSync(join(repo, ".cursor"), { recursive: true });
    writeFileSync(
      join(repo, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { evil: markerServer(markers[2]!) } }),
    );
    const runs = [
      ["servers"],
      ["tools"],
      ["ls"],
      ["call", "evil/greet"],
      ["watch", "some-task"],
      ["servers", "--config", config],
      ["tools", "--config", config],
      ["call", "evil/greet", "--config", config],
    ];
    for (const args of runs) {
      const run = await runCli(args, env, 20_000, repo);
      expect(
        markers.filter((marker) => existsSync(marker)),
        args.join(" "),
      ).toEqual([]);
      expect(run.stdout, args.join(" ")).not.toContain("evil");
    }
    expect((await runCli(["servers"], env, 20_000, repo)).stderr).toBe(
      "mcp-tasks: servers lists the servers of a config file: give --config <file> (or set MCP_TASKS_CONFIG)\n",
    );
  });
});
