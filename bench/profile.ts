/**
 * Where a library's time and memory go on the poll path: one scenario, one library, in this process, under the
 * inspector's CPU profiler (`--profile=cpu`) or its sampling heap profiler (`--profile=alloc`, counting objects
 * that were already collected too, so it shows what is allocated, not only what is kept). Prints, per poll: CPU,
 * bytes allocated (exact, from the GC's heap statistics), garbage collections; then the top functions by self
 * time or by bytes allocated, and the same grouped by seam (the folder of src/ a function lives in; the harness,
 * Zod, Node's internals, the GC).
 *
 *   node --expose-gc --import tsx bench/profile.ts --scenario=1 --lib=ours [--profile=cpu|alloc] [--top=25]
 *
 * Take the two profiles in separate runs: the heap sampler stops at every allocation it samples, which inflates
 * the self time of code that allocates much. Without `--profile` no profiler runs, and "bytes allocated per
 * poll" does not depend on the load of the machine, which makes it the dev-loop figure.
 * `--out=file.json` writes the figures as JSON as well; `--tasks=N` and `--polls=N` change the scenario's task
 * count and working answers per task. `--handshake` waits for a SIGUSR2 before and after the measured window, so that
 * bench/instructions.sh can count the instructions of that window alone under `valgrind --tool=callgrind`.
 */
import { Session } from "node:inspector/promises";
import { writeFileSync } from "node:fs";
import { GCProfiler } from "node:v8";
import { fileURLToPath } from "node:url";
import { dirname } from "node:path";
import { FakeTasksServer } from "./fake-server.js";
import { FakeTransport } from "./fake-transport.js";
import { LegacyTasksServer } from "./legacy-server.js";
import { scenarios } from "./scenarios.js";
import type { LibraryDriver, LibraryName } from "./drivers/types.js";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));

interface Args {
  scenario: number;
  library: LibraryName;
  top: number;
  profile: "cpu" | "alloc" | undefined;
  out: string | undefined;
  /** Overrides of the scenario's task count and working answers per task (`--tasks=200 --polls=40`). */
  tasks: number | undefined;
  polls: number | undefined;
  /** Wait for a SIGUSR2 before the measured window and after it (for `callgrind_control -i on|off`). */
  handshake: boolean;
}

function parseArgs(argv: string[]): Args {
  const value = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1];
  return {
    scenario: Number(value("scenario") ?? 1),
    library: (value("lib") ?? "ours") as LibraryName,
    top: Number(value("top") ?? 25),
    profile: value("profile") as Args["profile"],
    out: value("out"),
    tasks: value("tasks") === undefined ? undefined : Number(value("tasks")),
    polls: value("polls") === undefined ? undefined : Number(value("polls")),
    handshake: argv.includes("--handshake"),
  };
}

async function loadDriver(library: LibraryName): Promise<LibraryDriver> {
  if (library === "ours") return (await import("./drivers/ours.js")).oursDriver;
  if (library === "floor") return (await import("./drivers/floor.js")).floorDriver;
  if (library === "ext-tasks") return (await import("./drivers/ext-tasks.js")).extTasksDriver;
  throw new Error(`--lib: ours, floor or ext-tasks, not ${library}`);
}

/* ---- The profiles' shapes (Chrome DevTools protocol), as far as they are read here ---------------------- */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
}
interface CpuProfile {
  nodes: CpuNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}
interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

/** The part of the code a frame belongs to: a folder of src/, the harness, a package, Node, or V8's own work. */
function seamOf(frame: CallFrame): string {
  const url = frame.url;
  if (url === "") {
    if (frame.functionName === "(garbage collector)") return "GC";
    if (frame.functionName.startsWith("(")) return frame.functionName; // (program), (idle), (root)
    return "V8 builtins";
  }
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  if (path.startsWith("node:")) return "Node internals";
  const packageName = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
  if (packageName !== undefined) return packageName === "zod" ? "zod (validation)" : packageName;
  if (path.startsWith(`${REPO}/src/`)) return `src/${path.slice(REPO.length + 5).split("/")[0]}`;
  if (path.startsWith(`${REPO}/bench/`)) return "harness (fake server, transport, driver)";
  return path;
}

