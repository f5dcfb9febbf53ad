/**
 * `npm run bench`: runs every scenario for mcp-tasks and @modelcontextprotocol/ext-tasks, each run in a fresh
 * `node --expose-gc` process, one process at a time, prints the side-by-side tables and writes
 * `bench/results.json`.
 *
 * Flags: `--quick` (smaller counts, one round; writes `bench/results.local.json`), `--json-wire` (a JSON round
 * trip per message in both directions), `--scenarios=1,3` (a subset), `--rounds=N` (default 3), `--store-only` (only
 * the task store overhead, which otherwise runs after the scenarios, in a few seconds; `--no-store` skips it),
 * `--bridges-only` (only the agent framework bridges' overhead per tool call, which otherwise runs after the
 * scenarios, in about 30 s; `--no-bridges` skips it), `--startup-only` (only the start-up figures of
 * bench/startup.ts, which otherwise run last; `--no-startup` skips them), `--scale-out-only` (only the Redis
 * scale-out figures of bench/scale-out.ts, which otherwise run after the store figures; `--no-scale-out` skips
 * them; `--scale-tasks=N`, `--scale-workers=1,2,4`, `--scale-interval=MS` change its size), `--validation-only`
 * (only the validation budget's worst case of bench/validation.ts, which otherwise runs last; `--no-validation`
 * skips it), `--fleet-only` (only the fleet soak of bench/fleet.ts, which otherwise runs after the scale-out
 * figures; `--no-fleet` skips it; `--fleet-runs=N` and `--fleet-seed=S` choose the runs and the first seed),
 * `--host-only` (only the host scenario of bench/host.ts, 10 servers through one `TaskHost` beside 10 clients, which
 * otherwise runs after the bridges; `--no-host` skips it), `--libs=ours,floor` (only those libraries; the saved figures of the others in that scenario are kept as they
 * were), `--http-only` (only the client over real HTTP against raw undici and raw fetch loops, bench/http-wire.ts,
 * which otherwise runs after the store figures, then the polls per second one client process sustains before it
 * falls behind its interval, bench/http-sustain.ts; `--no-http` skips both, `--http-sustain-only` runs only the latter).
 * The libraries take turns within each round, and the order flips every round.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LibraryName } from "./drivers/types.js";
import type { RunRequest, RunResult } from "./measure.js";
import { LIBRARY_TITLES, scenarioTable, summarize } from "./report.js";
import { scenarios, type Scenario } from "./scenarios.js";
import { measureStartup, startupTable } from "./startup.js";
import { measureValidation, validationTable } from "./validation.js";
import type { Spread } from "./stats.js";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = dirname(BENCH_DIR);
const RUN_TIMEOUT_MS = 20 * 60_000;

interface Flags {
  quick: boolean;
  store: "also" | "only" | "skip";
  bridges: "also" | "only" | "skip";
  /** Start-up figures (bench/startup.ts): after the rest, alone (`--startup-only`) or not (`--no-startup`). */
  startup: "also" | "only" | "skip";
  /** The client over loopback HTTP against raw loops (bench/http-wire.ts): after the store figures, alone, or not. */
  http: "also" | "only" | "skip";
  /** Only the sustained polls per second over HTTP (bench/http-sustain.ts; `--http-sustain-only`). */
  httpSustainOnly: boolean;
  /** The validation budget's worst case (bench/validation.ts): last, alone (`--validation-only`), or not. */
  validation: "also" | "only" | "skip";
  /** Redis scale-out (bench/scale-out.ts): after the store figures, alone, or not. */
  scaleOut: "also" | "only" | "skip";
  scaleTasks: number | undefined;
  scaleWorkers: string | undefined;
  scaleIntervalMs: number | undefined;
  /** The host scenario (bench/host.ts): after the bridges, alone (`--host-only`), or not (`--no-host`). */
  host: "also" | "only" | "skip";
  /** The fleet soak (bench/fleet.ts): after the scale-out figures, alone, or not. */
  fleet: "also" | "only" | "skip";
  fleetRuns: number | undefined;
  fleetSeed: number | undefined;
  jsonWire: boolean;
  only: number[] | undefined;
  /** Only these libraries (`--libs=ours,floor`); undefined runs every library of a scenario. */
  libs: LibraryName[] | undefined;
  rounds: number;
}

