/** A host: give up on a long task with an AbortSignal. The client sends `tasks/cancel` for you. */
import { TaskCancelledError, TaskClient } from "mcp-tasks";
import { runIfMain } from "./run-example.js";

export async function cancelWithSignal(
  serverUrl: string,
  log: (line: string) => void = console.log,
): Promise<void> {
  await using client = await TaskClient.connect(serverUrl);

  const handle = client.callTool(
    "slow_compute",
    { seconds: 60, label: "backfill" },
    {
      signal: AbortSignal.timeout(500),
    },
  );

  try {
    await handle;
  } catch (error) {
    if (!(error instanceof TaskCancelledError)) throw error;
    // `confirmed` is true when the server itself reported the task as cancelled.
    log(`cancelled (confirmed by server: ${error.confirmed})`);
  }
}

await runIfMain(import.meta.url, (url) => cancelWithSignal(url));
