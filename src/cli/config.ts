/**
 * Owns the config file the command was given (`--config FILE`, or `MCP_TASKS_CONFIG`): Claude Desktop, Claude
 * Code, Cursor or VS Code's list of MCP servers, read with the host's parser, and each of its servers as a
 * `Server` the commands connect to. The command reads no other config file: a `.mcp.json` or `.vscode/mcp.json` in
 * the working directory (a cloned repository's) names commands to start, so it is read only when named.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseConfigText, type ConfigServers } from "../host/config.js";
import type { StdioServer } from "../host/servers.js";
import { firstLine, type Invocation } from "./args.js";
import { stdioServer, urlServer, type Server } from "./connect.js";
import { UsageError } from "./exit-codes.js";
import { shellWord } from "./shell-words.js";

/** The environment variable that names the config file when `--config` does not. */
export const CONFIG_ENV = "MCP_TASKS_CONFIG";

/** A config file, read. */
export interface CliConfig {
  /** Its path, as given. */
  path: string;
  /** Its enabled servers, by name, in the file's order. */
  servers: ConfigServers;
}

/**
 * The config `--config` (or `MCP_TASKS_CONFIG`) names, read and checked; undefined when neither is set. A file
 * that cannot be read or parsed is a usage error naming the file (and the field). `warn` hears each field the
 * command does not read.
 */
export function readConfig(
  invocation: Invocation,
  warn: (text: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): CliConfig | undefined {
  const path = invocation.options.config ?? (env[CONFIG_ENV] || undefined);
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read the config ${path}: ${firstLine(error)}`);
  }
  let servers: ConfigServers;
  try {
    servers = parseConfigText(text, { name: path, env, warn });
  } catch (error) {
    throw new UsageError(firstLine(error));
  }
  if (Object.keys(servers).length === 0) throw new UsageError(`${path}: no server is enabled`);
  return { path, servers };
}

/** The config's server `name` as a `Server`; an unknown name is a usage error listing the known ones. */
export function configServer(config: CliConfig, name: string): Server {
  const entry = config.servers[name];
  if (entry === undefined || !Object.hasOwn(config.servers, name)) {
    throw new UsageError(
      `${config.path} has no server ${JSON.stringify(name)} (it has ${Object.keys(config.servers).join(", ")})`,
    );
  }
  const again = `--config ${shellWord(resolve(config.path))} --server ${shellWord(name)}`;
  if ("url" in entry) {
    const server: Server = { ...urlServer(String(entry.url)), name, label: name, again };
    // The config parser gives headers as a plain object of strings.
    if (entry.headers !== undefined) server.headers = { ...(entry.headers as Record<string, string>) };
    return server;
  }
  const stdio = entry as StdioServer;
  const command = [stdio.command, ...(stdio.args ?? [])];
  const server = stdioServer(command, { env: stdio.env, cwd: stdio.cwd });
  return { ...server, name, label: name, again, command };
}

/** Every server of the config, by name. */
export function configServers(config: CliConfig): Array<[string, Server]> {
  return Object.keys(config.servers).map((name) => [name, configServer(config, name)]);
}

/**
 * `SERVER/TOOL`: the config server the word starts with and the tool after its `/` (a server's name may itself
 * hold a `/`: the longest name that fits wins).
 */
export function serverAndTool(config: CliConfig, word: string): { server: string; tool: string } {
  const names = Object.keys(config.servers).sort((a, b) => b.length - a.length);
  const server = names.find((name) => word.startsWith(`${name}/`) && word.length > name.length + 1);
  if (server === undefined) {
    throw new UsageError(
      `with --config, name the tool as SERVER/TOOL (servers: ${Object.keys(config.servers).join(", ")}), got ${JSON.stringify(word)}`,
    );
  }
  return { server, tool: word.slice(server.length + 1) };
}

/** The config server a stored task ran on: the same URL, or the same stdio command and arguments. */
export function configServerOf(
  config: CliConfig,
  url: string | undefined,
  command: readonly string[] | undefined,
): string | undefined {
  for (const [name, server] of configServers(config)) {
    if (url !== undefined && server.url !== undefined && sameUrl(server.url, url)) return name;
    if (
      url === undefined &&
      command !== undefined &&
      server.command !== undefined &&
      server.command.length === command.length &&
      server.command.every((word, i) => word === command[i])
    )
      return name;
  }
  return undefined;
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}
