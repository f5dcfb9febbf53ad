/**
 * The `mcp-tasks-server` command: the reference server with the conformance fixture tools, over
 * HTTP (prints the endpoint URL on stdout) or over stdio (stdout is the protocol channel, so
 * diagnostics go to stderr).
 */
import { parseArgs } from "node:util";
import { fixtureTools } from "./fixtures.js";
import { startTaskServer } from "./httpServer.js";
import type { TaskServer } from "./serverCore.js";
import { startStdioTaskServer } from "./stdioServer.js";

const USAGE = `Usage: mcp-tasks-server [--port N] [--host H] [--path /mcp] [--time-scale X] | --stdio [--time-scale X]

Serves the MCP Tasks extension (2026-07-28) with the conformance fixture tools.
  --port N          HTTP port (default 0: a free port)
  --host H          interface to bind (default 127.0.0.1)
  --path P          endpoint path (default /mcp)
  --stdio           serve newline-delimited JSON-RPC on stdin/stdout instead of HTTP
  --time-scale X    multiply the fixtures' delays (default 1)
`;

/** Thrown for command-line arguments the command cannot use. */
export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

function numberOption(
  value: string | undefined,
  name: string,
  check: (n: number) => boolean,
): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === "" || !check(parsed)) throw new CliUsageError(`invalid --${name}: ${value}`);
  return parsed;
}

/**
 * Start the reference server as the `mcp-tasks-server` command does. Resolves once it is serving;
 * over HTTP `onReady` receives the URL.
 *
 * @throws {CliUsageError} for unknown or malformed arguments.
 */
export async function runTaskServerCli(
  argv: readonly string[],
  onReady: (url: string) => void = () => {},
): Promise<TaskServer> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: "string" },
        host: { type: "string" },
        path: { type: "string" },
        stdio: { type: "boolean" },
        "time-scale": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
  if (values.help === true) throw new CliUsageError("help requested");
  const timeScale =
    numberOption(values["time-scale"], "time-scale", (n) => Number.isFinite(n) && n >= 0) ?? 1;
  const tools = fixtureTools({ timeScale });
  const onError = (error: Error) => process.stderr.write(`mcp-tasks-server: ${error.message}\n`);
  if (values.stdio === true) return startStdioTaskServer({ tools, onError });
  const port = numberOption(values.port, "port", (n) => Number.isInteger(n) && n >= 0 && n <= 65535) ?? 0;
  const server = await startTaskServer({
    tools,
    onError,
    port,
    host: values.host ?? "127.0.0.1",
    path: values.path ?? "/mcp",
  });
  onReady(server.url);
  return server;
}

/** The `mcp-tasks-server` command itself: runs until SIGINT/SIGTERM (or, over stdio, until stdin ends). */
export async function taskServerMain(argv: readonly string[]): Promise<void> {
  let server: TaskServer;
  try {
    server = await runTaskServerCli(argv, (url) => process.stdout.write(`${url}\n`));
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    const help = error.message === "help requested";
    (help ? process.stdout : process.stderr).write(
      help ? USAGE : `mcp-tasks-server: ${error.message}\n\n${USAGE}`,
    );
    process.exitCode = help ? 0 : 2;
    return;
  }
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  if (argv.includes("--stdio")) process.stdin.once("end", stop);
}
