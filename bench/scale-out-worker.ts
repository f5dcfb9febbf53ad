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
  if (outcome.kind === "completed" && outcome.taskId !== undefined) completed.push(outcome.taskId);
  else otherEnds++;
});

const send = (message: unknown) => process.send?.(message);

async function create(count: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next++ < count) await client.callTool("work").ref;
  };
  await Promise.all(Array.from({ length: 64 }, lane));
}

process.on("message", (message: { op: string; count?: number }) => {
  switch (message.op) {
    case "create":
      void create(message.count ?? 0).then(() => send({ op: "created" }));
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
      send({ op: "report", completed, otherEnds });
      break;
    case "close":
      void client.close().then(() => process.exit(0));
      break;
  }
});
send({ op: "ready" });
