/**
 * The tasks server of the scale-out benchmark (bench/scale-out.ts), in a process of its own, over real HTTP on
 * 127.0.0.1: the 2026-07-28 flow in plain JSON answers (`server/discover`, `tools/call` → a task, `tasks/get`,
 * `tasks/cancel`, `tasks/update`), nothing else, so that 100,000 tasks polled by several workers cost it little.
 * Its tasks stay `working` until the harness says `finish`; then each completes on its next poll.
 *
 * It keeps, per task, which worker (by `clientInfo.name`, `worker-<n>`) polled it last, so the harness can ask
 * how long each task of a killed worker waited for its next poll from another. Control requests are
 * `POST /control` with `{ op }`: `stats`, `kill` (`victim`), `takeover`, `finish`.
 *
 * Run: `node --import tsx bench/scale-out-server.ts <tasks> <pollIntervalMs> [completeAfterPolls]`; prints
 * `listening <url>`. With `completeAfterPolls` (bench/http-wire.ts), a task also completes on its poll after that
 * many, and `stats` also reports the cadence the server saw: for every `tasks/get` after a task's first, the time
 * since that task's previous `tasks/get` arrived and since it was answered (a client that waits the interval from
 * a poll's start keeps the first near the interval, one that waits it from the answer, the second).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";

const PROTOCOL_VERSION = "2026-07-28";
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const TTL_MS = 3_600_000;

const capacity = Number(process.argv[2] ?? 1000);
const pollIntervalMs = Number(process.argv[3] ?? 5000);
const completeAfterPolls = Number(process.argv[4] ?? 0);
const pollsOf = new Uint16Array(completeAfterPolls > 0 ? capacity : 0);

type Message = Record<string, unknown>;

const ids: string[] = [];
const indexById = new Map<string, number>();
const createdAt: string[] = [];
const lastPoller = new Int16Array(capacity).fill(-1);
const creator = new Int16Array(capacity).fill(-1);
const waited = new Float64Array(capacity).fill(Number.NaN);
const pollsBy: number[] = [];
/** When each task's last `tasks/get` arrived and was answered (`performance.now()`), and the gaps seen since. */
const lastArrival = new Float64Array(completeAfterPolls > 0 ? capacity : 0).fill(Number.NaN);
const lastAnswer = new Float64Array(completeAfterPolls > 0 ? capacity : 0).fill(Number.NaN);
const sinceArrival: number[] = [];
const sinceAnswer: number[] = [];
let finished = false;
let victim = -1;
let killedAt = 0;
let victimTasks = 0;
let takenOver = 0;
let completedServed = 0;
const servedCompleted = new Uint8Array(capacity);

function workerOf(params: Message): number {
  const meta = params._meta as Record<string, { name?: string }> | undefined;
  const name = meta?.["io.modelcontextprotocol/clientInfo"]?.name ?? "";
  const index = Number(/^worker-(\d+)$/.exec(name)?.[1] ?? -1);
  return Number.isInteger(index) ? index : -1;
}

function task(index: number, status: string): Message {
  return {
    taskId: ids[index],
    status,
    createdAt: createdAt[index],
    lastUpdatedAt: new Date().toISOString(),
    ttlMs: TTL_MS,
    pollIntervalMs,
  };
}

