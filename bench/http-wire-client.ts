/**
 * One client process of the HTTP benchmark (bench/http-wire.ts): `<kind> <url> <tasks> <polls> <intervalMs>`.
 * Creates `tasks` tasks on the server of bench/scale-out-server.ts (another process, loopback HTTP), then follows
 * them for `polls` intervals and prints one `HTTP_WIRE_RESULT {json}` line: its own CPU (user + system) and wall
 * time over the polling phase, the `tasks/get` requests it sent in that phase, and the gaps between a task's polls
 * as the server saw them, by this client's own rule (`gap`): from the previous poll's arrival for the raw loops,
 * which wait the interval from a poll's start, and from its answer for a `TaskClient`, which waits it from the
 * answer. Its mean less the interval is how late the client sent its polls. `MCP_TASKS_BENCH_WARM_MS` leaves the
 * polling phase's first milliseconds out of the CPU, wall time and poll count (not out of the gaps).
 *
 * Kinds: `ours` (a `TaskClient`, Node's default path: undici; `MCP_TASKS_BENCH_JITTER` sets its poll jitter,
 * default the library's 0.1), `ours-fetch` (the same with `MCP_TASKS_HTTP=fetch`, set by the harness), `undici` (a raw loop over an undici `Pool` of 64 keep-alive connections) and `fetch` (the
 * same raw loop over the global `fetch`). The raw loops send what a 2026-07-28 poll sends (the same headers and
 * body) and parse the JSON answer, and poll each task every `intervalMs`, measured from the previous poll's start.
 */
import { Pool } from "undici";
import { TaskClient } from "../src/index.js";

const [kind, url, tasksArg, pollsArg, intervalArg] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const tasks = Number(tasksArg);
const polls = Number(pollsArg);
const intervalMs = Number(intervalArg);
const endpoint = new URL(url);
/** The `_meta` every 2026-07-28 request carries: the revision, the client, its capabilities (the tasks extension). */
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "worker-0", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

/** The routing headers of a 2026-07-28 request: `Mcp-Name` is the tool's name or the task's id. */
function headersFor(method: string, name: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    "mcp-name": name,
  };
}

let nextId = 1;
const body = (method: string, params: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: ENVELOPE } });
const nameOf = (params: Record<string, unknown>) => String(params.taskId ?? params.name);

