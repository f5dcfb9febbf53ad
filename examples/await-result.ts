/** Agent code: call a tool and await its result, whether the server answers at once or runs a task. */
import { TaskClient } from "mcp-tasks";
import { runIfMain } from "./run-example.js";

export async function awaitResult(
  serverUrl: string,
  log: (line: string) => void = console.log,
): Promise<void> {
  await using client = await TaskClient.connect(serverUrl);

  const result = await client.callTool("slow_compute", { seconds: 1, label: "quarterly numbers" });

  for (const block of result.content) {
    if (block.type === "text") log(String(block.text));
  }
}

await runIfMain(import.meta.url, (url) => awaitResult(url));
