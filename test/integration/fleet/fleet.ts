/**
 * One run of the fleet test: K worker processes (fleet-worker.ts: the real `TaskClient` with the Redis store)
 * share one Redis (a node, or a 3-node Cluster) and follow the tasks of the reference server over real HTTP on
 * 127.0.0.1, behind a proxy that fails requests (fleet-proxy.ts), while a schedule drawn from one seed applies
 * faults. Afterwards the whole event log goes to the checker (fleet-checker.ts), which owns the invariants.
 *
 * The schedule (every time and target drawn from the seed before the run starts):
 * - `kill`: SIGKILL a worker (a new one takes its slot);
 * - `stop`: SIGSTOP a worker for 2.5 leases, then SIGCONT (its leases lapse and are adopted while it sleeps);
 * - `close`: `client.close()` at that moment, wherever its tasks are (a new worker takes the slot);
 * - `redis`: SIGSTOP a Redis node for 1.5 leases, then SIGCONT;
 * - `redisRestart` (one node only): SIGKILL Redis, and half a lease later start it again from its append-only file;
 * - `http`: for two leases the proxy answers a share of requests 503 or drops their connections;
 * - `unfollowable`: from the start, one more worker whose server lacks the tasks extension adopts too: it cannot
 *   follow any task, so it must never keep one;
 * - `badOutput`: a fifth of the tasks (drawn from the seed) complete with a result that fails the tool's
 *   `outputSchema`: the server said its last word, so the task must be reported once (as `OutputSchemaError`) and
 *   its ref removed, not followed again.
 * A `redis` fault also closes a worker, half the time, while Redis is frozen (its `close()` must stay bounded).
 * Which request a proxy fault hits depends on timing as well as on the seed: a seed replays the schedule, and the
 * same faults in the same proportions, not the same requests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  defineTool,
  elicitForm,
  startTaskServer,
  step,
  structuredResult,
  textResult,
} from "mcp-tasks/testing";
import { bundleChild, type ChildBundle } from "../store/child-bundle.js";
import { startRedisCluster, startRestartableRedis } from "../store/redis-server.js";
import { checkFleet, isReport, type CheckLimits, type FleetEvent } from "./fleet-checker.js";
import { startFleetProxy } from "./fleet-proxy.js";
import { seeded } from "./fleet-random.js";
import type { WorkerConfig } from "./fleet-worker.js";

export const FAULT_KINDS = [
  "kill",
  "stop",
  "close",
  "redis",
  "redisRestart",
  "http",
  "unfollowable",
  "badOutput",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The fault kinds the test and the soak apply unless `FLEET_FAULTS` says otherwise: all of them. */
export const DEFAULT_FAULTS: readonly FaultKind[] = FAULT_KINDS;

