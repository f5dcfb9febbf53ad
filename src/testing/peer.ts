/**
 * `@modelcontextprotocol/server` is an optional peer dependency: only `mcp-tasks/testing` and the
 * `mcp-tasks-server` command need it, so an app that only calls tools never installs it. When it is missing,
 * loading them fails with this message instead of a bare "cannot find module".
 */
export const SERVER_PACKAGE = "@modelcontextprotocol/server";

/** The error to throw for a failed load of the server SDK: explained when the package is missing. */
export function explainMissingServer(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : "";
  const missing =
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && message.includes(SERVER_PACKAGE);
  if (!missing) return error;
  return new Error(
    `mcp-tasks/testing and mcp-tasks-server need ${SERVER_PACKAGE}, an optional peer dependency of ` +
      `mcp-tasks that is not installed. Install it next to mcp-tasks: npm install --save-dev ${SERVER_PACKAGE}`,
    { cause: error },
  );
}
