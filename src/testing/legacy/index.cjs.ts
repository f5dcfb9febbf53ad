/**
 * The CommonJS twin of `index.ts` (the tsup CJS build resolves `./legacy/index.js` here). The 2025-11-25
 * mode is not bundled twice: a CommonJS caller gets it from the package's own ESM build, through a dynamic
 * import of `mcp-tasks/testing` (Node resolves a package's own name). Its errors are that build's classes.
 */
import type { HttpTaskServer, HttpTaskServerOptions } from "../http-server.js";
import type { TaskServer } from "../server-core.js";
import type { StdioTaskServerOptions } from "../stdio-server.js";

export async function startLegacyHttpServer(options: HttpTaskServerOptions): Promise<HttpTaskServer> {
  const esm = await import("mcp-tasks/testing");
  return esm.startTaskServer({ ...options, era: "2025-11-25" });
}

export async function startLegacyStdioServer(options: StdioTaskServerOptions): Promise<TaskServer> {
  const esm = await import("mcp-tasks/testing");
  return esm.startStdioTaskServer({ ...options, era: "2025-11-25" });
}
