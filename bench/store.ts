/**
 * Store overhead: what durability costs per task. `fileStore` puts a ref on create (write, fsync, rename, fsync
 * the directory), rewrites it on a state change worth keeping (answered input), removes it at the end, and lists
 * the directory on `resume()`. Run by `npm run bench` after the scenarios (a few seconds), or alone with
 * `node --import tsx bench/store.ts [count] [redisTasks]`. Then the Redis store's throughput (bench/store-redis.ts,
 * 10,000 tasks over 4 workers), skipped when `redis-server` is missing. Prints tables and one `STORE_RESULT {json}`
 * line.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { TaskRef } from "../src/task/ref.js";
import { fileStore, memoryStore } from "../src/store/index.js";
import type { TaskStore } from "../src/store/types.js";
import { redisServerInstalled, redisTable, redisThroughput, type RedisFigure } from "./store-redis.js";

export interface StoreFigure {
  store: string;
  operation: string;
  count: number;
  meanUs: number;
  p99Us: number;
}

const server = { url: "http://127.0.0.1:1/mcp", name: "bench", protocolVersion: "2026-07-28" };

function ref(index: number, answered: string[] = []): TaskRef {
  return {
    v: 1,
    taskId: `bench-task-${index}-0f6c1d2e-9a7b-4c1e-8d3f`,
    server,
    method: "tools/call",
    toolName: "bench",
    createdAt: new Date().toISOString(),
    ttlMs: 300_000,
    answeredInputKeys: answered,
  };
}

async function timeEach(count: number, op: (index: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    await op(index);
    times.push((performance.now() - start) * 1000);
  }
  return times;
}

const AT_ONCE = 32;

/** Puts `count` refs `AT_ONCE` at a time; each batch's time divided by its size, once per create. */
async function timeBatches(count: number, op: (index: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let first = 0; first < count; first += AT_ONCE) {
    const size = Math.min(AT_ONCE, count - first);
    const start = performance.now();
    await Promise.all(Array.from({ length: size }, (_, k) => op(first + k)));
    const each = ((performance.now() - start) * 1000) / size;
    for (let k = 0; k < size; k++) times.push(each);
  }
  return times;
}

function figure(store: string, operation: string, times: number[]): StoreFigure {
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((sum, time) => sum + time, 0) / times.length;
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  return { store, operation, count: times.length, meanUs: Math.round(mean), p99Us: Math.round(p99) };
}

async function measure(name: string, store: TaskStore, count: number): Promise<StoreFigure[]> {
  await store.open?.();
  const figures = [
    figure(name, "create (put)", await timeEach(count, (i) => store.put(ref(i)))),
    // Creations at once (one agent starting many calls) share the directory fsync: time per create.
    figure(
      name,
      `create, ${AT_ONCE} at once (per create)`,
      await timeBatches(count, (i) => store.put(ref(count + i))),
    ),
    figure(name, "state change (put again)", await timeEach(count, (i) => store.put(ref(i, ["q"])))),
  ];
  const list = await timeEach(5, () => store.list(server));
  figures.push(figure(name, `list ${count} refs (resume)`, list));
  figures.push(figure(name, "end (remove)", await timeEach(count, (i) => store.remove(ref(i)))));
  await timeEach(count, (i) => store.remove(ref(count + i)));
  await store.close?.();
  return figures;
}

export async function storeOverhead(count: number): Promise<StoreFigure[]> {
  const figures: StoreFigure[] = [];
  figures.push(...(await measure("memoryStore", memoryStore(), count)));
  for (const [name, unsafeNoSync] of [
    ["fileStore", false],
    ["fileStore (no fsync)", true],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-bench-store-"));
    try {
      figures.push(...(await measure(name, fileStore(dir, { unsafeNoSync }), count)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return figures;
}

export function storeTable(figures: StoreFigure[]): string {
  const rows = figures.map(
    (f) => `| ${f.store} | ${f.operation} | ${f.count} | ${f.meanUs} µs | ${f.p99Us} µs |`,
  );
  return ["| store | operation | n | mean | p99 |", "|---|---|---|---|---|", ...rows].join("\n");
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop() as string)) {
  const count = Number(process.argv[2] ?? 200);
  const redisTasks = Number(process.argv[3] ?? 10_000);
  const figures = await storeOverhead(count);
  console.log(storeTable(figures));
  let redis: RedisFigure[] | string;
  if (redisServerInstalled()) {
    redis = await redisThroughput(redisTasks);
    console.log(
      `\nRedis store, 4 workers, ${redisTasks.toLocaleString("en")} tasks:\n\n${redisTable(redis)}`,
    );
  } else {
    redis = "skipped: redis-server is not installed (apt-get install redis-server)";
    console.log(`\nRedis store throughput: ${redis}`);
  }
  console.log(`STORE_RESULT ${JSON.stringify({ file: figures, redis })}`);
}
