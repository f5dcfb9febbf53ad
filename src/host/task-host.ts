/**
 * `TaskHost`: one `TaskClient` per MCP server, behind one object (the MCP "host" role). Owns each server's state,
 * the routing of qualified tool names to their server, and the host's close. Everything about a single
 * connection (tasks, polling, input, the store) stays the client's own.
 */
import { EventEmitter } from "eventemitter3";
import { nonNegative } from "../client/options.js";
import {
  ClientClosedError,
  TaskClient,
  TransportError,
  type CallToolOptions,
  type CallToolResult,
  type Logger,
  type TaskClientOptions,
  type TaskHandle,
  type ToolInfo,
} from "mcp-tasks";
import { safeLogger } from "../protocol/logging.js";
import { defaultToolName, nameTools, type ToolAddress, type ToolNamer } from "./naming.js";
import { serverConnect, type ServerEntry } from "./servers.js";
import { parseConfig, parseConfigText } from "./config.js";

/** Where a server of the host stands. */
export type ServerState = "connecting" | "ready" | "failed" | "closed";

/** One server of the host, as `host.servers` reports it. */
export interface ServerStatus {
  /** Its name in the host's `servers`. */
  name: string;
  state: ServerState;
  /** Why it failed or closed, when it did. */
  error?: unknown;
  /** Whether it serves tasks (known once it is ready). */
  supportsTasks?: boolean;
}

/** A tool of one of the host's servers. */
export interface HostTool extends ToolInfo {
  /** The server's name in the host's `servers`. */
  server: string;
  /** The name `host.callTool` takes: `server__tool` unless `toolName` says otherwise. */
  qualifiedName: string;
}

/** A live handle of the host, with the server its task runs on. */
export interface HostTask {
  server: string;
  handle: TaskHandle<CallToolResult>;
}

/** Options of `TaskHost.connect`: the servers, and `TaskClient` options every server shares unless it sets its own. */
export interface TaskHostOptions extends Omit<TaskClientOptions, "store"> {
  /** The servers by name: a URL, a stdio command, an MCP transport, or `{ url | command, …own options }`. */
  servers: Record<string, ServerEntry>;
  /**
   * Replaces the naming rule of qualified tool names (default `server__tool`, characters outside
   * `[a-zA-Z0-9_-]` replaced by `_`, cut to 64 with a hash). What it returns must match `^[a-zA-Z0-9_-]{1,64}$`.
   */
  toolName?: ToolNamer;
  /** How long `close()` waits for the servers' clients to close, in milliseconds. Default 10000. */
  closeTimeoutMs?: number;
}

/** Events of a `TaskHost` (eventemitter3; an `error` without listeners is not thrown). */
export interface TaskHostEvents {
  /** A server's state changed. */
  server: (status: ServerStatus) => void;
  /** A fault of one server's client no handle owns (its `error` event). */
  error: (server: string, error: unknown) => void;
}

const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

interface Member {
  status: ServerStatus;
  client?: TaskClient;
}

/**
 * Many MCP servers, one object: `TaskHost.connect({ servers: { name: target, … } })` connects to every server
 * at once (one `TaskClient` each); a server that fails to connect is `"failed"` and does not fail the others.
 * `listTools()` names every server's tools `server__tool`; `callTool(qualifiedName, …)` routes the call to its
 * server and returns that client's `TaskHandle`.
 */
export class TaskHost extends EventEmitter<TaskHostEvents> {
  private readonly members = new Map<string, Member>();
  private readonly namer: ToolNamer;
  private readonly log: Logger;
  private readonly closeTimeoutMs: number;
  /** Qualified name → its server and tool, as of the last tool listing. */
  private index = new Map<string, ToolAddress>();
  private closing: Promise<void> | undefined;

  private constructor(names: string[], options: TaskHostOptions) {
    super();
    this.namer = options.toolName ?? defaultToolName;
    this.log = safeLogger(options.logger);
    this.closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    for (const name of names) this.members.set(name, { status: { name, state: "connecting" } });
  }

