/**
 * Stdio targets on Node.js (and Deno, Bun): the v2 SDK's child-process transport. Reached only through the
 * package import `#stdio`, which resolves here under the `node` condition and to `stdio-unavailable.ts`
 * everywhere else, so a browser or worker bundle of `mcp-tasks` never contains child-process code.
 *
 * The transport reads the server's output with our line reader (./stdio-lines.ts) instead of its own, whose cost
 * grows with the square of a line's length. The SDK keeps its reader in the field `_readBuffer`; were that to
 * change, the SDK's reader stays, bounded by the same limit (`maxBufferSize`), and the stdio size tests fail.
 */
import type { StdioTarget } from "./targets.js";
import type { McpTransport } from "./types.js";
import { StdioLineReader } from "./stdio-lines.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "./bounded-body.js";

export async function createStdioTransport(
  target: StdioTarget,
  maxMessageBytes: number = DEFAULT_MAX_MESSAGE_BYTES,
): Promise<McpTransport> {
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  const transport = new StdioClientTransport({
    command: target.command,
    ...(target.args !== undefined && { args: target.args }),
    ...(target.env !== undefined && { env: target.env }),
    ...(target.cwd !== undefined && { cwd: target.cwd }),
    maxBufferSize: maxMessageBytes,
  });
  const fields = transport as unknown as Record<string, unknown>;
  if ("_readBuffer" in fields) fields._readBuffer = new StdioLineReader(maxMessageBytes);
  return transport;
}