function parseFlags(argv: string[]): Flags {
  const value = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1];
  const quick = argv.includes("--quick");
  const only = value("scenarios")?.split(",").map(Number);
  const rounds = Number(value("rounds") ?? (quick ? 1 : 3));
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer");
  const store = argv.includes("--store-only") ? "only" : argv.includes("--no-store") ? "skip" : "also";
  const http = argv.includes("--http-only") ? "only" : argv.includes("--no-http") ? "skip" : "also";
  const bridges = argv.includes("--bridges-only") ? "only" : argv.includes("--no-bridges") ? "skip" : "also";
  const startup = argv.includes("--startup-only") ? "only" : argv.includes("--no-startup") ? "skip" : "also";
  const validation = argv.includes("--validation-only")
    ? "only"
    : argv.includes("--no-validation")
      ? "skip"
      : "also";
  const scaleOut = argv.includes("--scale-out-only")
    ? "only"
    : argv.includes("--no-scale-out")
      ? "skip"
      : "also";
  const scaleTasks = value("scale-tasks") === undefined ? undefined : Number(value("scale-tasks"));
  const scaleWorkers = value("scale-workers");
  const scaleIntervalMs = value("scale-interval") === undefined ? undefined : Number(value("scale-interval"));
  const host = argv.includes("--host-only") ? "only" : argv.includes("--no-host") ? "skip" : "also";
  const fleet = argv.includes("--fleet-only") ? "only" : argv.includes("--no-fleet") ? "skip" : "also";
  const fleetRuns = value("fleet-runs") === undefined ? undefined : Number(value("fleet-runs"));
  const fleetSeed = value("fleet-seed") === undefined ? undefined : Number(value("fleet-seed"));
  const libs = value("libs")?.split(",") as LibraryName[] | undefined;
  const unknown = libs?.filter((library) => !(library in LIBRARY_TITLES));
  if (unknown?.length) throw new Error(`--libs: unknown ${unknown.join(", ")} (ours, ext-tasks, floor)`);
  return {
    quick,
    store,
    bridges,
    startup,
    validation,
    scaleOut,
    http,
    httpSustainOnly: argv.includes("--http-sustain-only"),
    scaleTasks,
    scaleWorkers,
    scaleIntervalMs,
    host,
    fleet,
    fleetRuns,
    fleetSeed,
    jsonWire: argv.includes("--json-wire"),
    only,
    libs,
    rounds,
  };
}

/** Runs measure.ts in a fresh process and returns its result (or a failed result with the reason). */
function runOnce(request: RunRequest): Promise<RunResult> {
  const args = ["--expose-gc", "--import", "tsx", join(BENCH_DIR, "measure.ts"), JSON.stringify(request)];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      const line = stdout.split("\n").find((text) => text.startsWith("BENCH_RESULT "));
      if (line) return resolve(JSON.parse(line.slice("BENCH_RESULT ".length)) as RunResult);
      resolve(failedRun(request, `exit ${code}: ${stderr.trim().split("\n").slice(-3).join(" / ")}`));
    });
  });
}

function failedRun(request: RunRequest, failure: string): RunResult {
  const empty = { count: 0, mean: 0, p99: 0, max: 0 };
  return {
    library: request.library,
    scenarioId: request.scenario.id,
    ok: false,
    failure,
    wallMs: 0,
    polls: 0,
    cpuUsPerPoll: 0,
    heapAtMarks: [],
    gapMs: empty,
    pollsPerTask: { mean: 0, max: 0, ideal: 0 },
    latencyMs: empty,
    eventLoopDelayMs: empty,
    smallestIntervalMs: 0,
    timersAfterClose: 0,
  };
}

function librariesFor(scenario: Scenario, flags: Flags, oursAvailable: boolean): LibraryName[] {
  return scenario.libraries.filter(
    (library) => (library !== "ours" || oursAvailable) && (!flags.libs || flags.libs.includes(library)),
  );
}

interface ScenarioRecord {
  scenario: Scenario;
  measuredAt: string;
  node: string;
  machine: string;
  /** The commit the mcp-tasks sources came from, with "+wip" when src/ had uncommitted changes. */
  sourceRevision: string;
  rounds: number;
  /**
   * Libraries whose runs were kept from an earlier record (a `--libs` run skipped them), with when and from
   * which sources they were measured.
   */
  keptFrom?: Partial<Record<LibraryName, { measuredAt: string; sourceRevision: string; rounds: number }>>;
  runs: Partial<Record<LibraryName, RunResult[]>>;
  summaries: Record<string, Record<string, Spread>>;
}

