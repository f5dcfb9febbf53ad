/**
 * Stdio targets outside Node.js: what `#stdio` resolves to in browsers and workers, where no child process
 * can be started. Connecting to a command fails with a clear message instead of a bundling error.
 */
import type { StdioTarget } from "./targets.js";
import type { McpTransport } from "./types.js";

export function createStdioTransport(target: StdioTarget, _maxMessageBytes?: number): Promise<McpTransport> {
  return Promise.reject(
    new TypeError(
      `cannot start the stdio server ${JSON.stringify(target.command)}: stdio targets need Node.js ` +
        '(this runtime resolved mcp-tasks without the "node" export condition); connect to an http(s) URL ' +
        "or pass an MCP transport instead",
    ),
  );
}
