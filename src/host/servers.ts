/**
 * Owns how one server entry of `TaskHost.connect` becomes a `TaskClient.connect` call: the target, and the
 * options (the host's shared options, overridden by the server's own).
 */
import type { ConnectTarget, StdioTarget, TaskClientOptions } from "mcp-tasks";
import type { McpTransport } from "mcp-tasks/transport";

/** A URL server with its own options (`headers`, `auth`, or any other `TaskClient` option). */
export interface UrlServer extends TaskClientOptions {
  url: string | URL;
}

/** A stdio server with its own options. */
export interface StdioServer extends StdioTarget, Omit<TaskClientOptions, "headers" | "auth"> {}

/**
 * One server of a host: what `TaskClient.connect` takes (a URL, a stdio `{ command, args, env, cwd }`, an MCP
 * SDK transport), or `{ url, …options }` / `{ command, …options }` with options of its own.
 */
export type ServerEntry = ConnectTarget | UrlServer | StdioServer;

/** The connect call for one entry. */
export interface ServerConnect {
  target: ConnectTarget;
  options: TaskClientOptions;
}

const STDIO_KEYS = ["command", "args", "env", "cwd"] as const;

function isTransport(entry: object): entry is McpTransport {
  const candidate = entry as Partial<Record<"start" | "send" | "close", unknown>>;
  return (
    typeof candidate.start === "function" &&
    typeof candidate.send === "function" &&
    typeof candidate.close === "function"
  );
}

/** HTTP-only options shared by the host do not reach a stdio or transport server (TaskClient refuses them). */
function withoutHttp(shared: TaskClientOptions): TaskClientOptions {
  const options = { ...shared };
  delete options.headers;
  delete options.auth;
  return options;
}

/** Splits an entry into its target and its options; a shape that is none of the above throws a `TypeError`. */
export function serverConnect(name: string, entry: ServerEntry, shared: TaskClientOptions): ServerConnect {
  if (typeof entry === "string" || entry instanceof URL) return { target: entry, options: { ...shared } };
  if (typeof entry !== "object" || entry === null) {
    throw new TypeError(`TaskHost: server ${JSON.stringify(name)} must be a URL, a command or an object`);
  }
  if (isTransport(entry)) return { target: entry, options: withoutHttp(shared) };
  if ("url" in entry && entry.url !== undefined) {
    const { url, ...own } = entry;
    return { target: url, options: { ...shared, ...own } };
  }
  if ("command" in entry && typeof entry.command === "string") {
    const own: Record<string, unknown> = { ...entry };
    const target: Record<string, unknown> = {};
    for (const key of STDIO_KEYS) {
      if (own[key] !== undefined) target[key] = own[key];
      delete own[key];
    }
    return { target: target as unknown as StdioTarget, options: { ...withoutHttp(shared), ...own } };
  }
  throw new TypeError(
    `TaskHost: server ${JSON.stringify(name)} needs a \`url\`, a \`command\`, or to be an MCP transport`,
  );
}
