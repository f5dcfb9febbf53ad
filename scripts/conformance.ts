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
 * The client runs of a revision that `conformance client --requirements <revision>` covers share one suite process
 * (the suite's start-up costs about a CPU second, and there are dozens of client runs); the client under test is
 * bundled once per run rather than loaded through `tsx` by each of them.
 *
 * `npm run conformance -- <name>…` runs only the scenarios named (server or client, all their revisions), each in a
 * suite process of its own.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startTaskServer } from "../src/testing/index.js";
import { CLIENT_SCENARIOS, DONE_LINE } from "../conformance/client-scenarios.js";
import { readBaseline, suiteExpectedFailures, type Baseline } from "./conformance/baseline.js";
import {
  findNode22,
  killRunningSuites,
  listRequiredClientScenarios,
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
/**
 * In a batch (one suite process, every scenario of a revision at once): how long each client may run, and the
 * whole batch. Generous, for a loaded machine: they only bound a run that hangs. (The suite process serves every
 * scenario and reaps every client; while dozens of clients start it gets little CPU, and it may count a client
 * that finished long before as timed out. That does not fail a run: the client's done line and the checks do.)
 */
const BATCH_CLIENT_TIMEOUT_MS = 120_000;
const BATCH_TIMEOUT_MS = 240_000;

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

/**
 * The client under test, bundled once per run into `<outDir>/client.mjs` (esbuild, as for the package): each
 * scenario run starts it again, and a bundle starts in a fraction of the time and CPU that `tsx` takes to load
 * the sources, which counts with dozens of runs in parallel on 2 cores. Same code, same Node (20).
 */
async function bundleClient(outDir: string): Promise<string> {
  const { build } = await import("esbuild");
  const outfile = join(outDir, "client.mjs");
  await build({
    entryPoints: [CLIENT_ENTRY],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20", // lowers `await using`, which Node 20 cannot run
    format: "esm",
    tsconfig: join(ROOT, "tsconfig.json"), // its paths map "mcp-tasks" to src/, as tsx did
    // Bundled CommonJS dependencies call require() for Node's modules.
    banner: {
      js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);',
    },
    logLevel: "warning",
  });
  return outfile;
}

/** The client under test, as the suite runs it: on this process's Node (20, the oldest this library supports). */
function clientCommand(client: string): string {
  // The suite splits the command on spaces and hands it to a shell, so the paths are quoted.
  return `"${process.execPath}" "${client}"`;
}

/** One client run, judged from what the suite wrote for it under `dir`. */
async function clientRun(
  dir: string,
  scenario: string,
  specVersion: string,
  suite: { code: number | null; started: number; log: string },
): Promise<ScenarioRun> {
  const { checks, stdout, stderr } = await readResults(dir, scenario, "client");
  const clientFinished = stdout.split("\n").some((line) => line.trim() === DONE_LINE);
  const run: ScenarioRun = {
    side: "client",
    scenario,
    specVersion,
    exitCode: suite.code,
    durationMs: Date.now() - suite.started,
    checks,
    clientFinished,
    log: suite.log,
  };
  const lastLines = stderr.trim().split("\n").slice(0, 3).join(" | ");
  if (!clientFinished && lastLines !== "") run.clientError = lastLines;
  return run;
}

async function runClientScenario(
  node: string,
  client: string,
  outDir: string,
  scenario: string,
  specVersion: string,
  expected: string,
): Promise<ScenarioRun> {
  const started = Date.now();
  const dir = join(outDir, `client-${specVersion}`);
  const log = join(dir, `${scenario.replaceAll("/", "_")}.log`);
  await mkdir(dir, { recursive: true });
  const args = [
    "client",
    "--command",
    clientCommand(client),
    "--scenario",
    scenario,
    "--spec-version",
    specVersion,
    "--timeout",
    String(CLIENT_TIMEOUT_MS),
  ];
  const { code } = await runSuite(node, [...args, "-o", dir, "--expected-failures", expected], log);
  return clientRun(dir, scenario, specVersion, { code, started, log });
}

/**
 * Every client run at `specVersion` in one suite process: `--requirements <revision>` runs the scenarios the
 * revision requires (and its unscored ones) in parallel, each in its own directory as a single run would. One
 * process instead of one per scenario saves the suite's start-up (about a CPU second each) dozens of times. The
 * scenarios it runs that `client-scenarios.ts` does not list (extensions) end at once: the client knows no such
 * scenario, and nothing judges them.
 */
async function runClientBatch(
  node: string,
  client: string,
  outDir: string,
  specVersion: string,
  scenarios: readonly string[],
  expected: string,
): Promise<ScenarioRun[]> {
  const started = Date.now();
  const dir = join(outDir, `client-${specVersion}`);
  const log = join(dir, "requirements.log");
  await mkdir(dir, { recursive: true });
  const args = [
    "client",
    "--command",
    clientCommand(client),
    "--requirements",
    specVersion,
    "--timeout",
    String(BATCH_CLIENT_TIMEOUT_MS),
    "-o",
    dir,
    "--expected-failures",
    expected,
  ];
  const { code } = await runSuite(node, args, log, BATCH_TIMEOUT_MS);
  return Promise.all(
    scenarios.map((scenario) => clientRun(dir, scenario, specVersion, { code, started, log })),
  );
}

/**
 * The planned client runs as suite invocations: on a full run, the runs at a revision that `--requirements` covers
 * go in one batch per revision; the others (and every run of a partial run) go one by one.
 */
async function clientJobs(
  node: string,
  runs: Plan["client"],
  batch: boolean,
): Promise<{ batches: Map<string, string[]>; single: Plan["client"] }> {
  const batches = new Map<string, string[]>();
  const single: Plan["client"] = [];
  const revisions = batch ? [...new Set(runs.map((run) => run.specVersion))] : [];
  const covered = new Map(
    await Promise.all(
      revisions.map(
        async (revision) => [revision, await listRequiredClientScenarios(node, revision)] as const,
      ),
    ),
  );
  for (const run of runs) {
    if (covered.get(run.specVersion)?.has(run.scenario) === true) {
      batches.set(run.specVersion, [...(batches.get(run.specVersion) ?? []), run.scenario]);
    } else {
      single.push(run);
    }
  }
  return { batches, single };
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

  const [client, jobs] = await Promise.all([
    work.client.length > 0 ? bundleClient(outDir) : "",
    clientJobs(node, work.client, only.length === 0),
  ]);
  const server = await startTaskServer({ port: 0 });
  let runs: ScenarioRun[];
  try {
    const done = await Promise.all([
      ...work.server.map((scenario) => runServerScenario(node, server.url, serverDir, scenario, expected)),
      ...[...jobs.batches].map(([specVersion, scenarios]) =>
        runClientBatch(node, client, outDir, specVersion, scenarios, expected),
      ),
      ...jobs.single.map(({ scenario, specVersion }) =>
        runClientScenario(node, client, outDir, scenario, specVersion, expected),
      ),
    ]);
    runs = done.flat();
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
