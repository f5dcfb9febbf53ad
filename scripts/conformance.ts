/**
 * `npm run conformance`: certify both sides with the official conformance suite.
 *
 * - Server side: the reference server (`mcp-tasks/testing`) on a free loopback port, against every `tasks-*`
 *   server scenario the suite lists.
 * - Client side: `TaskClient`, through `conformance/client.ts`, against the client scenarios listed in
 *   `conformance/client-scenarios.ts`, each at the revisions listed there.
 *
 * Every run goes in parallel, with `conformance/baseline.yml` deciding what may fail or be skipped (see
 * `scripts/conformance/verdict.ts`); everything is written under `.conformance/<time>/`. Exits non-zero on any
 * problem, and when the suite cannot run at all (no usable Node 22).
 *
 * `npm run conformance -- <name>…` runs only the scenarios named (server or client, all their revisions).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startTaskServer } from "../src/testing/index.js";
import { CLIENT_SCENARIOS, DONE_LINE } from "../conformance/client-scenarios.js";
import { readBaseline, suiteExpectedFailures, type Baseline } from "./conformance/baseline.js";
import {
  findNode22,
  killRunningSuites,
  listScenarios,
  readResults,
  ROOT,
  runSuite,
} from "./conformance/suite.js";
import { judge, runLabel, summarize, type ScenarioRun } from "./conformance/verdict.js";

const BASELINE = join(ROOT, "conformance/baseline.yml");
const CLIENT_ENTRY = join(ROOT, "conformance/client.ts");
/** How long the suite lets the client under test run (its default, 30 s, is tight with every run in parallel on 2 cores). */
const CLIENT_TIMEOUT_MS = 60_000;

interface Plan {
  server: string[];
  client: { scenario: string; specVersion: string }[];
}

/** What to run: every tasks-* server scenario and every listed client run, or only those named on the command line. */
async function plan(node: string, only: readonly string[]): Promise<Plan> {
  const listed = await listScenarios(node);
  const server = listed.server.filter((name) => name.startsWith("tasks-"));
  if (server.length === 0) throw new Error("the suite lists no tasks-* server scenarios");
  const client = CLIENT_SCENARIOS.flatMap(({ name, versions }) => {
    const applies = listed.client.get(name);
    if (applies === undefined)
      throw new Error(`conformance/client-scenarios.ts: the suite has no client scenario ${name}`);
    for (const version of versions) {
      if (!applies.includes(version)) {
        throw new Error(
          `conformance/client-scenarios.ts: the suite runs ${name} at ${applies.join(", ")}, not ${version}`,
        );
      }
    }
    return versions.map((specVersion) => ({ scenario: name, specVersion }));
  });
  if (only.length === 0) return { server, client };
  const unknown = only.filter(
    (name) => !server.includes(name) && !client.some((run) => run.scenario === name),
  );
  if (unknown.length > 0) throw new Error(`no such scenario in this run: ${unknown.join(", ")}`);
  return {
    server: server.filter((name) => only.includes(name)),
    client: client.filter((run) => only.includes(run.scenario)),
  };
}

async function runServerScenario(
  node: string,
  url: string,
  outDir: string,
  scenario: string,
  expected: string,
) {
  const started = Date.now();
  const log = join(outDir, `${scenario}.log`);
  const args = [
    "server",
    "--url",
    url,
    "--scenario",
    scenario,
    "-o",
    outDir,
    "--expected-failures",
    expected,
  ];
  const { code } = await runSuite(node, args, log);
  const { checks } = await readResults(outDir, scenario, "server");
  return { side: "server", scenario, exitCode: code, durationMs: Date.now() - started, checks, log } as const;
}

async function runClientScenario(
  node: string,
  outDir: string,
  scenario: string,
  specVersion: string,
  expected: string,
): Promise<ScenarioRun> {
  const started = Date.now();
  const dir = join(outDir, `client-${specVersion}`);
  const log = join(dir, `${scenario.replaceAll("/", "_")}.log`);
  await mkdir(dir, { recursive: true });
  // The client under test runs on this process's Node (20, the oldest this library supports). The suite splits
  // the command on spaces and hands it to a shell, so the paths are quoted.
  const command = `"${process.execPath}" --import tsx "${CLIENT_ENTRY}"`;
  const args = [
    "client",
    "--command",
    command,
    "--scenario",
    scenario,
    "--spec-version",
    specVersion,
    "--timeout",
    String(CLIENT_TIMEOUT_MS),
  ];
  const { code } = await runSuite(node, [...args, "-o", dir, "--expected-failures", expected], log);
  const { checks, stdout, stderr } = await readResults(dir, scenario, "client");
  const clientFinished = stdout.split("\n").some((line) => line.trim() === DONE_LINE);
  const run: ScenarioRun = {
    side: "client",
    scenario,
    specVersion,
    exitCode: code,
    durationMs: Date.now() - started,
    checks,
    clientFinished,
    log,
  };
  const lastLines = stderr.trim().split("\n").slice(0, 3).join(" | ");
  if (!clientFinished && lastLines !== "") run.clientError = lastLines;
  return run;
}

function report(runs: readonly ScenarioRun[], baseline: Baseline): void {
  const width = Math.max(...runs.map((run) => runLabel(run).length)) + 2;
  for (const side of ["server", "client"] as const) {
    const mine = runs.filter((run) => run.side === side);
    if (mine.length === 0) continue;
    console.log(
      side === "server"
        ? `Server side: the reference server, ${mine.length} tasks-* scenarios`
        : `Client side: TaskClient (conformance/client.ts), ${mine.length} scenario runs`,
    );
    for (const run of mine) {
      const seconds = (run.durationMs / 1000).toFixed(1);
      console.log(`  ${runLabel(run).padEnd(width)} ${summarize(run.checks)} (${seconds}s)`);
      const reason = baseline[side].skipped.get(run.scenario);
      if (reason !== undefined)
        console.log(`  ${"".padEnd(width)} not certified, skipped by the suite: ${reason}`);
      for (const [entry, why] of baseline[side].failing) {
        if (entry === run.scenario || entry.startsWith(`${run.scenario}:`)) {
          console.log(`  ${"".padEnd(width)} expected to fail (${entry}): ${why}`);
        }
      }
    }
  }
}

async function main(only: readonly string[]): Promise<number> {
  const started = Date.now();
  const found = findNode22();
  if ("problem" in found) {
    console.error(`Conformance FAILED, nothing was certified: ${found.problem}`);
    return 1;
  }
  const { node } = found;
  const [work, baseline] = await Promise.all([
    plan(node, only),
    readFile(BASELINE, "utf8").then((text) => readBaseline(text)),
  ]);
  const outDir = join(ROOT, ".conformance", new Date().toISOString().replace(/[:.]/g, "-"));
  const serverDir = join(outDir, "server");
  await mkdir(serverDir, { recursive: true });
  const expected = join(outDir, "expected-failures.yml");
  await writeFile(expected, suiteExpectedFailures(baseline));

  const server = await startTaskServer({ port: 0 });
  let runs: ScenarioRun[];
  try {
    runs = await Promise.all([
      ...work.server.map((scenario) => runServerScenario(node, server.url, serverDir, scenario, expected)),
      ...work.client.map(({ scenario, specVersion }) =>
        runClientScenario(node, outDir, scenario, specVersion, expected),
      ),
    ]);
  } finally {
    await server.close();
  }

  report(runs, baseline);
  const problems = judge(runs, baseline, { partial: only.length > 0 });
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

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    killRunningSuites();
    process.exit(130);
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
