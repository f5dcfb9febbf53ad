/**
 * One worker of the scale-out benchmark (bench/scale-out.ts), forked with an IPC channel:
 * `<url> <redisUrl> <name> <leaseMs>`. A `TaskClient` with a `redisStore` and `adopt: true`, polling only. The
 * harness sends `{ op }`: `create` (`count` tasks, 64 creations at a time; answers `created`), `sample` (CPU and
 * memory now), `report` (the ids of the tasks this worker saw complete), `close`.
 */
import { TaskClient } from "../src/index.js";
import { redisStore } from "../src/store/redis.js";

const [url, redisUrl, name, leaseMs] = process.argv.slice(2) as [string, string, string, string];
const quiet = {
  warn: () => undefined,
  error: () => undefined,
  info: () => undefined,
  debug: () => undefined,
};
const store = redisStore({ url: redisUrl, owner: name, leaseMs: Number(leaseMs), logger: quiet });
const client = await TaskClient.connect(url, {
  clientInfo: { name, version: "1.0.0" },
  store,
  adopt: true,
  notifications: "off",
  logger: quiet,
});
const completed: string[] = [];
let otherEnds = 0;
client.on("settled", (_handle, outcome) => {
  if (outcome.kind === "completed" && outcome.taskId !== undefined)
    return void completed.push(outcome.taskId);
  const error = (outcome as { error?: { name?: string } }).error;
  if (error?.name === "TaskStoreError") return; // a refused creation, counted by create()
  // Another ending is not a loss by itself (the task stays stored and is adopted again), but say so.
  if (otherEnds++ < 3)
    console.error(`${name}: a task ended ${outcome.kind}`, (outcome as { error?: unknown }).error);
});
// The harness went away (killed, or crashed): do not outlive it.
process.on("disconnect", () => process.exit(1));

const send = (message: unknown) => process.send?.(message);

/**
 * Creates `count` tasks; answers how many were stored and how many the store refused (such a task is not
 * reported and is cancelled, as documented: nothing durable follows it, so it is not counted as lost).
 */
async function create(count: number): Promise<{ stored: number; refused: number }> {
  let next = 0;
  let stored = 0;
  const lane = async () => {
    while (next++ < count) {
      const handle = client.callTool("work");
      await handle.ref;
      if (handle.taskId !== undefined) stored++; // reported only once its ref is stored
    }
  };
  await Promise.all(Array.from({ length: 64 }, lane));
  return { stored, refused: count - stored };
}

process.on("message", (message: { op: string; count?: number }) => {
  switch (message.op) {
    case "create":
      void create(message.count ?? 0).then((counts) => send({ op: "created", ...counts }));
      break;
    case "sample": {
      const cpu = process.cpuUsage();
      const memory = process.memoryUsage();
      send({
        op: "sample",
        cpuUs: cpu.user + cpu.system,
        rss: memory.rss,
        heapUsed: memory.heapUsed,
        held: store.held,
      });
      break;
    }
    case "report":
      send({ op: "report", completed, otherEnds, active: client.activeTasks, held: store.held });
      break;
    case "close":
      void client.close().then(() => process.exit(0));
      break;
  }
});
send({ op: "ready" });
