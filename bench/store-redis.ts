/**
 * Redis store throughput: 4 workers (4 `redisStore`s, each with its own connection, in this process) share
 * 10,000 tasks against a throwaway `redis-server` on a loopback port. Each task's life in the store is a create
 * (`put`, which takes the lease), one state change (`put` again) and its end (`remove`); then one worker hands its
 * leases back (`close`) and the other three take them over (`claimLapsed`). Skipped, with a line saying so, when
 * `redis-server` is not installed.
 */
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import type { TaskRef } from "../src/task/ref.js";
import { redisStore, type RedisTaskStore } from "../src/store/redis.js";
import { startRedis } from "../test/integration/store/redis-server.js";

export interface RedisFigure {
  phase: string;
  operations: number;
  seconds: number;
  perSecond: number;
}

const WORKERS = 4;
/** Store calls each worker keeps in flight (node-redis pipelines them over its one connection). */
const CONCURRENCY = 64;
const server = { url: "http://127.0.0.1:1/mcp", name: "bench", protocolVersion: "2026-07-28" };

function ref(worker: number, index: number, answered: string[] = []): TaskRef {
  return {
    v: 1,
    taskId: `bench-${worker}-${index}-0f6c1d2e-9a7b-4c1e-8d3f`,
    server,
    method: "tools/call",
    toolName: "bench",
    createdAt: new Date().toISOString(),
    ttlMs: 300_000,
    answeredInputKeys: answered,
  };
}

export function redisServerInstalled(): boolean {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Runs `op` for every index of every worker, `CONCURRENCY` at a time per worker; returns the seconds taken. */
async function timed(per: number, op: (worker: number, index: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, worker) => {
      let next = 0;
      const lane = async () => {
        while (next < per) await op(worker, next++);
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    }),
  );
  return (performance.now() - start) / 1000;
}

function figure(phase: string, operations: number, seconds: number): RedisFigure {
  return {
    phase,
    operations,
    seconds: Number(seconds.toFixed(3)),
    perSecond: Math.round(operations / seconds),
  };
}

export async function redisThroughput(tasks: number): Promise<RedisFigure[]> {
  const redis = await startRedis();
  const stores: RedisTaskStore[] = Array.from({ length: WORKERS }, (_, worker) =>
    redisStore({ url: redis.url, owner: `worker-${worker}`, leaseMs: 10_000, prefix: "bench" }),
  );
  try {
    await Promise.all(stores.map((store) => store.open?.()));
    const per = Math.ceil(tasks / WORKERS);
    const all = per * WORKERS;
    const store = (worker: number) => stores[worker] as RedisTaskStore;
    const figures = [
      figure("create (put + lease)", all, await timed(per, (w, i) => store(w).put(ref(w, i)))),
      figure("state change (put)", all, await timed(per, (w, i) => store(w).put(ref(w, i, ["q"])))),
    ];
    // Worker 0 stops: its leases go back, and the other three take its tasks over in one trip each.
    let start = performance.now();
    await store(0).close();
    figures.push(figure("lease hand-back (close)", per, (performance.now() - start) / 1000));
    start = performance.now();
    const taken = await Promise.all(stores.slice(1).map((s) => s.claimLapsed(server)));
    const claimed = taken.reduce((sum, refs) => sum + refs.length, 0);
    figures.push(figure("lease takeover (claimLapsed)", claimed, (performance.now() - start) / 1000));
    if (claimed !== per) throw new Error(`takeover claimed ${claimed} of ${per} tasks`);
    const owner = new Map<string, RedisTaskStore>();
    taken.forEach((refs, index) =>
      refs.forEach((r) => owner.set(r.taskId, stores[index + 1] as RedisTaskStore)),
    );
    const end = (w: number, i: number) => {
      const r = ref(w, i);
      return (owner.get(r.taskId) ?? store(w)).remove(r);
    };
    figures.push(figure("end (remove)", all, await timed(per, end)));
    const full = figures.slice(0, 2).concat(figures.at(-1) as RedisFigure);
    const lifeSeconds = full.reduce((sum, f) => sum + f.seconds, 0);
    figures.push(figure("whole task life (create + change + end)", all, lifeSeconds));
    return figures;
  } finally {
    await Promise.allSettled(stores.slice(1).map((store) => store.close()));
    await redis.stop();
  }
}

export function redisTable(figures: RedisFigure[]): string {
  const rows = figures.map(
    (f) => `| ${f.phase} | ${f.operations} | ${f.seconds} s | ${f.perSecond.toLocaleString("en")} /s |`,
  );
  return ["| phase (4 workers) | operations | time | throughput |", "|---|---|---|---|", ...rows].join("\n");
}
