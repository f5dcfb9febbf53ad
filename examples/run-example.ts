/**
 * Lets each example run on its own: `npx tsx examples/await-result.ts [server-url | --era 2025-11-25]`. Without
 * a URL it starts the reference tasks server on 127.0.0.1 for the duration of the example, speaking 2026-07-28,
 * or the 2025-11-25 generation with `--era 2025-11-25` (the client code is the same for both).
 */
import { pathToFileURL } from "node:url";
import { startTaskServer } from "mcp-tasks/testing";

export type Example = (serverUrl: string) => Promise<void>;

/** Runs `example` when its file is the program being executed (not when a test imports it). */
export async function runIfMain(moduleUrl: string, example: Example): Promise<void> {
  if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const [first, second] = process.argv.slice(2);
  if (first !== undefined && first !== "--era") return example(first);
  const server = await startTaskServer(second === "2025-11-25" ? { era: second } : {});
  try {
    await example(server.url);
  } finally {
    await server.close();
  }
}
