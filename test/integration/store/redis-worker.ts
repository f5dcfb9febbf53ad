/**
 * One worker of the Redis store test, run as a bundle (see redis.test.ts) with `<url> <redisUrl> <name> <count>
 * <leaseMs>`. On SIGUSR2 calls `work` `count` times (then prints `called`); adopts lapsed tasks of other workers, and prints `done <taskId> <kind>` for every
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
  // A few connections per worker: four workers opening hundreds at once overflow the server's accept queue.
  maxInFlight: 16,
});
client.on("settled", (_handle, outcome) => {
  console.log(`done ${outcome.taskId ?? "-"} ${outcome.kind}`);
  if (outcome.kind !== "completed")
    console.error(`${name}: a task ended ${outcome.kind}`, (outcome as { error?: unknown }).error);
});
process.on("SIGTERM", () => void client.close().then(() => process.exit(0)));

/** Calls `work` `count` times, at most 16 creations at a time (each waits for its ref to be stored). */
async function callAll(): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < Number(count)) await client.callTool("work", { worker: name, index: next++ }).ref;
  };
  await Promise.all(Array.from({ length: 16 }, lane));
}
// `called`: every task of this worker is created and its ref stored (from here on, a SIGKILL loses nothing).
process.on("SIGUSR2", () => void callAll().then(() => console.log("called")));
console.log("ready"); // SIGUSR2 starts the calls
setInterval(() => undefined, 1 << 30); // keep running until SIGTERM