/** Which mcp-tasks sources were measured. */
function sourceRevision(): string {
  try {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" }).trim();
    return `${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "--", "src") ? "+wip" : ""}`;
  } catch {
    return "unknown";
  }
}

const MACHINE = `${process.platform} ${process.arch}, ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}`;

/** Every round of one scenario; the libraries take turns and the order flips every round. */
async function runScenario(
  scenario: Scenario,
  flags: Flags,
  oursAvailable: boolean,
): Promise<ScenarioRecord> {
  const runs: Partial<Record<LibraryName, RunResult[]>> = {};
  for (let round = 1; round <= flags.rounds; round++) {
    const libraries = librariesFor(scenario, flags, oursAvailable);
    if (round % 2 === 0) libraries.reverse();
    for (const library of libraries) {
      const result = await runOnce({ library, scenario, jsonWire: flags.jsonWire });
      (runs[library] ??= []).push(result);
      const status = result.ok ? "ok" : `FAILED (${result.failure})`;
      const seconds = (result.wallMs / 1000).toFixed(1);
      console.log(
        `[scenario ${scenario.id} round ${round}] ${LIBRARY_TITLES[library]}: ${seconds} s ${status}`,
      );
    }
  }
  const summaries = Object.fromEntries(
    Object.entries(runs).map(([library, results]) => [library, summarize(scenario, results)]),
  );
  const measuredAt = new Date().toISOString();
  return {
    scenario,
    measuredAt,
    node: process.version,
    machine: MACHINE,
    sourceRevision: sourceRevision(),
    rounds: flags.rounds,
    runs,
    summaries,
  };
}

/** Merges into the results file: other variants and scenarios not run this time are kept. */
function saveResults(file: string, variant: string, records: ScenarioRecord[]): void {
  type Saved = { variants?: Record<string, { scenarios: ScenarioRecord[] }> };
  const saved: Saved = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Saved) : {};
  const previous = saved.variants?.[variant]?.scenarios ?? [];
  const rerun = new Set(records.map((record) => record.scenario.id));
  const kept = previous.filter((record) => !rerun.has(record.scenario.id));
  const merged = records.map((record) =>
    withSkippedLibraries(
      record,
      previous.find((old) => old.scenario.id === record.scenario.id),
    ),
  );
  const scenarios = [...kept, ...merged].sort((a, b) => a.scenario.id - b.scenario.id);
  const variants = { ...saved.variants, [variant]: { scenarios } };
  writeFileSync(file, `${JSON.stringify({ variants }, null, 2)}\n`);
}

/** A `--libs` run keeps the earlier figures of the libraries it skipped, saying where they came from. */
function withSkippedLibraries(record: ScenarioRecord, old: ScenarioRecord | undefined): ScenarioRecord {
  if (!old) return record;
  const merged: ScenarioRecord = { ...record, runs: { ...record.runs }, summaries: { ...record.summaries } };
  for (const library of Object.keys(old.runs) as LibraryName[]) {
    if (record.runs[library] || !old.runs[library]) continue;
    merged.runs[library] = old.runs[library];
    const summary = old.summaries[library];
    if (summary) merged.summaries[library] = summary;
    const origin = old.keptFrom?.[library] ?? {
      measuredAt: old.measuredAt,
      sourceRevision: old.sourceRevision,
      rounds: old.rounds,
    };
    merged.keptFrom = { ...merged.keptFrom, [library]: origin };
  }
  return merged;
}

/** A benchmark that runs in its own process and reports one `<MARKER> <json>` line after its printed tables. */
interface SideBench {
  script: string;
  args: string[];
  marker: string;
  title: string;
  /** The results file's name without extension; `--quick` runs write `<name>.local.json`. */
  resultsFile: string;
}

