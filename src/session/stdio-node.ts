/**
 * Stdio targets on Node.js (and Deno, Bun): the v2 SDK's child-process transport. Reached only through the
 * package import `#stdio`, which resolves here under the `node` condition and to `stdio-unavailable.ts`
 * everywhere else, so a browser or worker bundle of `mcp-tasks` never contains child-process code.
 */
import type { StdioTarget } from "./targets.js";
import type { McpTransport } from "./types.js";

export async function createStdioTransport(target: StdioTarget): Promise<McpTransport> {
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  return new StdioClientTransport({
    command: target.command,
    ...(target.args !== undefined && { args: target.args }),
    ...(target.env !== undefined && { env: target.env }),
    ...(target.cwd !== undefined && { cwd: target.cwd }),
  });
}
