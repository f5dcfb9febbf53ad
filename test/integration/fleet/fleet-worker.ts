/**
 * One worker of the fleet test (fleet.ts), run as a bundle with one JSON argument ({@link WorkerConfig}): the real
 * `TaskClient` with the Redis store, adopting the lapsed tasks of other workers. It appends what it does to its own
 * event log, one JSON line per event, written synchronously so a SIGKILL loses none of them: `start`, `created`
 * (a call's ref is stored: the handle's `task` event), `adopted`, `answered` (an input handler ran), `settled` (every handle's end),
 * `request` (every HTTP request, from the headers function, which the client calls before each one), `redis`
 * (every store command), `leaseLost` (a renewal found a task taken), `closing` and `closed` (around `client.close()`).
 *
 * Commands arrive on stdin, one a line: `call <job> <tool>` calls the tool; `close` closes the client, then the
 * worker lingers (anything of the client that still runs then shows in the log) and exits.
 */
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { createClient, createCluster } from "redis";
import { TaskClient } from "mcp-tasks";
import { redisStore, type RedisLike } from "mcp-tasks/store/redis";

export interface WorkerConfig {
  /** The MCP endpoint (the fleet's fault proxy). */
  url: string;
  redis: { kind: "node"; url: string } | { kind: "cluster"; urls: string[] };
  /** Worker name: its owner name in leases and its `x-fleet-worker` header. */
  name: string;
  leaseMs: number;
  /** The event log file. */
  log: string;
  /** How long the worker stays after `close()` resolved, watching for anything of the client that still runs. */
  lingerMs: number;
}

const config = JSON.parse(process.argv[2] as string) as WorkerConfig;
const { name } = config;
let closedAt: number | undefined;

function log(event: Record<string, unknown>): void {
  appendFileSync(config.log, `${JSON.stringify({ ...event, w: name, t: Date.now() })}\n`);
}

process.on("uncaughtException", (error) => {
  log({ ev: "crash", error: String(error.stack ?? error) });
  process.exit(70);
});
process.on("unhandledRejection", (error) => {
  log({ ev: "crash", error: String((error as Error).stack ?? error) });
  process.exit(70);
});

const quiet = {
  warn: () => undefined,
  error: () => undefined,
  info: () => undefined,
  debug: () => undefined,
};
const redis =
  config.redis.kind === "node"
    ? createClient({ url: config.redis.url })
    : createCluster({ rootNodes: config.redis.urls.map((url) => ({ url })) });
redis.on("error", () => undefined); // a frozen or restarted Redis: the store's own errors are what matter
await redis.connect();
// The store is handed a connection it does not own (the documented way to use a Cluster), so a closed client
// that still writes to Redis shows here.
const logged: RedisLike = {
  eval: (script, options) => {
    log({ ev: "redis", after: closedAt !== undefined });
    return redis.eval(script, options) as ReturnType<RedisLike["eval"]>;
  },
};
const store = redisStore({ client: logged, owner: name, leaseMs: config.leaseMs, logger: quiet });
store.onLeaseLost((ref) => log({ ev: "leaseLost", taskId: ref.taskId }));
/**
 * Connects, again and again while Redis refuses (a worker started while a Cluster node is frozen meets
 * CLUSTERDOWN, as a supervisor restarting a worker would): a worker that cannot start is not a broken promise.
 */
async function connect(options: Parameters<typeof TaskClient.connect>[1]): Promise<TaskClient> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await TaskClient.connect(config.url, options);
    } catch (error) {
      if (attempt === 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
const client = await connect({
  clientInfo: { name, version: "1.0.0" },
  headers: () => {
    log({ ev: "request", after: closedAt !== undefined });
    return { "x-fleet-worker": name };
  },
  store,
  adopt: { everyMs: Math.floor(config.leaseMs / 4) },
  polling: { minIntervalMs: 50, jitter: 0.1 },
  retry: { retries: 30, minTimeoutMs: 50, maxTimeoutMs: 400, factor: 2 },
  requestTimeoutMs: 5_000,
  inputHandlers: {
    elicitation: (_params, context) => {
      log({ ev: "answered", taskId: context.taskId, key: context.key });
      return Promise.resolve({ action: "accept", content: { ok: true } });
    },
  },
  logger: quiet,
});
log({ ev: "start", pid: process.pid });
client.on("task", (_handle, taskId) => log({ ev: "adopted", taskId }));
client.on("settled", (_handle, outcome) => {
  const error = (outcome as { error?: { name?: string; message?: string } }).error;
  log({ ev: "settled", taskId: outcome.taskId, kind: outcome.kind, error: error?.name });
});

function call(job: number, tool: string): void {
  const handle = client.callTool(tool, { job });
  // The handle reports a task once its ref is stored (durable before visible): only then is it the fleet's.
  let stored = false;
  handle.once("task", (taskId) => {
    stored = true;
    log({ ev: "created", job, taskId });
  });
  void handle.outcome().then((outcome) => {
    // No stored ref: the call made no task, or one whose ref could not be written (the client cancels it).
    if (!stored) log({ ev: "callFailed", job, error: (outcome as { error?: Error }).error?.name });
  });
}

async function close(): Promise<void> {
  log({ ev: "closing" });
  await client.close();
  closedAt = Date.now();
  log({ ev: "closed" });
  await new Promise((resolve) => setTimeout(resolve, config.lingerMs));
  log({ ev: "exit" });
  await redis.close().catch(() => undefined);
  process.exit(0);
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const [command, job, tool] = line.trim().split(" ");
  if (command === "call") call(Number(job), tool ?? "work");
  else if (command === "close") void close();
});
console.log("ready");
