/**
 * One worker of the Redis store test: `node --import tsx redis-worker.ts <url> <redisUrl> <name> <count> <leaseMs>`.
 * On SIGUSR2 calls `work` `count` times; adopts lapsed tasks of other workers, and prints `done <taskId> <kind>` for every
 * handle that settles. SIGTERM closes the client (handing its leases back) and exits.
 */
import { TaskClient } from "mcp-tasks";
import { redisStore } from "mcp-tasks/store/redis";

const [url, redisUrl, name, count, leaseMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const lease = Number(leaseMs);
const client = await TaskClient.connect(url, {
  clientInfo: { name, version: "1.0.0" },
  store: redisStore({ url: redisUrl, leaseMs: lease, owner: name }),
  adopt: { everyMs: Math.floor(lease / 4) },
  polling: { minIntervalMs: 100, jitter: 0.1 },
  maxInFlight: 256,
});
client.on("settled", (_handle, outcome) => console.log(`done ${outcome.taskId ?? "-"} ${outcome.kind}`));
process.on("SIGTERM", () => void client.close().then(() => process.exit(0)));

process.on("SIGUSR2", () => {
  for (let index = 0; index < Number(count); index++) client.callTool("work", { worker: name, index });
});
console.log("ready"); // SIGUSR2 starts the calls
setInterval(() => undefined, 1 << 30); // keep running until SIGTERM
