/**
 * Lets each example run on its own: `npx tsx examples/await-result.ts [server-url]`. Without a URL it starts
 * the reference tasks server on 127.0.0.1 for the duration of the example.
 */
import { pathToFileURL } from "node:url";
import { startTaskServer } from "mcp-tasks/testing";

export type Example = (serverUrl: string) => Promise<void>;

/** Runs `example` when its file is the program being executed (not when a test imports it). */
export async function runIfMain(moduleUrl: string, example: Example): Promise<void> {
  if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const url = process.argv[2];
  if (url) return example(url);
  const server = await startTaskServer();
  try {
    await example(server.url);
  } finally {
    await server.close();
  }
}