  /**
   * Connects to every server at once. Resolves when each one is ready or failed (a failed server's tools reject
   * their calls at once with a `TransportError` naming it), with every ready server's tools listed. Rejects only
   * for the caller's mistakes: a malformed entry or option, or two tools that map to one qualified name (after
   * closing what it opened).
   */
  static async connect(options: TaskHostOptions): Promise<TaskHost> {
    const {
      servers,
      toolName: _toolName,
      closeTimeoutMs: _closeTimeoutMs,
      ...shared
    } = checkHostOptions(options);
    const connects = Object.entries(servers).map(
      ([name, entry]) => [name, serverConnect(name, entry, shared)] as const,
    );
    const host = new TaskHost(
      connects.map(([name]) => name),
      options,
    );
    await Promise.all(
      connects.map(async ([name, { target, options: own }]) => {
        try {
          host.joined(name, await TaskClient.connect(target, own));
        } catch (error) {
          host.log.warn(`TaskHost: server ${JSON.stringify(name)} failed to connect`, error);
          host.update(name, { state: "failed", error });
        }
      }),
    );
    try {
      await host.listTools();
    } catch (error) {
      await host.close();
      throw error;
    }
    return host;
  }

  /**
   * Connects to the servers of a config file users already have: Claude Desktop, Claude Code or Cursor
   * (`{ "mcpServers": { name: { command, args, env } | { url, headers } } }`) or VS Code (`{ "servers": { name:
   * { type: "stdio" | "http" | "sse", … } } }`), by path (Node only) or as the parsed object. Servers with
   * `disabled: true` are skipped; `${env:NAME}` is expanded from the environment; a field it does not read is
   * reported once through the `logger`; a malformed file, an unset variable or a VS Code `${input:…}` (inputs are
   * not supported) rejects with a `TypeError` naming the file and the field. `options` are the shared options of
   * `connect`.
   */
  static async fromConfig(
    config: string | object,
    options: Omit<TaskHostOptions, "servers"> = {},
  ): Promise<TaskHost> {
    const log = safeLogger(options.logger);
    const name = typeof config === "string" ? config : "the config object";
    const source = { name, env: environment(), warn: (message: string) => log.warn(message) };
    const servers =
      typeof config === "string"
        ? parseConfigText(await readConfigFile(config), source)
        : parseConfig(config, source);
    if (Object.keys(servers).length === 0) throw new TypeError(`${name}: no server is enabled`);
    return TaskHost.connect({ ...options, servers });
  }

  /** Each server's state, in the order of `servers`. */
  get servers(): ServerStatus[] {
    return [...this.members.values()].map((member) => ({ ...member.status }));
  }

  /** The `TaskClient` of one server; undefined while it is not ready. An unknown name throws a `TypeError`. */
  client(name: string): TaskClient | undefined {
    const member = this.members.get(name);
    if (member === undefined) throw new TypeError(`TaskHost: no server named ${JSON.stringify(name)}`);
    return member.status.state === "ready" ? member.client : undefined;
  }

  /**
   * Every ready server's tools, each with its `server` and `qualifiedName`. Two tools that map to one qualified
   * name reject with a `TypeError` naming both. A server whose listing fails is left out, with a logger warning.
   */
  async listTools(): Promise<HostTool[]> {
    const ready = [...this.members.values()].filter((member) => member.status.state === "ready");
    const listed = await Promise.all(
      ready.map(async ({ status, client }) => {
        try {
          return (await (client as TaskClient).listTools()).map((tool) => ({ server: status.name, tool }));
        } catch (error) {
          this.log.warn(`TaskHost: listing the tools of server ${JSON.stringify(status.name)} failed`, error);
          return [];
        }
      }),
    );
    const tools = listed.flat();
    const index = nameTools(
      tools.map(({ server, tool }) => ({ server, tool: tool.name })),
      this.namer,
    );
    this.index = index;
    const names = [...index.keys()];
    return tools.map(({ server, tool }, i) => ({ ...tool, server, qualifiedName: names[i] as string }));
  }

  /**
   * Calls a tool by its qualified name on its server: the same handle `TaskClient.callTool` returns. A name of
   * a server that is not ready throws at once a `TransportError` naming the server (its `cause` is the server's
   * error); a name no server has throws a `TypeError`. Names are as of the last `listTools()` (or `connect`).
   */
  callTool(
    qualifiedName: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): TaskHandle<CallToolResult> {
    if (this.closing !== undefined) throw new ClientClosedError(undefined);
    const address = this.index.get(qualifiedName);
    if (address === undefined) {
      const down = this.downServerOf(qualifiedName);
      if (down !== undefined) throw unavailable(down);
      throw new TypeError(`TaskHost: no server has a tool named ${JSON.stringify(qualifiedName)}`);
    }
    const member = this.members.get(address.server) as Member;
    if (member.status.state !== "ready" || member.client === undefined) throw unavailable(member.status);
    return member.client.callTool(address.tool, args, options) as TaskHandle<CallToolResult>;
  }

  /** Every handle still waiting, of every server, with its server. */
  tasks(): HostTask[] {
    return [...this.members.values()].flatMap(({ status, client }) =>
      client === undefined ? [] : client.tasks().map((handle) => ({ server: status.name, handle })),
    );
  }

