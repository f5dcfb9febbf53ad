/**
 * The `mcp-tasks-server` command: the reference server with the conformance fixture tools, over
 * HTTP (prints the endpoint URL on stdout) or over stdio (stdout is the protocol channel, so
 * diagnostics go to stderr).
 */
import { McpTasksError } from "../protocol/errors.js";
import { parseArgs } from "node:util";
import { fixtureTools } from "./fixtures.js";
import { startTaskServer } from "./http-server.js";
import { TASK_SERVER_ERAS } from "./era.js";
import type { TaskServer, TaskServerEra } from "./server-core.js";
import { startStdioTaskServer } from "./stdio-server.js";
import { TOOL_DEFAULTS, type ToolDefinition } from "./tool.js";
import { checkAuthOptions, type ServerAuthOptions } from "./auth/options.js";
import { stderrTracerProvider } from "./stderr-spans.js";

const OPTIONS = `Usage: mcp-tasks-server [--era E] [--port N] [--host H] [--path /mcp] [--auth A] [--time-scale X] [--otel] | --stdio [--era E] [--time-scale X] [--otel]

Serves the MCP Tasks extension (2026-07-28) with the conformance fixture tools.
  --era E           2026-07-28 (default) or 2025-11-25: the same tools as 2025-11-25 tasks
                    (params.task, tasks/get|result|list|cancel); needs @modelcontextprotocol/sdk
  --port N          HTTP port (default 0: a free port)
  --host H          interface to bind (default 127.0.0.1)
  --path P          endpoint path (default /mcp)
  --auth A          require authorization (HTTP only): bearer:<token> (that static token), or oauth:
                    protected-resource metadata and an authorization server on the same origin
                    (registration, an approval page at /authorize, PKCE S256, rotating refresh tokens)
  --token-lifetime T  --auth oauth: how long access tokens live, e.g. 30s, 10m (default 1h)
  --stdio           serve newline-delimited JSON-RPC on stdin/stdout instead of HTTP
  --time-scale X    multiply the fixtures' delays (default 1)
  --otel            OpenTelemetry: a span per request, continuing the client's traceparent from _meta,
                    written as one JSON line each on stderr; needs @opentelemetry/api and
                    @opentelemetry/sdk-trace-base
  -h, --help        print this help
`;

/** One argument of a tool as its `inputSchema` declares it: `name: type`, `?` when optional. */
function describeArguments(inputSchema: ToolDefinition["inputSchema"]): string {
  const properties = inputSchema?.["properties"];
  if (typeof properties !== "object" || properties === null) return "(no arguments)";
  const required = inputSchema?.["required"];
  const requiredNames = new Set(Array.isArray(required) ? required : []);
  const described = Object.entries(properties as Record<string, unknown>).map(([name, schema]) => {
    const type = (schema as { type?: unknown } | null)?.type;
    return `${name}${requiredNames.has(name) ? "" : "?"}: ${typeof type === "string" ? type : "any"}`;
  });
  return described.length > 0 ? `{ ${described.join(", ")} }` : "(no arguments)";
}

/**
 * The tools section of `--help`, generated from the definitions the server serves: each tool's name,
 * arguments (from its `inputSchema`), whether a call becomes a task, and its description.
 */
export function describeTools(tools: readonly ToolDefinition[]): string {
  const lines = tools.map((tool) => {
    const task = tool.task ?? TOOL_DEFAULTS.task;
    const head = `  ${tool.name} ${describeArguments(tool.inputSchema)}  [task: ${task}]`;
    return tool.description === undefined ? head : `${head}\n      ${tool.description}`;
  });
  return `Tools:\n${lines.join("\n")}\n`;
}

/** The full `--help` text: the options, then the tools the command serves. */
export function taskServerUsage(tools: readonly ToolDefinition[] = fixtureTools()): string {
  return `${OPTIONS}\n${describeTools(tools)}`;
}

/** Thrown for command-line arguments the command cannot use. */
export class CliUsageError extends McpTasksError {
  static override readonly errorName: string = "CliUsageError";
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

/** `--auth bearer:<token>` or `--auth oauth` (with `--token-lifetime 10m`). */
function authOption(value: string, lifetime: string | undefined): ServerAuthOptions {
  if (value === "oauth") {
    if (lifetime === undefined) return { type: "oauth" };
    const match = /^(\d+)(ms|s|m|h)?$/.exec(lifetime.trim());
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match?.[2] ?? "s"] ?? 1000;
    const ms = match === null ? Number.NaN : Number(match[1]) * unit;
    if (!Number.isSafeInteger(ms) || ms <= 0)
      throw new CliUsageError(`invalid --token-lifetime: ${lifetime}`);
    return { type: "oauth", tokenLifetimeMs: ms };
  }
  if (value.startsWith("bearer:") && value.length > "bearer:".length) {
    if (lifetime !== undefined) throw new CliUsageError("--token-lifetime applies to --auth oauth only");
    const bearer = { type: "bearer", token: value.slice("bearer:".length) } as const;
    try {
      checkAuthOptions(bearer);
    } catch (error) {
      throw new CliUsageError(`invalid --auth: ${(error as Error).message}`);
    }
    return bearer;
  }
  throw new CliUsageError("invalid --auth: use bearer:<token> or oauth");
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
        era: { type: "string" },
        auth: { type: "string" },
        "token-lifetime": { type: "string" },
        "time-scale": { type: "string" },
        otel: { type: "boolean" },
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
  const era = values.era ?? "2026-07-28";
  if (!TASK_SERVER_ERAS.includes(era as TaskServerEra)) {
    throw new CliUsageError(`invalid --era: ${era} (use ${TASK_SERVER_ERAS.join(" or ")})`);
  }
  const write = (line: string) => void process.stderr.write(line);
  const common = {
    era: era as TaskServerEra,
    tools: fixtureTools({ timeScale }),
    onError: (error: Error) => write(`mcp-tasks-server: ${error.message}\n`),
    ...(values.otel === true && { tracerProvider: await stderrTracerProvider(write) }),
  };
  const auth = values.auth === undefined ? undefined : authOption(values.auth, values["token-lifetime"]);
  if (auth === undefined && values["token-lifetime"] !== undefined) {
    throw new CliUsageError("--token-lifetime applies to --auth oauth only");
  }
  if (values.stdio === true) {
    if (auth !== undefined) throw new CliUsageError("--auth applies to HTTP, not --stdio");
    return startStdioTaskServer(common);
  }
  const port = numberOption(values.port, "port", (n) => Number.isInteger(n) && n >= 0 && n <= 65535) ?? 0;
  const server = await startTaskServer({
    ...common,
    port,
    host: values.host ?? "127.0.0.1",
    path: values.path ?? "/mcp",
    ...(auth !== undefined && { auth }),
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
    const usage = taskServerUsage();
    (help ? process.stdout : process.stderr).write(
      help ? usage : `mcp-tasks-server: ${error.message}\n\n${usage}`,
    );
    process.exitCode = help ? 0 : 2;
    return;
  }
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  if (argv.includes("--stdio")) process.stdin.once("end", stop);
}