/** Runs a side benchmark, prints its tables under `title`, and writes its figures beside the results. */
function runSideBench(bench: SideBench, flags: Flags): Promise<void> {
  const args = ["--import", "tsx", join(BENCH_DIR, bench.script), ...bench.args];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.on("close", (code) => {
      const line = stdout.split("\n").find((text) => text.startsWith(`${bench.marker} `));
      if (!line) {
        console.log(`${bench.title}: FAILED (exit ${code})`);
        return resolve();
      }
      const figures: unknown = JSON.parse(line.slice(bench.marker.length + 1));
      console.log(`\n## ${bench.title}\n\n${stdout.split(bench.marker)[0]?.trim()}\n`);
      const file = join(BENCH_DIR, `${bench.resultsFile}${flags.quick ? ".local" : ""}.json`);
      const record = {
        measuredAt: new Date().toISOString(),
        node: process.version,
        machine: MACHINE,
        figures,
      };
      writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
      resolve();
    });
  });
}

/** The store overhead (bench/store.ts). */
function runStoreBench(flags: Flags): Promise<void> {
  const count = flags.quick ? 50 : 200;
  const redisTasks = flags.quick ? 2000 : 10_000;
  return runSideBench(
    {
      script: "store.ts",
      args: [String(count), String(redisTasks)],
      marker: "STORE_RESULT",
      title: "Task store overhead (per operation) and Redis throughput",
      resultsFile: "store-results",
    },
    flags,
  );
}

/**
 * The client over loopback HTTP (bench/http-wire.ts): mcp-tasks on each path beside raw undici and raw fetch
 * loops, 1,000 and 10,000 tasks; `--quick` 1,000 tasks, one round.
 */
function runHttpBench(flags: Flags): Promise<void> {
  return runSideBench(
    {
      script: "http-wire.ts",
      args: [flags.quick ? "1000" : "1000,10000", String(flags.quick ? 1 : flags.rounds)],
      marker: "HTTP_WIRE_SUMMARY",
      title: "Over HTTP: CPU per tasks/get against raw loops",
      resultsFile: "http-wire-results",
    },
    flags,
  );
}

/**
 * Polls per second one client process sustains over loopback HTTP before it falls behind a 100 ms interval
 * (bench/http-sustain.ts): a ramp over task counts per client; `--quick` only mcp-tasks on Node's default path.
 */
function runHttpSustainBench(flags: Flags): Promise<void> {
  return runSideBench(
    {
      script: "http-sustain.ts",
      args: flags.quick ? ["--kinds=ours"] : [],
      marker: "HTTP_SUSTAIN_SUMMARY",
      title: "Over HTTP: polls per second sustained at a 100 ms interval",
      resultsFile: "http-sustain-results",
    },
    flags,
  );
}

/**
 * Redis scale-out (bench/scale-out.ts): 1, 2 and 4 worker processes over real HTTP and one Redis. The full run
 * follows 100,000 tasks polled every 50 s (about 2,000 polls a second in all), 3 rounds; `--quick` 1,000 tasks
 * every 4 s, one round.
 */
function runScaleOutBench(flags: Flags): Promise<void> {
  const tasks = flags.scaleTasks ?? (flags.quick ? 1000 : 100_000);
  const interval = flags.scaleIntervalMs ?? (flags.quick ? 4000 : Math.max(2000, Math.round(tasks / 2)));
  const window = flags.quick ? 10_000 : Math.max(20_000, interval);
  const rounds = flags.quick ? 1 : flags.rounds;
  return runSideBench(
    {
      script: "scale-out.ts",
      args: [String(tasks), flags.scaleWorkers ?? "1,2,4", String(rounds), String(interval), String(window)],
      marker: "SCALE_RESULT",
      title: "Redis scale-out: worker processes over real HTTP, one Redis",
      resultsFile: "scale-out-results",
    },
    flags,
  );
}

/**
 * The fleet soak (bench/fleet.ts): worker processes sharing one Redis under a seeded schedule of faults, each run
 * judged by the fleet test's checker. Six runs of 40 s (three on one node, three on a Cluster); `--quick` two.
 * Prints every run's seed and what broke; records nothing (a soak has no figures, only broken promises).
 */
function runFleetSoak(flags: Flags): Promise<void> {
  const runs = flags.fleetRuns ?? (flags.quick ? 2 : 6);
  const args = ["--import", "tsx", join(BENCH_DIR, "fleet.ts"), String(runs)];
  if (flags.fleetSeed !== undefined) args.push(String(flags.fleetSeed));
  console.log("\n## Fleet soak: worker processes, one Redis, seeded faults\n");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: "inherit" });
    child.on("close", (code) => {
      if (code !== 0) {
        console.log(`Fleet soak: FAILED (exit ${String(code)})`);
        process.exitCode = 1;
      }
      resolve();
    });
  });
}