export interface FleetOptions {
  seed: number;
  /** Worker processes (besides the unfollowing one). */
  workers: number;
  /** Tasks created over the run. */
  tasks: number;
  leaseMs: number;
  redis: "node" | "cluster";
  faults: readonly FaultKind[];
  /** Scheduled faults (besides `unfollowable`). */
  faultCount: number;
  /** How long tasks are created and faults applied; then the fleet settles. */
  durationMs: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

export interface FleetResult {
  seed: number;
  problems: string[];
  /** The run's event log (kept when a problem was found). */
  eventsFile: string;
  summary: {
    /** `tools/call` requests the server received. */
    calls: number;
    created: number;
    reported: number;
    faults: Record<string, number>;
    polls: number;
    injected: { errors: number; drops: number };
    ms: number;
  };
}

interface ScheduledFault {
  at: number;
  kind: Exclude<FaultKind, "unfollowable" | "badOutput">;
  slot: number;
}

interface Worker {
  name: string;
  slot: number;
  proc: ChildProcess;
  closing: boolean;
  exited: Promise<void>;
}

/** The seed of a run: `FLEET_SEED` when set (a replay), else a fresh one. */
export function fleetSeed(): number {
  const given = process.env["FLEET_SEED"];
  if (given !== undefined && given !== "") return Number(given) >>> 0;
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}

/** The fault kinds of a run: `FLEET_FAULTS=kill,stop,…` when set, else `defaults`. */
export function fleetFaults(defaults: readonly FaultKind[]): FaultKind[] {
  const given = process.env["FLEET_FAULTS"];
  if (given === undefined || given === "") return [...defaults];
  if (given === "none") return [];
  const kinds = given.split(",").map((kind) => kind.trim());
  const unknown = kinds.filter((kind) => !(FAULT_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0)
    throw new Error(`FLEET_FAULTS: unknown ${unknown.join(", ")} (${FAULT_KINDS.join(", ")})`);
  return kinds as FaultKind[];
}

let bundle: Promise<ChildBundle> | undefined;

/** Deletes the worker bundle the runs of this process made. */
export async function removeFleetBundle(): Promise<void> {
  (await bundle)?.remove();
  bundle = undefined;
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Draws the schedule from the seed: faults spread over the middle of the run, each at a worker slot. */
export function schedule(options: FleetOptions): ScheduledFault[] {
  const random = seeded(options.seed);
  const kinds = options.faults.filter(
    (kind): kind is ScheduledFault["kind"] => kind !== "unfollowable" && kind !== "badOutput",
  );
  if (kinds.length === 0) return [];
  const faults: ScheduledFault[] = [];
  for (let index = 0; index < options.faultCount; index++) {
    faults.push({
      at: random.int(Math.floor(options.durationMs * 0.1), Math.floor(options.durationMs * 0.8)),
      kind: random.pick(kinds),
      slot: random.int(0, options.workers - 1),
    });
  }
  return faults.sort((a, b) => a.at - b.at);
}

export async function runFleet(options: FleetOptions): Promise<FleetResult> {
  const log = options.log ?? (() => undefined);
  const startedAt = Date.now();
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-fleet-"));
  const events: FleetEvent[] = [];
  const fault = (kind: string, target: string, untilT?: number) =>
    events.push({ ev: "fault", t: Date.now(), kind, target, ...(untilT !== undefined && { untilT }) });
  const { leaseMs } = options;
  const plan = schedule(options);
  const random = seeded(options.seed ^ 0x5bd1e995);

  bundle ??= bundleChild(new URL("./fleet-worker.ts", import.meta.url), { external: ["redis"] });
  const worker = await bundle;
  const redis =
    options.redis === "node"
      ? await startRestartableRedis().then((node) => ({
          urls: [node.url],
          get pids() {
            return [node.pid];
          },
          restart: (downMs: number) => node.restart(downMs),
          stop: () => node.stop(),
        }))
      : await startRedisCluster();
  const server = await startTaskServer({
    tools: [
      defineTool({
        name: "work",
        task: "required",
        pollIntervalMs: 100,
        steps: [
          step.working("starting"),
          step.idle(3),
          step.input({ q: elicitForm("Proceed?", { ok: { type: "boolean" } }, ["ok"]) }),
          step.working("finishing"),
          step.idle(4),
          step.complete((call) => textResult(`job ${JSON.stringify(call.arguments["job"])}`)),
        ],
      }),
      defineTool({
        name: "shaped",
        task: "required",
        pollIntervalMs: 100,
        outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        steps: [
          step.working("starting"),
          step.idle(3),
          step.complete(structuredResult({ n: "not a number" })),
        ],
      }),
    ],
  });
  const unfollowing = options.faults.includes("unfollowable") ? new Set(["old.1"]) : new Set<string>();
  const proxy = await startFleetProxy(server.url, {
    random,
    errorRate: 0.1,
    dropRate: 0.1,
    unfollowing,
  });

  const workers: Worker[] = [];
  let began = Date.now();
  /** Calls that found every slot being replaced: the next worker to start takes them. */
  const waiting: Array<{ job: number; command: string }> = [];
  /** The worker each call was handed to: the run settles only when none of them still has one in flight. */
  const sentTo = new Map<number, Worker>();
  const generation = new Map<number, number>();
  const stopped = new Set<number>(); // pids under SIGSTOP
  const frozen = new Set<number>();
  let restarting = false;
  const spawnWorker = async (slot: number, name?: string): Promise<Worker> => {
    const gen = (generation.get(slot) ?? 0) + 1;
    generation.set(slot, gen);
    const workerName = name ?? `w${String(slot + 1)}.${String(gen)}`;
    const config: WorkerConfig = {
      url: proxy.url,
      redis:
        options.redis === "node"
          ? { kind: "node", url: redis.urls[0] as string }
          : { kind: "cluster", urls: redis.urls },
      name: workerName,
      leaseMs,
      log: join(dir, `${workerName}.jsonl`),
      lingerMs: Math.round(leaseMs * 1.5),
    };
    const proc = spawn(process.execPath, [worker.path, JSON.stringify(config)], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => proc.once("close", () => resolve()));
    const ready = new Promise<void>((resolve, reject) => {
      proc.stdout?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("ready")) resolve();
      });
      void exited.then(() => reject(new Error(`worker ${workerName} exited before it was ready: ${stderr}`)));
    });
    await ready;
    const entry: Worker = { name: workerName, slot, proc, closing: false, exited };
    workers.push(entry);
    if (name === undefined)
      for (const { job, command } of waiting.splice(0)) {
        sentTo.set(job, entry);
        proc.stdin?.write(command);
      }
    return entry;
  };
  const current = (slot: number) => workers.filter((entry) => entry.slot === slot && !entry.closing).at(-1);
  const signal = (pid: number | undefined, name: NodeJS.Signals) => {
    if (pid === undefined) return;
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  const timers: Array<Promise<void>> = [];

  try {
    await Promise.all(Array.from({ length: options.workers }, (_, slot) => spawnWorker(slot)));
    if (unfollowing.size > 0) await spawnWorker(options.workers, "old.1");
    // The schedule counts from here: starting the processes may take seconds on a loaded machine.
    began = Date.now();
    log(
      `fleet seed ${String(options.seed)}: ${String(options.workers)} workers, ${options.redis}, faults ${options.faults.join(",")}`,
    );

    // Task creation, spread over the first 70% of the run, each sent to a worker drawn from the seed.
    const calls = Array.from({ length: options.tasks }, (_, job) => ({
      at: Math.floor((options.durationMs * 0.7 * job) / options.tasks),
      job,
      slot: random.int(0, options.workers - 1),
      tool: options.faults.includes("badOutput") && random.chance(0.2) ? "shaped" : "work",
    }));
    const timeline = [
      ...calls.map((call) => ({
        at: call.at,
        // The drawn slot's worker, or while it is being replaced, the next slot's.
        run: () => {
          const slots = Array.from(
            { length: options.workers },
            (_, index) => (call.slot + index) % options.workers,
          );
          const to = slots.map(current).find((entry) => entry !== undefined);
          const command = `call ${String(call.job)} ${call.tool}\n`;
          if (to === undefined) waiting.push({ job: call.job, command });
          else {
            sentTo.set(call.job, to);
            to.proc.stdin?.write(command);
          }
        },
      })),
      ...plan.map((planned) => ({ at: planned.at, run: () => applyFault(planned) })),
    ].sort((a, b) => a.at - b.at);

    const closeWorker = (target: Worker, slot: number): void => {
      if (target.closing) return;
      fault("close", target.name);
      target.closing = true;
      target.proc.stdin?.write("close\n");
      timers.push(spawnWorker(slot).then(() => undefined));
    };
    const applyFault = (planned: ScheduledFault): void => {
      const target = current(planned.slot);
      if (planned.kind === "http") {
        fault("http", "proxy", Date.now() + 2 * leaseMs);
        proxy.faults = true;
        timers.push(pause(2 * leaseMs).then(() => void (proxy.faults = false)));
        return;
      }
      if (planned.kind === "redisRestart") {
        // One node only: a Cluster's node restarted from its files is another story (failover, slot moves).
        if (!("restart" in redis) || restarting) return;
        fault("redisRestart", "node0", Date.now() + leaseMs / 2);
        restarting = true;
        timers.push(redis.restart(leaseMs / 2).then(() => void (restarting = false)));
        return;
      }
      if (planned.kind === "redis") {
        const node = planned.slot % redis.pids.length;
        const pid = redis.pids[node];
        if (pid === undefined || frozen.has(pid)) return;
        fault("redis", `node${String(node)}`, Date.now() + 1.5 * leaseMs);
        frozen.add(pid);
        signal(pid, "SIGSTOP");
        if (target !== undefined && random.chance(0.5)) {
          // close() while the store cannot answer: it must still resolve within its bound.
          timers.push(pause(200).then(() => closeWorker(target, planned.slot)));
        }
        timers.push(
          pause(1.5 * leaseMs).then(() => {
            signal(pid, "SIGCONT");
            frozen.delete(pid);
          }),
        );
        return;
      }
      if (target === undefined) return;
      const pid = target.proc.pid;
      if (planned.kind === "kill") {
        fault("kill", target.name);
        target.closing = true;
        signal(pid, "SIGKILL");
        if (pid !== undefined) stopped.delete(pid);
        timers.push(spawnWorker(planned.slot).then(() => undefined));
      } else if (planned.kind === "stop") {
        if (pid === undefined || stopped.has(pid)) return;
        fault("stop", target.name, Date.now() + 2.5 * leaseMs);
        stopped.add(pid);
        signal(pid, "SIGSTOP");
        timers.push(
          pause(2.5 * leaseMs).then(() => {
            if (stopped.delete(pid)) signal(pid, "SIGCONT");
          }),
        );
      } else {
        closeWorker(target, planned.slot);
      }
    };

    for (const item of timeline) {
      const wait = began + item.at - Date.now();
      if (wait > 0) await pause(wait);
      item.run();
    }
    const endOfFaults = began + options.durationMs - Date.now();
    if (endOfFaults > 0) await pause(endOfFaults);
    await Promise.all(timers);
    proxy.faults = false;

    // Settle: every call a running worker was handed has made its task (or failed), every created task is
    // reported, or the time is up. A call still in flight (a worker woken from SIGSTOP sends its tools/call late)
    // would otherwise create its task while every worker closes, with no one left to follow it.
    const settleBy = Date.now() + Math.max(15_000, 8 * leaseMs);
    for (;;) {
      const logged = readWorkerLogs(dir);
      const created = new Set(logged.flatMap((event) => (event.ev === "created" ? [event.taskId] : [])));
      const reported = new Set(
        logged.flatMap((event) =>
          event.ev === "settled" && isReport(event) && event.taskId !== undefined ? [event.taskId] : [],
        ),
      );
      const answered = new Set(
        logged.flatMap((event) => (event.ev === "created" || event.ev === "callFailed" ? [event.job] : [])),
      );
      const inFlight = [...sentTo].some(
        ([job, to]) => !answered.has(job) && to.proc.exitCode === null && to.proc.signalCode === null,
      );
      const settled =
        waiting.length === 0 && !inFlight && [...created].every((taskId) => reported.has(taskId));
      if (settled || Date.now() > settleBy) break;
      await pause(200);
    }
    log(
      `fleet seed ${String(options.seed)}: settled after ${String(Date.now() - began)}ms; closing the workers`,
    );

    // Every worker still running closes; one whose close() hangs is killed after the bound.
    const live = workers.filter((entry) => entry.proc.exitCode === null && entry.proc.signalCode === null);
    for (const entry of live) {
      if (!entry.closing) entry.proc.stdin?.write("close\n");
      entry.closing = true;
    }
    const closeBound = 5_000 + 2 * leaseMs;
    await Promise.race([Promise.all(live.map((entry) => entry.exited)), pause(closeBound)]);
  } finally {
    for (const pid of stopped) signal(pid, "SIGCONT");
    for (const pid of frozen) signal(pid, "SIGCONT");
    for (const entry of workers) if (entry.proc.exitCode === null) entry.proc.kill("SIGKILL");
    await Promise.all(workers.map((entry) => entry.exited));
  }

  // The server's side of the log.
  for (const request of server.requests.all()) {
    const w = request.headers["x-fleet-worker"] ?? "?";
    const params = (request.body as { params?: Record<string, unknown> } | undefined)?.params ?? {};
    const t = request.receivedAt;
    if (request.method === "tasks/get") events.push({ ev: "poll", w, t, taskId: String(params["taskId"]) });
    if (request.method === "tasks/update") {
      const keys = Object.keys((params["inputResponses"] as object | undefined) ?? {});
      events.push({ ev: "update", w, t, taskId: String(params["taskId"]), keys });
    }
    if (request.method === "tools/call") {
      const args = (params["arguments"] as Record<string, unknown> | undefined) ?? {};
      events.push({ ev: "call", w, t, job: Number(args["job"]) });
    }
  }
  for (const taskId of server.tasks.ids()) {
    events.push({
      ev: "serverTask",
      t: Date.now(),
      taskId,
      status: server.tasks.get(taskId)?.status ?? "gone",
    });
  }
  events.push(...readWorkerLogs(dir));
  events.sort((a, b) => a.t - b.t);

  await proxy.close();
  await server.close();
  await redis.stop();

  const limits: CheckLimits = {
    // A lease, the renewal that tells its old holder it lost it (a third of a lease), and scheduling slack.
    boundMs: leaseMs + Math.ceil(leaseMs / 3) + 500,
    gapMs: 2 * leaseMs,
    slackMs: 2_000,
    closeBoundMs: 2_000 + leaseMs,
    crashWindowMs: 1_000,
  };
  const problems = checkFleet(events, limits);
  const eventsFile = join(dir, "events.jsonl");
  writeFileSync(eventsFile, events.map((event) => JSON.stringify(event)).join("\n") + "\n");
  const workerFiles = readdirSync(dir).filter((file) => file !== "events.jsonl");
  if (problems.length === 0 && process.env["FLEET_KEEP"] === undefined) {
    for (const file of workerFiles) rmSync(join(dir, file), { force: true });
    rmSync(dir, { recursive: true, force: true });
  }
  const faultCounts: Record<string, number> = {};
  for (const event of events)
    if (event.ev === "fault") faultCounts[event.kind] = (faultCounts[event.kind] ?? 0) + 1;
  const createdIds = new Set(events.flatMap((event) => (event.ev === "created" ? [event.taskId] : [])));
  const reportedIds = new Set(
    events.flatMap((event) =>
      event.ev === "settled" && isReport(event) && event.taskId ? [event.taskId] : [],
    ),
  );
  return {
    seed: options.seed,
    problems,
    eventsFile,
    summary: {
      calls: events.filter((event) => event.ev === "call").length,
      created: createdIds.size,
      reported: [...createdIds].filter((taskId) => reportedIds.has(taskId)).length,
      faults: faultCounts,
      polls: events.filter((event) => event.ev === "poll").length,
      injected: { ...proxy.injected },
      ms: Date.now() - startedAt,
    },
  };
}

function readWorkerLogs(dir: string): FleetEvent[] {
  const events: FleetEvent[] = [];
  for (const file of readdirSync(dir)) {
    if (!file.endsWith(".jsonl") || file === "events.jsonl") continue;
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      try {
        events.push(JSON.parse(line) as FleetEvent);
      } catch {
        // a line cut by SIGKILL
      }
    }
  }
  return events;
}