type Post = (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;

function rawPost(): Post {
  if (kind === "undici") {
    const pool = new Pool(endpoint.origin, { connections: 64 });
    return async (method, params) => {
      const { body: answer } = await pool.request({
        path: endpoint.pathname,
        method: "POST",
        headers: headersFor(method, nameOf(params)),
        body: body(method, params),
      });
      return (await answer.json()) as Record<string, unknown>;
    };
  }
  return async (method, params) => {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: headersFor(method, nameOf(params)),
      body: body(method, params),
    });
    return (await response.json()) as Record<string, unknown>;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function rawLoop(): Promise<void> {
  const post = rawPost();
  const ids: string[] = [];
  let next = 0;
  const create = async () => {
    while (next++ < tasks) {
      const answer = await post("tools/call", { name: "work", arguments: {} });
      ids.push((answer.result as { taskId: string }).taskId);
    }
  };
  await Promise.all(Array.from({ length: 64 }, create));
  let sent = 0;
  const follow = async (taskId: string, offset: number) => {
    await sleep(offset);
    for (let poll = 0; poll < polls; poll++) {
      const started = performance.now();
      const answer = await post("tasks/get", { taskId });
      sent++;
      if (typeof (answer.result as { status?: unknown }).status !== "string") throw new Error("bad answer");
      await sleep(intervalMs - (performance.now() - started));
    }
  };
  await measure(
    () => Promise.all(ids.map((id, index) => follow(id, (index * intervalMs) / ids.length))),
    () => sent,
  );
}

/**
 * `MCP_TASKS_BENCH_WARM_MS`: the first milliseconds of the polling phase left out of the figures (default 0), so
 * they show a process past its start: its compiler's work on the hot path done, its first rounds over.
 */
const warmMs = Number(process.env.MCP_TASKS_BENCH_WARM_MS ?? 0);

let phase: { cpu: NodeJS.CpuUsage; wallMs: number; polls: number } | undefined;
/** Runs the polling phase and keeps its figures from `warmMs` on; `count` reads the `tasks/get` sent so far. */
async function measure(run: () => Promise<unknown>, count: () => number | Promise<number>): Promise<void> {
  // Read before the clock starts: a `TaskClient`'s count is the process's first `fetch`, which costs milliseconds.
  let from: number | Promise<number> = await count();
  let cpu = process.cpuUsage();
  let started = performance.now();
  const warm =
    warmMs > 0
      ? setTimeout(() => {
          cpu = process.cpuUsage();
          started = performance.now();
          from = count();
        }, warmMs)
      : undefined;
  await run();
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - started;
  clearTimeout(warm);
  phase = { cpu: used, wallMs, polls: (await count()) - (await from) };
}

async function oursLoop(): Promise<void> {
  const quiet = {
    warn: () => undefined,
    error: () => undefined,
    info: () => undefined,
    debug: () => undefined,
  };
  const client = await TaskClient.connect(url, {
    clientInfo: { name: "worker-0", version: "1.0.0" },
    notifications: "off",
    logger: quiet,
    ...(process.env.MCP_TASKS_BENCH_MAX_IN_FLIGHT !== undefined && {
      maxInFlight: Number(process.env.MCP_TASKS_BENCH_MAX_IN_FLIGHT),
    }),
    // The sustain bench follows the server's interval exactly, as the raw loops do (bench/http-sustain.ts).
    ...(process.env.MCP_TASKS_BENCH_JITTER !== undefined && {
      polling: { jitter: Number(process.env.MCP_TASKS_BENCH_JITTER) },
    }),
  });
  const handles: ReturnType<typeof client.callTool>[] = [];
  let next = 0;
  const create = async () => {
    while (next++ < tasks) {
      const handle = client.callTool("work");
      await handle.created;
      handles.push(handle);
    }
  };
  await Promise.all(Array.from({ length: 64 }, create));
  // The server completes each task on the poll after its `polls`-th (bench/http-wire.ts starts it so).
  await measure(() => Promise.all(handles.map((handle) => handle.outcome())), stats);
  await client.close();
}

async function control(op: string): Promise<Record<string, unknown>> {
  const response = await fetch(new URL("/control", endpoint), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ op }),
  });
  return (await response.json()) as Record<string, unknown>;
}

async function stats(): Promise<number> {
  const { pollsBy } = (await control("stats")) as { pollsBy: (number | null)[] };
  return pollsBy[0] ?? 0;
}

/** The server's gaps between a task's polls, by this kind's rule (see the file comment). */
async function gap(): Promise<{ count: number; meanMs: number; p50Ms: number; p99Ms: number }> {
  type Gaps = Awaited<ReturnType<typeof gap>>;
  const { cadence } = (await control("stats")) as { cadence: { sinceArrival: Gaps; sinceAnswer: Gaps } };
  return kind.startsWith("ours") ? cadence.sinceAnswer : cadence.sinceArrival;
}

await (kind.startsWith("ours") ? oursLoop() : rawLoop());
if (phase === undefined) throw new Error("nothing measured");
const sent = phase.polls;
const gapMs = await gap();
const cpuUs = phase.cpu.user + phase.cpu.system;
console.log(
  `HTTP_WIRE_RESULT ${JSON.stringify({
    kind,
    tasks,
    polls: sent,
    cpuUs,
    wallMs: Math.round(phase.wallMs),
    cpuPerPollUs: Math.round(cpuUs / sent),
    pollsPerSecond: Math.round(sent / (phase.wallMs / 1000)),
    gap: gapMs,
  })}`,
);
process.exit(0);
