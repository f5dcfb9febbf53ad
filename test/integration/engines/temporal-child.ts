/**
 * A Temporal activity worker that dies: `node --import tsx temporal-child.ts <url> <tool> <killAt>`. Runs
 * `callToolInActivity` in `@temporalio/testing`'s MockActivityEnvironment (the real activity context, heartbeat
 * timeout 300 ms), prints every heartbeat's details as one JSON line (what Temporal's server would hold), and
 * kills itself with SIGKILL at the heartbeat named by `killAt`: `created` (the first, carrying the task's ref) or
 * `working` (the first that carries the status message "half way").
 */
import { MockActivityEnvironment } from "@temporalio/testing";
import { TaskClient } from "mcp-tasks";
import { callToolInActivity, type ToolActivityDetails } from "mcp-tasks/temporal";

const [url, tool, killAt] = process.argv.slice(2) as [string, string, string];

const client = await TaskClient.connect(url, {
  polling: { defaultIntervalMs: 30, minIntervalMs: 10, jitter: 0 },
});
const environment = new MockActivityEnvironment({ heartbeatTimeoutMs: 300, activityType: "deploy" });
environment.on("heartbeat", (details: ToolActivityDetails) => {
  console.log(JSON.stringify(details));
  const dies =
    (killAt === "created" && details.ref !== undefined) ||
    (killAt === "working" && details.statusMessage === "half way");
  if (dies) process.kill(process.pid, "SIGKILL");
});
const result = await environment.run(callToolInActivity, client, tool, { env: "prod" });
// Not killed: say so, so the test sees why.
console.log(JSON.stringify({ finished: result }));
await client.close();
