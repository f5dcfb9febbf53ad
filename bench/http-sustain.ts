/**
 * Polls per second one client process sustains over loopback HTTP before it falls behind its poll interval. The
 * same client process as bench/http-wire.ts (bench/http-wire-client.ts against bench/scale-out-server.ts in
 * another process), run at growing task counts for one interval: the demand is tasks ÷ interval polls a second.
 *
 * A run keeps the interval when its polling phase takes at most `tolerance` longer than the ideal, (polls + 1)
 * intervals (each task is polled `polls` times and completes on the next poll; the raw loops spread their first
 * polls over one interval and sleep one interval after their last): a client that falls behind stretches every
 * gap, so the phase stretches with it. The ramp starts at `--from` tasks and doubles until the client is saturated:
 * it misses the interval and reaches less than 10 % more polls a second than at half the load (or `--max`). When
 * the first count already misses, it also halves down to a count kept (or `--min`); then it tries the geometric
 * middle between the largest count kept and the smallest missed. Each client's ramp is a handful of short runs. The
 * figures a reader wants: the largest demand kept, and the most polls a second reached (what a saturated process
 * sustains). On a loaded machine the two part ways: a process that waits for a core misses the interval by its
 * scheduling delays long before its throughput is spent.
 *
 * The `TaskClient`s poll with `--jitter` (default 0): they follow the server's interval exactly, as the raw loops do.
 * With the library's default jitter (0.1) each wait is up to 10 % longer by design, which this measure would count
 * as falling behind. A `TaskClient` also measures each wait from the previous poll's answer, not its start (a poll
 * never goes out sooner than the interval after the server last answered), so each of its gaps includes a round
 * trip the raw loops do not wait for: the same tolerance holds it to a stricter standard.
 *
 * Beside that verdict, each run shows how late the client sent its polls, by its own rule, as the server saw them
 * (`late by`): the gap between two polls of a task less the interval, from the previous poll's arrival for the raw
 * loops and from its answer for a `TaskClient` (bench/scale-out-server.ts measures both). The phase can stretch
 * while most polls go out on time: a `TaskClient` starts polling its first tasks while it still creates the others,
 * and those first rounds come late, where the raw loops create every task before they poll and spread their first
 * polls over one interval by construction.
 *
 * `--tasks=10000` runs those counts once per client instead of a ramp (how the `fetch` paths are measured at
 * 10,000 tasks in minutes: fewer polls per task with `--polls=5`).
 *
 * Run: `node --import tsx bench/http-sustain.ts [--kinds=undici,ours,fetch,ours-fetch] [--interval=100]
 * [--polls=20] [--tolerance=0.1] [--from=250] [--min=25] [--max=32000] [--rounds=1] [--jitter=0] [--tasks=N,…]`;
 * `npm run bench -- --http-sustain-only` runs the ramp with these defaults. Prints Markdown tables and
 * `HTTP_SUSTAIN_SUMMARY {json}`.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

const option = (name: string, fallback: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const kinds = option("kinds", "undici,ours,fetch,ours-fetch").split(",");
const intervalMs = Number(option("interval", "100"));
const polls = Number(option("polls", "20"));
const tolerance = Number(option("tolerance", "0.1"));
const from = Number(option("from", "250"));
const min = Number(option("min", "25"));
const max = Number(option("max", "32000"));
const rounds = Number(option("rounds", "1"));
const jitter = Number(option("jitter", "0"));
const fixed = process.argv.some((arg) => arg.startsWith("--tasks="))
  ? option("tasks", "").split(",").map(Number)
  : undefined;

/** What one client process reported (bench/http-wire-client.ts), and how it stood against its interval. */
interface Step {
  kind: string;
  tasks: number;
  polls: number;
  cpuPerPollUs: number;
  wallMs: number;
  pollsPerSecond: number;
  /** Polls a second the interval asks for: tasks ÷ interval. */
  demand: number;
  /** The polling phase over (polls + 1) intervals; 1 is on time. */
  stretch: number;
  kept: boolean;
  /** The server's gaps between a task's polls, by the client's own rule (bench/http-wire-client.ts). */
  gap: { count: number; meanMs: number; p50Ms: number; p99Ms: number };
}

/** Starts the tasks server in its own process; resolves with its URL once it listens. */
async function startServer(tasks: number): Promise<{ url: string; proc: ChildProcess }> {
  const script = join(BENCH_DIR, "scale-out-server.ts");
  const args = ["--import", "tsx", script, String(tasks), String(intervalMs), String(polls)];
  const proc = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  for await (const line of createInterface({ input: proc.stdout as NodeJS.ReadableStream })) {
    const url = /^listening (\S+)/.exec(line)?.[1];
    if (url !== undefined) return { url, proc };
  }
  throw new Error("the bench server exited before it listened");
}