  /**
   * Closes every server's client at once (each ends its handles, its session and its store) and resolves when
   * all have, or after `closeTimeoutMs` at the latest (a client still closing then is logged and left to finish).
   * Never rejects.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const pending = new Set(this.members.keys());
      const closes = [...this.members.values()].map(async ({ status, client }) => {
        try {
          if (client !== undefined) await client.close();
        } finally {
          pending.delete(status.name);
          this.update(status.name, { state: "closed" });
        }
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), this.closeTimeoutMs);
      });
      const settled = await Promise.race([Promise.allSettled(closes), timeout]);
      clearTimeout(timer);
      if (settled === "timeout") {
        const late = [...pending];
        this.log.warn(`TaskHost: closing servers ${late.join(", ")} took over ${this.closeTimeoutMs} ms`);
      } else {
        for (const result of settled) {
          if (result.status === "rejected")
            this.log.warn("TaskHost: a server's client failed to close", result.reason);
        }
      }
    })();
    return this.closing;
  }

  /** `await using host = await TaskHost.connect(…)` closes the host when the scope ends. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private joined(name: string, client: TaskClient): void {
    const member = this.members.get(name) as Member;
    member.client = client;
    client.on("error", (error: unknown) => {
      member.status.error = error;
      this.emit("error", name, error);
    });
    client.on("closed", () => {
      if (member.status.state === "ready") this.update(name, { state: "closed" });
    });
    this.update(name, { state: "ready", supportsTasks: client.server.supportsTasks });
  }

  private update(name: string, change: Partial<ServerStatus>): void {
    const member = this.members.get(name) as Member;
    const next = { ...member.status, ...change };
    const changed = next.state !== member.status.state;
    member.status = next;
    if (changed) this.emit("server", { ...next });
  }

  /**
   * The server a qualified name belongs to under the default rule (`server__…`), if that server is not ready.
   * A custom `toolName` rule cannot be read backwards: its names of a server that is down are unknown names.
   */
  private downServerOf(qualifiedName: string): ServerStatus | undefined {
    if (this.namer !== defaultToolName) return undefined;
    for (const { status } of this.members.values()) {
      if (status.state !== "ready" && qualifiedName.startsWith(defaultToolName(status.name, "")))
        return status;
    }
    return undefined;
  }
}

/** The process environment where there is one (Node, Bun, Deno with permission); empty elsewhere. */
function environment(): Record<string, string | undefined> {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env ?? {};
}

/**
 * Reads a config file. `node:fs` is imported by a name bundlers do not follow, so the entry still bundles for
 * browsers, where a path is refused (pass the parsed object there).
 */
async function readConfigFile(path: string): Promise<string> {
  const specifier = "node:fs/promises";
  let fs: { readFile(path: string, encoding: "utf8"): Promise<string> };
  try {
    fs = (await import(/* @vite-ignore */ specifier)) as typeof fs;
  } catch {
    throw new TypeError(
      `TaskHost.fromConfig: reading ${path} needs Node's file system; pass the parsed config`,
    );
  }
  try {
    return await fs.readFile(path, "utf8");
  } catch (error) {
    throw new TypeError(`TaskHost.fromConfig: cannot read ${path} (${(error as Error).message})`, {
      cause: error,
    });
  }
}

function unavailable(status: ServerStatus): TransportError {
  return new TransportError(`server ${JSON.stringify(status.name)} is ${status.state}`, {
    transient: false,
    cause: status.error,
  });
}

function checkHostOptions(options: TaskHostOptions): TaskHostOptions {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("TaskHost.connect: options must be an object with `servers`");
  }
  const { servers, toolName, closeTimeoutMs } = options;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    throw new TypeError("TaskHost.connect: `servers` must be an object of server names to targets");
  }
  if (Object.keys(servers).length === 0) throw new TypeError("TaskHost.connect: `servers` is empty");
  for (const name of Object.keys(servers)) {
    if (name.length === 0) throw new TypeError("TaskHost.connect: a server name is empty");
  }
  if (toolName !== undefined && typeof toolName !== "function") {
    throw new TypeError("TaskHost.connect: `toolName` must be a function (server, tool) => name");
  }
  nonNegative("TaskHost.connect", "closeTimeoutMs", closeTimeoutMs, undefined);
  if ("store" in options && options.store !== undefined) {
    throw new TypeError(
      "TaskHost.connect: a shared `store` is not supported yet; give each server its own (`{ url, store }`)",
    );
  }
  return options;
}
