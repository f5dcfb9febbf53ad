/**
 * Scale-out: K worker processes (1, 2, 4) follow N tasks in all of one tasks server (bench/scale-out-server.ts,
 * its own process, real HTTP on 127.0.0.1) through one Redis (`redisStore`, `adopt: true`, default lease
 * 10 s). Per run: the workers create N/K tasks each; then, in a steady window, the CPU each worker spends per
 * poll, and the commands (scripts' inner commands included), script calls and CPU of Redis per task-minute, and
 * Redis's memory per task; then one worker is SIGKILLed and the server reports how long each of its tasks waited
 * for its next poll by another worker (the bound is the lease plus one poll interval); then the server
 * completes every task, and every task must be reported completed exactly once by the survivors.
 *
 * Run by `npm run bench` after the store figures (`--scale-out-only` alone, `--no-scale-out` skips it), or
 * `node --import tsx bench/scale-out.ts [tasks] [workers,…] [rounds] [intervalMs] [windowMs]`. Prints a table
 * and one `SCALE_RESULT {json}` line.
 */
import { fork, type ChildProcess } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createClient } from "redis";
import { startRedis } from "../test/integration/store/redis-server.js";
import { spread, type Spread } from "./stats.js";

const LEASE_MS = 10_000;
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export interface ScaleRun {
  workers: number;
  tasks: number;
  intervalMs: number;
  windowMs: number;
  createSeconds: number;
  /** Per worker, CPU µs per `tasks/get` it sent in the window (the mean over workers). */
  cpuUsPerPoll: number;
  pollsPerSecond: number;
  redisCommandsPerTaskMinute: number;
  redisScriptCallsPerTaskMinute: number;
  redisCpuMsPerTaskMinute: number;
  redisBytesPerTask: number;
  workerRssMBEach: number;
  /** Takeover after SIGKILL (K ≥ 2): the slowest task, and the median. */
  takeoverMaxMs?: number;
  takeoverP50Ms?: number;
  takenOver?: number;
  victimTasks?: number;
  /** Creations the store refused (not reported, cancelled: not lost); a Redis timing out under overload. */
  refused: number;
  lost: number;
  duplicates: number;
  /** Handles that ended otherwise than completed (their tasks stay stored and are adopted again). */
  otherEnds: number;
  /** When tasks are missing: per survivor, the handles it still follows and the leases it holds. */
  stuck?: Array<{ active: number; held: number }>;
}

interface Worker {
  proc: ChildProcess;
  next(op: string): Promise<Record<string, unknown>>;
  ask(message: Record<string, unknown>, answer: string): Promise<Record<string, unknown>>;
}

function startWorker(url: string, redisUrl: string, index: number): Worker {
  const proc = fork(here("./scale-out-worker.ts"), [url, redisUrl, `worker-${index}`, String(LEASE_MS)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting = new Map<string, (message: Record<string, unknown>) => void>();
  proc.on("message", (message: Record<string, unknown>) => {
    const resolve = waiting.get(message.op as string);
    waiting.delete(message.op as string);
    resolve?.(message);
  });
  const next = (op: string) => new Promise<Record<string, unknown>>((resolve) => waiting.set(op, resolve));
  return {
    proc,
    next,
    ask: (message, answer) => {
      const answered = next(answer);
      proc.send(message);
      return answered;
    },
  };
}

async function startServer(tasks: number, intervalMs: number): Promise<{ url: string; proc: ChildProcess }> {
  const proc = fork(here("./scale-out-server.ts"), [String(tasks), String(intervalMs)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout?.on("data", (chunk: Buffer) => {
      const match = /listening (\S+)/.exec(chunk.toString());
      if (match) resolve(match[1] as string);
    });
    proc.once("exit", () => reject(new Error("the bench server exited")));
  });
  return { url, proc };
}

async function control(url: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(new URL("/control", url), { method: "POST", body: JSON.stringify(body) });
  return (await response.json()) as Record<string, unknown>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await pause(250);
  }
}

/** What Redis has done so far: commands (scripts' inner ones included), script calls, CPU seconds, memory. */
async function redisInfo(client: { info(section?: string): Promise<string> }) {
  const text = (await client.info()) + (await client.info("commandstats"));
  const number = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(text)?.[1] ?? 0);
  return {
    commands: number("total_commands_processed"),
    scripts: Number(/cmdstat_eval:calls=(\d+)/.exec(text)?.[1] ?? 0),
    cpuSeconds: number("used_cpu_sys") + number("used_cpu_user"),
    memory: number("used_memory"),
  };
}