function answer(method: string, params: Message): { result: Message } | { error: Message } {
  switch (method) {
    case "server/discover":
      return {
        result: {
          resultType: "complete",
          supportedVersions: [PROTOCOL_VERSION],
          capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "scale-out-bench", version: "1.0.0" } },
        },
      };
    case "tools/list":
      return {
        result: { resultType: "complete", tools: [{ name: "work", inputSchema: { type: "object" } }] },
      };
    case "tools/call": {
      if (ids.length >= capacity) return { error: { code: -32603, message: "task capacity reached" } };
      const index = ids.length;
      const id = crypto.randomUUID();
      ids.push(id);
      indexById.set(id, index);
      createdAt.push(new Date().toISOString());
      creator[index] = workerOf(params);
      return { result: { resultType: "task", ...task(index, "working") } };
    }
    case "tasks/get": {
      const index = indexById.get(params.taskId as string);
      if (index === undefined) return { error: { code: -32602, message: "Unknown task" } };
      const worker = workerOf(params);
      pollsBy[worker] = (pollsBy[worker] ?? 0) + 1;
      if (victim >= 0 && worker !== victim && Number.isNaN(waited[index] as number)) {
        const owned = lastPoller[index] === victim || (lastPoller[index] === -1 && creator[index] === victim);
        if (owned) {
          waited[index] = performance.now() - killedAt;
          takenOver++;
        }
      }
      lastPoller[index] = worker;
      if (completeAfterPolls === 0) return poll(index, false);
      const arrived = performance.now();
      if (!Number.isNaN(lastArrival[index] as number)) {
        sinceArrival.push(arrived - (lastArrival[index] as number));
        sinceAnswer.push(arrived - (lastAnswer[index] as number));
      }
      lastArrival[index] = arrived;
      const answered = poll(index, ++(pollsOf as Uint16Array)[index]! > completeAfterPolls);
      lastAnswer[index] = performance.now(); // the answer is written at once, in this same turn
      return answered;
    }
    case "tasks/cancel":
    case "tasks/update":
      return { result: { resultType: "complete" } };
    default:
      return { error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

/** A `tasks/get` answer: the task `working`, or (once finished or due) `completed` with its result. */
function poll(index: number, due: boolean): { result: Message } {
  if (!finished && !due) return { result: { resultType: "complete", ...task(index, "working") } };
  if (servedCompleted[index] === 0) {
    servedCompleted[index] = 1;
    completedServed++;
  }
  const result = { resultType: "complete", content: [{ type: "text", text: "done" }] };
  return { result: { resultType: "complete", ...task(index, "completed"), result } };
}

/** Count, mean, median and 99th percentile of gaps in milliseconds. */
function gaps(values: number[]): { count: number; meanMs: number; p50Ms: number; p99Ms: number } {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { count: sorted.length, meanMs: round(mean), p50Ms: round(at(0.5)), p99Ms: round(at(0.99)) };
}

function control(body: Message): unknown {
  switch (body.op) {
    case "stats":
      return {
        created: ids.length,
        pollsBy,
        completedServed,
        ...(completeAfterPolls > 0 && {
          cadence: { sinceArrival: gaps(sinceArrival), sinceAnswer: gaps(sinceAnswer) },
        }),
      };
    case "kill": {
      victim = Number(body.victim);
      killedAt = performance.now();
      victimTasks = 0;
      for (let index = 0; index < ids.length; index++) {
        if (lastPoller[index] === victim || (lastPoller[index] === -1 && creator[index] === victim))
          victimTasks++;
      }
      return { victimTasks };
    }
    case "takeover": {
      const times = Array.from(waited).filter((ms) => !Number.isNaN(ms));
      times.sort((a, b) => a - b);
      return {
        victimTasks,
        takenOver,
        p50Ms: times[Math.floor(times.length / 2)] ?? 0,
        maxMs: times.at(-1) ?? 0,
      };
    }
    case "finish":
      finished = true;
      return { created: ids.length };
    default:
      return { error: "unknown op" };
  }
}

function reply(response: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    response.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  if (request.method !== "POST") return reply(response, 405);
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    let message: Message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString()) as Message;
    } catch {
      return reply(response, 400);
    }
    if (request.url === "/control") return reply(response, 200, control(message));
    if (message.id === undefined) return reply(response, 202);
    const outcome = answer(String(message.method), (message.params ?? {}) as Message);
    reply(response, 200, { jsonrpc: "2.0", id: message.id, ...outcome });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  console.log(`listening http://127.0.0.1:${port}/mcp`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
process.on("disconnect", () => process.exit(1)); // the harness went away