function label(frame: CallFrame): string {
  const path = frame.url.startsWith("file://") ? fileURLToPath(frame.url) : frame.url;
  const short = path.startsWith(REPO) ? path.slice(REPO.length + 1) : path.replace(/.*node_modules\//, "");
  const name = frame.functionName === "" ? "(anonymous)" : frame.functionName;
  return short === "" ? name : `${name} ${short}:${frame.lineNumber + 1}`;
}

/** Self time per node, in microseconds, from the samples and their time deltas. */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const times = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // A sample's time is the delta to the next sample (the last one gets none).
    const delta = deltas[i + 1] ?? 0;
    times.set(samples[i]!, (times.get(samples[i]!) ?? 0) + delta);
  }
  return times;
}

function cpuRows(profile: CpuProfile): Array<{ frame: CallFrame; us: number }> {
  const times = selfTimes(profile);
  return profile.nodes.map((node) => ({ frame: node.callFrame, us: times.get(node.id) ?? 0 }));
}

function heapRows(root: HeapNode): Array<{ frame: CallFrame; bytes: number }> {
  const rows: Array<{ frame: CallFrame; bytes: number }> = [];
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.selfSize > 0) rows.push({ frame: node.callFrame, bytes: node.selfSize });
    stack.push(...node.children);
  }
  return rows;
}

/** Sums `value` by `key`, largest first. */
function group<T>(rows: T[], key: (row: T) => string, value: (row: T) => number): Array<[string, number]> {
  const sums = new Map<string, number>();
  for (const row of rows) sums.set(key(row), (sums.get(key(row)) ?? 0) + value(row));
  return [...sums].sort((a, b) => b[1] - a[1]);
}

function table(title: string, unit: string, entries: Array<[string, number]>, polls: number, top: number) {
  const total = entries.reduce((sum, [, value]) => sum + value, 0);
  const lines = [`| ${title} | ${unit} per poll | share |`, "| --- | ---: | ---: |"];
  for (const [name, value] of entries.slice(0, top)) {
    const share = total > 0 ? ((100 * value) / total).toFixed(1) : "0";
    lines.push(`| ${name} | ${(value / polls).toFixed(unit === "µs" ? 2 : 0)} | ${share} % |`);
  }
  return lines.join("\n");
}

/** Says `word` on stdout and waits for a SIGUSR2 from whoever reads it. */
function handshake(word: string): Promise<void> {
  return new Promise((resolve) => {
    const alive = setInterval(() => undefined, 60_000); // a signal listener alone keeps no process alive
    process.once("SIGUSR2", () => {
      clearInterval(alive);
      resolve();
    });
    process.stdout.write(`${word} ${process.pid}\n`);
  });
}

