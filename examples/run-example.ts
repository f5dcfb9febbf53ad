/**
 * Lets each example run on its own: `npx tsx examples/await-result.ts [server-url | --era 2025-11-25]`. Without
 * a URL it starts the reference tasks server on 127.0.0.1 for the duration of the example, speaking 2026-07-28,
 * or the 2025-11-25 generation with `--era 2025-11-25` (the client code is the same for both).
 */
import { pathToFileURL } from "node:url";
import { startTaskServer, type HttpTaskServerOptions } from "mcp-tasks/testing";

export type Example = (serverUrl: string) => Promise<void>;

/**
 * Runs `example` when its file is the program being executed (not when a test imports it). `server` adds options
 * for the reference server it starts.
 */
export async function runIfMain(
  moduleUrl: string,
  example: Example,
  server: HttpTaskServerOptions = {},
): Promise<void> {
  if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const [first, second] = process.argv.slice(2);
  if (first !== undefined && first !== "--era") return example(first);
  return withServer({ ...server, ...(second === "2025-11-25" && { era: second }) }, example);
}

async function withServer(options: HttpTaskServerOptions, example: Example): Promise<void> {
  const server = await startTaskServer(options);
  try {
    await example(server.url);
  } finally {
    await server.close();
  }
}