export async function scaleOutRun(
  workers: number,
  tasks: number,
  intervalMs: number,
  windowMs: number,
): Promise<ScaleRun> {
  const redis = await startRedis();
  const raw = createClient({ url: redis.url });
  await raw.connect();
  const { url, proc: serverProc } = await startServer(tasks, intervalMs);
  const started = Array.from({ length: workers }, (_, index) => startWorker(url, redis.url, index));
  try {
    await Promise.all(started.map((worker) => worker.next("ready")));
    const memoryBefore = (await redisInfo(raw)).memory;
    const per = Math.ceil(tasks / workers);
    const createStart = performance.now();
    const created = await Promise.all(
      started.map((worker) => worker.ask({ op: "create", count: per }, "created")),
    );
    const createSeconds = (performance.now() - createStart) / 1000;
    // Tasks whose ref was stored: from here on, each must be followed to its end by some worker.
    const all = created.reduce((sum, counts) => sum + (counts.stored as number), 0);
    const refused = created.reduce((sum, counts) => sum + (counts.refused as number), 0);
    await pause(Math.min(intervalMs, 5000)); // let the first polls spread out

    // The steady window: nothing durable changes; polls, lease renewals and adoption rounds go on.
    const sample = () => Promise.all(started.map((worker) => worker.ask({ op: "sample" }, "sample")));
    const polls = async () => (await control(url, { op: "stats" })).pollsBy as number[];
    const [cpu0, polls0, redis0] = [await sample(), await polls(), await redisInfo(raw)];
    const t0 = performance.now();
    await pause(windowMs);
    const [cpu1, polls1, redis1] = [await sample(), await polls(), await redisInfo(raw)];
    const seconds = (performance.now() - t0) / 1000;
    const perPoll = started.map((_, index) => {
      const cpu = (cpu1[index]?.cpuUs as number) - (cpu0[index]?.cpuUs as number);
      const sent = (polls1[index] ?? 0) - (polls0[index] ?? 0);
      return cpu / Math.max(1, sent);
    });
    const totalPolls =
      polls1.reduce((sum, n) => sum + (n ?? 0), 0) - polls0.reduce((sum, n) => sum + (n ?? 0), 0);
    const taskMinutes = (all * seconds) / 60;
    const run: ScaleRun = {
      workers,
      tasks: all,
      intervalMs,
      windowMs,
      createSeconds: Number(createSeconds.toFixed(2)),
      cpuUsPerPoll: Math.round(perPoll.reduce((sum, us) => sum + us, 0) / perPoll.length),
      pollsPerSecond: Math.round(totalPolls / seconds),
      redisCommandsPerTaskMinute: Number(((redis1.commands - redis0.commands) / taskMinutes).toFixed(3)),
      redisScriptCallsPerTaskMinute: Number(((redis1.scripts - redis0.scripts) / taskMinutes).toFixed(3)),
      redisCpuMsPerTaskMinute: Number(
        (((redis1.cpuSeconds - redis0.cpuSeconds) * 1000) / taskMinutes).toFixed(4),
      ),
      redisBytesPerTask: Math.round((redis1.memory - memoryBefore) / all),
      workerRssMBEach: Math.round(cpu1.reduce((sum, s) => sum + (s.rss as number), 0) / workers / 1e6),
      refused,
      lost: 0,
      duplicates: 0,
      otherEnds: 0,
    };

    let survivors = started;
    if (workers >= 2) {
      const victim = started[0] as Worker;
      victim.proc.kill("SIGKILL");
      await control(url, { op: "kill", victim: 0 });
      survivors = started.slice(1);
      let takeover: Record<string, unknown> = {};
      await until(
        async () => {
          takeover = await control(url, { op: "takeover" });
          return (takeover.takenOver as number) >= (takeover.victimTasks as number);
        },
        "the victim's tasks to be taken over",
        LEASE_MS + 2 * intervalMs + 60_000,
      );
      run.takeoverMaxMs = Math.round(takeover.maxMs as number);
      run.takeoverP50Ms = Math.round(takeover.p50Ms as number);
      run.takenOver = takeover.takenOver as number;
      run.victimTasks = takeover.victimTasks as number;
    }

    // Every task completes on its next poll; each must be reported completed once, by a survivor.
    await control(url, { op: "finish" });
    const reports = async () =>
      Promise.all(survivors.map((worker) => worker.ask({ op: "report" }, "report")));
    let seen: Array<Record<string, unknown>> = [];
    await until(
      async () => {
        seen = await reports();
        return seen.reduce((sum, report) => sum + (report.completed as string[]).length, 0) >= all;
      },
      "every task to complete",
      2 * intervalMs + 120_000,
    ).catch(() => undefined);
    const ids = seen.flatMap((report) => report.completed as string[]);
    const distinct = new Set(ids);
    run.duplicates = ids.length - distinct.size;
    run.lost = all - distinct.size;
    run.otherEnds = seen.reduce((sum, report) => sum + (report.otherEnds as number), 0);
    if (run.lost > 0) {
      run.stuck = seen.map((report) => ({ active: report.active as number, held: report.held as number }));
    }
    return run;
  } finally {
    for (const worker of started) if (worker.proc.exitCode === null) worker.proc.kill("SIGKILL");
    serverProc.kill("SIGTERM");
    await raw.close();
    await redis.stop();
  }
}