/* ---- The run ------------------------------------------------------------------------------------------ */

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const chosen = scenarios(false).find((candidate) => candidate.id === args.scenario);
  if (chosen === undefined || chosen.kind === "push") throw new Error("--scenario: a polling scenario");
  const scenario = {
    ...chosen,
    tasks: args.tasks ?? chosen.tasks,
    pollsUntilDone: args.polls ?? chosen.pollsUntilDone,
    heapMarks: [],
  };
  const server = scenario.kind === "legacy" ? new LegacyTasksServer(scenario) : new FakeTasksServer(scenario);
  const driver = await loadDriver(args.library);
  const connected = await driver.connect(new FakeTransport(server, false), scenario);
  let failures = 0;
  const observer = { resolved: () => undefined, failed: () => void failures++ };

  const inspector = new Session();
  inspector.connect();
  if (args.profile === "cpu") {
    await inspector.post("Profiler.enable");
    await inspector.post("Profiler.setSamplingInterval", { interval: 100 });
    await inspector.post("Profiler.start");
  } else if (args.profile === "alloc") {
    await inspector.post("HeapProfiler.enable");
    await inspector.post("HeapProfiler.startSampling", {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  (globalThis as { gc?: () => void }).gc?.();
  if (args.handshake) await handshake("PROFILE_READY");
  const gcs = new GCProfiler();
  gcs.start();
  const heapBefore = process.memoryUsage().heapUsed;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();

  await connected.callAll(scenario.tasks, observer);

  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  if (args.handshake) await handshake("PROFILE_DONE");
  const heapAfter = process.memoryUsage().heapUsed;
  const gcStats = gcs.stop();
  let cpuProfile: CpuProfile | undefined;
  let heapProfile: HeapNode | undefined;
  if (args.profile === "cpu") {
    cpuProfile = ((await inspector.post("Profiler.stop")) as { profile: CpuProfile }).profile;
  } else if (args.profile === "alloc") {
    heapProfile = ((await inspector.post("HeapProfiler.stopSampling")) as { profile: { head: HeapNode } })
      .profile.head;
  }
  inspector.disconnect();
  await connected.close();

  // Bytes allocated: what each GC found in use, less what the previous one left, plus what is in use at the end.
  let allocated = 0;
  let inUse = heapBefore;
  for (const entry of gcStats.statistics) {
    allocated += entry.beforeGC.heapStatistics.usedHeapSize - inUse;
    inUse = entry.afterGC.heapStatistics.usedHeapSize;
  }
  allocated += heapAfter - inUse;

  const polls = server.pollsServed;
  const figures = {
    library: args.library,
    scenario: scenario.id,
    polls,
    failures,
    wallMs: Math.round(wallMs),
    cpuUsPerPoll: (cpu.user + cpu.system) / polls,
    bytesAllocatedPerPoll: allocated / polls,
    gcsPer1000Polls: (1000 * gcStats.statistics.length) / polls,
  };
  const lines = [
    `${args.library}, scenario ${scenario.id} (${scenario.tasks} tasks, ${scenario.pollIntervalMs} ms, ` +
      `${scenario.pollsUntilDone} working answers): ${polls} polls, ${failures} failures, ` +
      `${figures.wallMs} ms`,
    `CPU per poll ${figures.cpuUsPerPoll.toFixed(2)} µs${args.profile ? ` (${args.profile} profiler on)` : ""}; ` +
      `allocated per poll ${figures.bytesAllocatedPerPoll.toFixed(0)} B; ` +
      `${figures.gcsPer1000Polls.toFixed(2)} GCs per 1,000 polls`,
  ];
  if (cpuProfile !== undefined) {
    const rows = cpuRows(cpuProfile).filter((row) => row.frame.functionName !== "(idle)");
    lines.push(
      "",
      table(
        "Seam (self time)",
        "µs",
        group(
          rows,
          (r) => seamOf(r.frame),
          (r) => r.us,
        ),
        polls,
        args.top,
      ),
      "",
      table(
        "Function (self time)",
        "µs",
        group(
          rows,
          (r) => label(r.frame),
          (r) => r.us,
        ),
        polls,
        args.top,
      ),
    );
  }
  if (heapProfile !== undefined) {
    const rows = heapRows(heapProfile);
    lines.push(
      "",
      table(
        "Seam (allocated)",
        "B",
        group(
          rows,
          (r) => seamOf(r.frame),
          (r) => r.bytes,
        ),
        polls,
        args.top,
      ),
      "",
      table(
        "Function (allocated)",
        "B",
        group(
          rows,
          (r) => label(r.frame),
          (r) => r.bytes,
        ),
        polls,
        args.top,
      ),
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  if (args.out !== undefined) writeFileSync(args.out, `${JSON.stringify(figures, null, 2)}\n`);
}

await main();
process.exit(0);