/**
 * The host scenario (bench/host.ts): 10 servers × 1,000 tasks through one `TaskHost` beside 10 separate
 * `TaskClient`s, CPU per poll and heap per task; `--quick` 100 tasks per server, one round. Measures the build.
 */
function runHostBench(flags: Flags): Promise<void> {
  const tasksPerServer = flags.quick ? "100" : "1000";
  const rounds = String(flags.quick ? 1 : flags.rounds);
  return runSideBench({ ...HOST_BENCH, args: [tasksPerServer, rounds] }, flags);
}

const HOST_BENCH: Omit<SideBench, "args"> = {
  script: "host.ts",
  marker: "HOST_RESULT",
  title: "Many servers: one TaskHost beside 10 TaskClients (the build; `npm run build` first)",
  resultsFile: "host-results",
};

/** The bridges' overhead per tool call (bench/bridges.ts). */
function runBridgeBench(flags: Flags): Promise<void> {
  return runSideBench(
    {
      script: "bridges.ts",
      args: [String(flags.quick ? 500 : 2000)],
      marker: "BRIDGE_RESULT",
      title: "Agent framework bridges: overhead per tool call",
      resultsFile: "bridge-results",
    },
    flags,
  );
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  console.log(`Node ${process.version} on ${MACHINE}\n`);
  if (flags.startup === "only") return runStartupBench();
  if (flags.validation === "only") return runValidationBench();
  if (flags.bridges === "only") return runBridgeBench(flags);
  if (flags.store === "only") return runStoreBench(flags);
  if (flags.scaleOut === "only") return runScaleOutBench(flags);
  if (flags.httpSustainOnly) return runHttpSustainBench(flags);
  if (flags.http === "only") return runHttpBench(flags).then(() => runHttpSustainBench(flags));
  if (flags.fleet === "only") return runFleetSoak(flags);
  if (flags.host === "only") return runHostBench(flags);
  const oursAvailable = existsSync(join(REPO_ROOT, "src", "index.ts"));
  if (!oursAvailable) console.log("note: src/index.ts does not exist yet; mcp-tasks runs are skipped.\n");
  const selected = scenarios(flags.quick).filter(
    (scenario) => !flags.only || flags.only.includes(scenario.id),
  );
  const startedAt = Date.now();
  const records: ScenarioRecord[] = [];
  for (const scenario of selected) records.push(await runScenario(scenario, flags, oursAvailable));

  const tables = records.map(
    ({ scenario, summaries }) =>
      `### ${scenario.id}. ${scenario.title}\n\n${scenario.purpose}.\n\n${scenarioTable(scenario, summaries)}`,
  );
  const wire = flags.jsonWire ? "JSON round trip per message" : "in-memory messages";
  console.log(
    `\n## Results (${wire}; ${flags.rounds} round(s); median (min–max))\n\n${tables.join("\n\n")}\n`,
  );
  const variant = flags.jsonWire ? "json-wire" : "in-memory";
  const file = join(BENCH_DIR, flags.quick ? "results.local.json" : "results.json");
  saveResults(file, variant, records);
  const seconds = Math.round((Date.now() - startedAt) / 1000);
  console.log(`Wrote ${file} (${variant}); the whole run took ${seconds} s.`);
  if (flags.store === "also") await runStoreBench(flags);
  if (flags.http === "also") await runHttpBench(flags).then(() => runHttpSustainBench(flags));
  if (flags.scaleOut === "also") await runScaleOutBench(flags);
  if (flags.fleet === "also") await runFleetSoak(flags);
  if (flags.bridges === "also") await runBridgeBench(flags);
  if (flags.host === "also") await runHostBench(flags);
  if (flags.startup === "also") await runStartupBench();
  if (flags.validation === "also") await runValidationBench();
}

/** The validation budget's worst case, from the build (bench/validation.ts). */
async function runValidationBench(): Promise<void> {
  console.log("\n## Validation budget: the worst a result can cost (the build; `npm run build` first)\n");
  console.log(validationTable(await measureValidation()));
}

/** Start-up figures from the build (bench/startup.ts): the import and the CLI's first request. */
async function runStartupBench(): Promise<void> {
  console.log("\n## Start-up (the build; `npm run build` first)\n");
  console.log(startupTable(await measureStartup()));
}

await main();