export interface ScaleRow {
  workers: number;
  runs: ScaleRun[];
  figures: Record<string, Spread>;
}

const FIGURES = [
  "cpuUsPerPoll",
  "pollsPerSecond",
  "redisCommandsPerTaskMinute",
  "redisScriptCallsPerTaskMinute",
  "redisCpuMsPerTaskMinute",
  "redisBytesPerTask",
  "workerRssMBEach",
  "createSeconds",
  "takeoverP50Ms",
  "takeoverMaxMs",
] as const;

export function scaleTable(rows: ScaleRow[], intervalMs: number): string {
  const cell = (row: ScaleRow, name: string) => {
    const figure = row.figures[name];
    if (figure === undefined) return "—";
    const format = (value: number) =>
      value >= 100 ? Math.round(value).toLocaleString("en") : Number(value.toPrecision(3)).toString();
    return `${format(figure.median)} (${format(figure.min)}–${format(figure.max)})`;
  };
  const lines = [
    "| figure | " +
      rows.map((row) => `${row.workers} worker${row.workers > 1 ? "s" : ""}`).join(" | ") +
      " |",
    "|---|" + rows.map(() => "---").join("|") + "|",
  ];
  const names: Record<string, string> = {
    cpuUsPerPoll: "worker CPU per poll (µs)",
    pollsPerSecond: "polls/s, all workers",
    redisCommandsPerTaskMinute: "Redis commands per task-minute (steady)",
    redisScriptCallsPerTaskMinute: "Redis script calls per task-minute (steady)",
    redisCpuMsPerTaskMinute: "Redis CPU ms per task-minute (steady)",
    redisBytesPerTask: "Redis memory per task (bytes)",
    workerRssMBEach: "worker RSS (MB each)",
    createSeconds: "creating every task (s)",
    takeoverP50Ms: "takeover after SIGKILL, median (ms)",
    takeoverMaxMs: `takeover, slowest (ms; bound ${(LEASE_MS + intervalMs).toLocaleString("en")})`,
  };
  for (const name of FIGURES)
    lines.push(`| ${names[name]} | ${rows.map((row) => cell(row, name)).join(" | ")} |`);
  const lost = rows.map((row) => row.runs.reduce((sum, run) => sum + run.lost + run.duplicates, 0));
  lines.push(`| stored tasks lost or reported twice (all rounds) | ${lost.join(" | ")} |`);
  const refused = rows.map((row) => row.runs.reduce((sum, run) => sum + run.refused, 0));
  lines.push(`| creations the store refused (cancelled, all rounds) | ${refused.join(" | ")} |`);
  return lines.join("\n");
}

export async function scaleOut(
  tasks: number,
  workerCounts: number[],
  rounds: number,
  intervalMs: number,
  windowMs: number,
): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = workerCounts.map((workers) => ({ workers, runs: [], figures: {} }));
  for (let round = 1; round <= rounds; round++) {
    for (const row of rows) {
      const run = await scaleOutRun(row.workers, tasks, intervalMs, windowMs);
      row.runs.push(run);
      console.error(`[scale-out round ${round}] ${row.workers} worker(s): ${JSON.stringify(run)}`);
    }
  }
  for (const row of rows) {
    for (const name of FIGURES) {
      const values = row.runs.map((run) => run[name]).filter((value): value is number => value !== undefined);
      if (values.length > 0) row.figures[name] = spread(values);
    }
  }
  return rows;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop() as string)) {
  const tasks = Number(process.argv[2] ?? 100_000);
  const workerCounts = (process.argv[3] ?? "1,2,4").split(",").map(Number);
  const rounds = Number(process.argv[4] ?? 3);
  // About 2,000 polls a second in all by default: the server, Redis and the workers share this machine.
  const intervalMs = Number(process.argv[5] ?? Math.max(2000, Math.round(tasks / 2)));
  const windowMs = Number(process.argv[6] ?? Math.max(20_000, intervalMs));
  const rows = await scaleOut(tasks, workerCounts, rounds, intervalMs, windowMs);
  console.log(
    `Scale-out: ${tasks.toLocaleString("en")} tasks polled every ${intervalMs} ms, lease ${LEASE_MS} ms, ` +
      `${rounds} round(s), window ${windowMs / 1000} s; median (min–max)\n\n${scaleTable(rows, intervalMs)}`,
  );
  console.log(`SCALE_RESULT ${JSON.stringify({ tasks, intervalMs, windowMs, leaseMs: LEASE_MS, rows })}`);
}