/** One client process against a fresh server. */
async function step(kind: string, tasks: number): Promise<Step> {
  const server = await startServer(tasks);
  try {
    // Empty is unset: Node's default path, undici.
    const env = {
      ...process.env,
      MCP_TASKS_HTTP: kind === "ours-fetch" ? "fetch" : "",
      MCP_TASKS_BENCH_JITTER: String(jitter),
    };
    const client = join(BENCH_DIR, "http-wire-client.ts");
    const args = [kind, server.url, String(tasks), String(polls), String(intervalMs)];
    const { stdout } = await run(process.execPath, ["--import", "tsx", client, ...args], {
      env,
      maxBuffer: 1 << 20,
    });
    const marker = "HTTP_WIRE_RESULT ";
    const line = stdout.split("\n").find((text) => text.startsWith(marker));
    if (line === undefined) throw new Error(`${kind} at ${tasks} tasks printed no result`);
    const figures = JSON.parse(line.slice(marker.length)) as Omit<Step, "demand" | "stretch" | "kept">;
    const stretch = figures.wallMs / ((polls + 1) * intervalMs);
    const demand = Math.round((tasks * 1000) / intervalMs);
    return { ...figures, demand, stretch: Number(stretch.toFixed(2)), kept: stretch <= 1 + tolerance };
  } finally {
    server.proc.kill("SIGTERM");
    await once(server.proc, "exit");
  }
}

/** A client's ramp: up until saturated, down while the interval is missed, then the middle of the edge. */
async function ramp(kind: string): Promise<Step[]> {
  const steps: Step[] = [];
  const measure = async (tasks: number) => {
    const result = await step(kind, tasks);
    console.error(JSON.stringify(result));
    steps.push(result);
    return result;
  };
  let tasks = from;
  let previous = await measure(tasks);
  const first = previous;
  while (tasks * 2 <= max) {
    const next = await measure((tasks *= 2));
    const saturated = !next.kept && next.pollsPerSecond < previous.pollsPerSecond * 1.1;
    previous = next;
    if (saturated) break;
  }
  tasks = first.tasks;
  if (!first.kept) {
    while (tasks / 2 >= min && !(await measure((tasks = Math.round(tasks / 2)))).kept);
  }
  const kept = steps.filter((s) => s.kept).map((s) => s.tasks);
  const missed = steps.filter((s) => !s.kept).map((s) => s.tasks);
  if (kept.length > 0 && missed.length > 0) {
    const middle = Math.round(Math.sqrt(Math.max(...kept) * Math.min(...missed)));
    if (middle > Math.max(...kept) && middle < Math.min(...missed)) await measure(middle);
  }
  return steps.sort((a, b) => a.tasks - b.tasks);
}

const number = (value: number) => value.toLocaleString("en-US");
/** How much longer than the interval a task's polls were apart, by the client's own rule: median, 99th percentile. */
const late = (gap: Step["gap"]) =>
  `${Math.round(gap.p50Ms - intervalMs)} ms, ${Math.round(gap.p99Ms - intervalMs)} ms`;
const all: Step[][] = [];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? kinds : [...kinds].reverse();
  for (const kind of order) {
    if (fixed === undefined) all.push(await ramp(kind));
    else for (const tasks of fixed) all.push([await step(kind, tasks)]);
  }
}

const rows = all
  .flat()
  .map(
    (s) =>
      `| ${s.kind} | ${number(s.tasks)} | ${number(s.demand)} | ${number(s.pollsPerSecond)} | ` +
      `${s.stretch.toFixed(2)}× | ${s.kept ? "yes" : "no"} | ${late(s.gap)} | ${number(s.cpuPerPollUs)} µs | ${(s.wallMs / 1000).toFixed(1)} s |`,
  );
const summary = all
  .filter(() => fixed === undefined)
  .map((steps) => {
    const kept = steps.filter((s) => s.kept).at(-1);
    const reached = Math.max(...steps.map((s) => s.pollsPerSecond));
    const fewest = number(steps[0]?.tasks ?? min);
    const largest = kept === undefined ? `none (down to ${fewest} tasks)` : number(kept.demand);
    return `| ${steps[0]?.kind} | ${largest} | ${number(reached)} |`;
  });
console.log(
  `Node ${process.version}: ${polls} polls per task at ${intervalMs} ms; kept = the polling phase within ` +
    `${Math.round(tolerance * 100)} % of ${polls + 1} intervals; TaskClient jitter ${jitter}\n\n` +
    "| client | tasks | demand (polls/s) | reached (polls/s) | phase ÷ ideal | kept | late by (median, p99) | CPU per `tasks/get` | phase |\n" +
    "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |\n" +
    rows.join("\n") +
    (summary.length === 0
      ? ""
      : "\n\n| client | largest demand kept (polls/s) | most polls/s reached |\n| --- | ---: | ---: |\n" +
        summary.join("\n")),
);
console.log(
  `HTTP_SUSTAIN_SUMMARY ${JSON.stringify({ intervalMs, polls, tolerance, jitter, runs: all.flat() })}`,
);
