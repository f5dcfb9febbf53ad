/**
 * The v1 SDK (`@modelcontextprotocol/sdk`), which the 2025-11-25 mode of the test kit is built on. It is an
 * optional peer dependency that only `era: "2025-11-25"` needs, so it is loaded here, on first use, with a
 * dynamic import: `mcp-tasks/testing` loads and serves 2026-07-28 without it, and asking for 2025 without it
 * fails with an error that names the package to install.
 */
import { McpTasksError } from "../../protocol/errors.js";
import type * as ServerModule from "@modelcontextprotocol/sdk/server/index.js";
import type * as HttpModule from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type * as StdioModule from "@modelcontextprotocol/sdk/server/stdio.js";
import type * as TypesModule from "@modelcontextprotocol/sdk/types.js";

export const LEGACY_SDK_PACKAGE = "@modelcontextprotocol/sdk";

/** The parts of the v1 SDK the 2025-11-25 server uses. */
export interface LegacySdk {
  readonly Server: typeof ServerModule.Server;
  readonly StreamableHTTPServerTransport: typeof HttpModule.StreamableHTTPServerTransport;
  readonly StdioServerTransport: typeof StdioModule.StdioServerTransport;
  readonly types: typeof TypesModule;
}

/** Thrown when `era: "2025-11-25"` is asked for and `@modelcontextprotocol/sdk` cannot be loaded. */
export class LegacySdkMissingError extends McpTasksError {
  static override readonly errorName: string = "LegacySdkMissingError";
}

/** The error to throw for a failed load of the v1 SDK: explained when the package is missing. */
export function explainMissingLegacySdk(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : "";
  const missing =
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && message.includes(LEGACY_SDK_PACKAGE);
  if (!missing) return error;
  return new LegacySdkMissingError(
    `era "2025-11-25" of mcp-tasks/testing and mcp-tasks-server is built on ${LEGACY_SDK_PACKAGE} (v1), an ` +
      `optional peer dependency of mcp-tasks that is not installed. Install it next to mcp-tasks: ` +
      `npm install --save-dev ${LEGACY_SDK_PACKAGE}`,
    { cause: error },
  );
}

let loading: Promise<LegacySdk> | undefined;

/** Load the v1 SDK once. @throws {LegacySdkMissingError} when the package is not installed. */
export function loadLegacySdk(): Promise<LegacySdk> {
  loading ??= (async () => {
    try {
      const [server, http, stdio, types] = await Promise.all([
        import("@modelcontextprotocol/sdk/server/index.js"),
        import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
        import("@modelcontextprotocol/sdk/server/stdio.js"),
        import("@modelcontextprotocol/sdk/types.js"),
      ]);
      return {
        Server: server.Server,
        StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
        StdioServerTransport: stdio.StdioServerTransport,
        types,
      };
    } catch (error) {
      loading = undefined;
      throw explainMissingLegacySdk(error);
    }
  })();
  return loading;
}
