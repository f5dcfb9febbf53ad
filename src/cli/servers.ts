/**
 * The commands over every server of the `--config` file at once, through one `TaskHost`: `servers` (each
 * server's state, whether it serves tasks, how many tools it has) and `tools` without a server named (every
 * server's tools as `SERVER/TOOL`, the form `call` takes). A server that fails to start or to connect is shown
 * as failed; the others are listed all the same.
 */
import { TaskHost, type HostTool, type ServerEntry } from "../host/index.js";
import type { TaskClientOptions } from "../index.js";
import { taskSupportOf } from "../tools/catalog.js";
import { firstLine, type Invocation } from "./args.js";
import type { Io } from "./commands.js";
import { configServers, type CliConfig } from "./config.js";
import { credentialsFor } from "./connect.js";
import { ExitCode, UsageError } from "./exit-codes.js";
import { commandLine } from "./shell-words.js";
import { table } from "./table.js";
import { oneLine } from "./terminal-text.js";

/** How long closing the host may take: a stdio server that will not stop is left behind after this. */
const CLOSE_TIMEOUT_MS = 5_000;

/** The config named by `--config`, or a usage error for a command that needs one. */
export function neededConfig(invocation: Invocation, command: string): CliConfig {
  if (invocation.config === undefined) {
    throw new UsageError(
      `${command} lists the servers of a config file: give --config <file> (or set MCP_TASKS_CONFIG)`,
    );
  }
  return invocation.config;
}

/** Connects to every server of the config through one host, runs `body`, and closes the host. */
async function withHost<T>(
  invocation: Invocation,
  io: Io,
  config: CliConfig,
  body: (host: TaskHost) => Promise<T>,
): Promise<T> {
  const say = (level: string) => (message: unknown, error?: unknown) =>
    io.stderr.write(
      `mcp-tasks: ${level}: ${String(message)}${error === undefined ? "" : `: ${firstLine(error)}`}\n`,
    );
  const logger = { warn: say("warning"), error: say("error") };
  const onLog = (text: string) => io.stderr.write(`mcp-tasks: ${text}\n`);
  const servers: Record<string, ServerEntry> = {};
  for (const [name, server] of configServers(config)) {
    const own: TaskClientOptions = { clientInfo: { name: "mcp-tasks-cli", version: "0.1.0" }, logger };
    servers[name] =
      server.url === undefined
        ? { ...(server.target as object as { command: string }), ...own }
        : { url: server.url, ...own, ...credentialsFor(server, invocation, onLog) };
  }
  const host = await TaskHost.connect({ servers, closeTimeoutMs: CLOSE_TIMEOUT_MS });
  try {
    return await body(host);
  } finally {
    await host.close();
  }
}

/** `servers`: each server of the config, its state, tasks support, tool count and where it is. */
export async function servers(invocation: Invocation, io: Io): Promise<number> {
  const config = neededConfig(invocation, "servers");
  if (invocation.operands.length > 0)
    throw new UsageError(`unexpected ${JSON.stringify(invocation.operands[0])}`);
  const where = new Map(
    configServers(config).map(([name, server]) => [name, server.url ?? commandLine(server.command ?? [])]),
  );
  return withHost(invocation, io, config, async (host) => {
    const listed = await host.listTools();
    const rows = host.servers.map((status) => ({
      name: status.name,
      state: status.state,
      supportsTasks: status.supportsTasks,
      tools:
        status.state === "ready" ? listed.filter((tool) => tool.server === status.name).length : undefined,
      where: where.get(status.name) ?? "?",
      error: status.error === undefined ? undefined : firstLine(status.error),
    }));
    if (invocation.options.json) {
      for (const row of rows) io.stdout.data(`${JSON.stringify(row)}\n`);
    } else {
      io.stdout.write(
        table([
          ["SERVER", "STATE", "TASKS", "TOOLS", "WHERE"],
          ...rows.map((row) => [
            row.name,
            row.error === undefined ? row.state : `${row.state}: ${row.error}`,
            row.supportsTasks === undefined ? "?" : row.supportsTasks ? "yes" : "no",
            row.tools === undefined ? "-" : String(row.tools),
            row.where,
          ]),
        ]),
      );
    }
    return rows.every((row) => row.state === "ready") ? ExitCode.completed : ExitCode.usage;
  });
}

/** `tools` over the whole config: every ready server's tools as `SERVER/TOOL`. */
export async function toolsAcross(invocation: Invocation, io: Io, config: CliConfig): Promise<number> {
  return withHost(invocation, io, config, async (host) => {
    const listed: HostTool[] = await host.listTools();
    for (const status of host.servers) {
      if (status.state !== "ready")
        io.stderr.write(
          `mcp-tasks: ${status.name} is ${status.state}${status.error === undefined ? "" : `: ${firstLine(status.error)}`}\n`,
        );
    }
    for (const tool of listed) {
      // 2026-07-28: the server decides per call; 2025-11-25: the tool's `execution.taskSupport`.
      const legacy = host.client(tool.server)?.server.era === "legacy";
      const task = legacy ? taskSupportOf(tool) : "decided per call";
      const name = `${tool.server}/${tool.name}`;
      if (invocation.options.json) {
        io.stdout.data(
          `${JSON.stringify({ server: tool.server, name: tool.name, qualifiedName: tool.qualifiedName, description: tool.description, task })}\n`,
        );
        continue;
      }
      io.stdout.write(`${oneLine(name)}  [task: ${task}]\n`);
      if (typeof tool.description === "string")
        io.stdout.write(`    ${tool.description.replace(/\r?\n/g, "\n    ")}\n`);
    }
    return host.servers.every((status) => status.state === "ready") ? ExitCode.completed : ExitCode.usage;
  });
}
