/**
 * Running the built `mcp-tasks` command as a user would: as a child process (no terminal), or inside a real
 * pseudo-terminal (a detached tmux session) that tests type into and read from. The tests run dist/cli.js
 * through bin/mcp-tasks.js (`MCP_TASKS_CLI_BUILT=1`): starting tsx in every child costs seconds on a busy
 * machine, and `npm test` builds dist/ (check:package) before the unit tests. A stale build fails loudly.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { assertFreshBuild, ROOT } from "../../package/packed.js";

const exec = promisify(execFile);
export const BIN = join(ROOT, "bin", "mcp-tasks.js");

/** A temporary state directory (the default store lives in `$XDG_STATE_HOME/mcp-tasks`). */
export function stateDir(): { env: NodeJS.ProcessEnv; storeDir: string; remove(): void } {
  assertFreshBuild();
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-cli-"));
  return {
    env: { ...process.env, XDG_STATE_HOME: dir, MCP_TASKS_CLI_BUILT: "1" },
    storeDir: join(dir, "mcp-tasks"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A fresh state and config home for a command that signs in. No DISPLAY and no BROWSER: the command must never try
 * to open anything. Remove both with `state.remove()` and `rmSync(config, …)`.
 */
export function cliHome(): { state: ReturnType<typeof stateDir>; config: string; env: NodeJS.ProcessEnv } {
  const state = stateDir();
  const config = mkdtempSync(join(tmpdir(), "mcp-tasks-config-"));
  const env = { ...state.env, XDG_CONFIG_HOME: config, DISPLAY: "", WAYLAND_DISPLAY: "", BROWSER: "" };
  return { state, config, env };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command without a terminal (in `cwd`, default this process's); bounded by `timeoutMs`. */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 20_000,
  cwd?: string,
): Promise<CliRun> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], {
      env,
      timeout: timeoutMs,
      ...(cwd !== undefined && { cwd }),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean };
    if (failed.killed) throw new Error(`mcp-tasks ${args.join(" ")} did not exit within ${timeoutMs} ms`);
    return { code: Number(failed.code), stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** Starts the command without a terminal and leaves it running. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv): ChildProcess & { output(): string } {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return Object.assign(child, { output: () => output });
}

/** Polls `check` every 50 ms until it returns a value; throws after `timeoutMs` with `describe()` attached. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  describe: () => string,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms; last seen:\n${describe()}`);
}

let sessions = 0;

/** The command in a pseudo-terminal: a detached tmux session running it under bash. */
export class Terminal {
  readonly name = `mcp-tasks-cli-${process.pid}-${++sessions}`;
  private readonly exitFile: string;

  constructor(args: string[], env: NodeJS.ProcessEnv, dir: string) {
    this.exitFile = join(dir, `${this.name}.exit`);
    const quoted = [process.execPath, BIN, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`);
    // bash runs on after the command handles Ctrl-C itself and exits, and records its exit code.
    const script = `${quoted.join(" ")}; echo $? > '${this.exitFile}'; sleep 600`;
    const envArgs = [
      "XDG_STATE_HOME",
      "XDG_CONFIG_HOME",
      "MCP_TASKS_CLI_BUILT",
      "BROWSER",
      "DISPLAY",
    ].flatMap((key) => ["-e", `${key}=${env[key] ?? ""}`]);
    const command = [
      "new-session",
      "-d",
      "-s",
      this.name,
      "-x",
      "160",
      "-y",
      "50",
      ...envArgs,
      "bash",
      "-c",
      script,
    ];
    // The tmux server exits when the previous test's last session is killed; a session opened while it is
    // still shutting down fails with "server exited unexpectedly" and is opened again on a new server.
    for (let attempt = 1; ; attempt++) {
      try {
        tmux(command);
        return;
      } catch (error) {
        if (attempt === 3 || !String((error as { stderr?: unknown }).stderr).includes("server exited"))
          throw error;
      }
    }
  }

  /** What the terminal shows now. */
  screen(): string {
    return tmux(["capture-pane", "-p", "-t", this.name, "-S", "-100"]);
  }

  /** Types keys (`C-c`, `Enter`, or text). */
  keys(...keys: string[]): void {
    tmux(["send-keys", "-t", this.name, ...keys]);
  }

  async waitForText(text: string | RegExp, timeoutMs = 15_000): Promise<string> {
    return waitFor(
      () => {
        const screen = this.screen();
        return (typeof text === "string" ? screen.includes(text) : text.test(screen)) && screen;
      },
      () => this.screen(),
      timeoutMs,
    );
  }

  async exitCode(timeoutMs = 15_000): Promise<number> {
    const text = await waitFor(
      () => existsSync(this.exitFile) && readFileSync(this.exitFile, "utf8").trim(),
      () => this.screen(),
      timeoutMs,
    );
    return Number(text);
  }

  close(): void {
    try {
      tmux(["kill-session", "-t", this.name]);
    } catch {
      // already gone
    }
  }
}

/** tmux on a socket of this test process's own, so the tests never touch a user's sessions or each other's. */
function tmux(args: string[]): string {
  return execFileSync("tmux", ["-L", `mcp-tasks-cli-tests-${process.pid}`, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 10_000,
  });
}
