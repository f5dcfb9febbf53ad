/** A UI: stream a task's status updates to the console as they happen. */
import { TaskClient } from "mcp-tasks";
import { runIfMain } from "./run-example.js";

export async function streamStatus(
  serverUrl: string,
  log: (line: string) => void = console.log,
): Promise<void> {
  await using client = await TaskClient.connect(serverUrl);

  const handle = client.callTool("slow_compute", { seconds: 1, label: "render" });
  for await (const update of handle) {
    log(`${update.status}${update.statusMessage ? ` — ${update.statusMessage}` : ""}`);
  }
  // The loop ends after the terminal update; the handle now holds the result.
  const result = await handle;
  log(`done: ${result.isError ? "tool reported an error" : "ok"}`);
}

await runIfMain(import.meta.url, (url) => streamStatus(url));
