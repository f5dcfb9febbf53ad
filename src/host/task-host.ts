/**
 * `TaskHost`: one `TaskClient` per MCP server, behind one object (the MCP "host" role). Owns each server's state,
 * the routing of qualified tool names to their server, and the host's close. Everything about a single
 * connection (tasks, polling, input, the store) stays the client's own.
 */
import type { EventEmitter } from "eventemitter3";
import { Emitter } from "../task/emitter.js";
import { nonNegative } from "../client/options.js";
import {
  TaskEndedError,
  TaskClient,
  TransportError,
  type CallToolOptions,
  type CallToolResult,
  type Logger,
  type TaskClientOptions,
  type TaskHandle,
  type TaskRef,
  type ToolInfo,
} from "mcp-tasks";
import type { TaskStore } from "mcp-tasks/store";
import { safeLogger } from "../protocol/logging.js";
import { HOST_HOOKS, type HostHooks } from "../client/host-hooks.js";
import { FairPollScheduler, fairShare, type PollShare } from "../scheduler/fair-scheduler.js";
import { defaultToolName, nameTools, type ToolAddress, type ToolNamer } from "./naming.js";
import { serverConnect, type ServerConnect, type ServerEntry } from "./servers.js";
import { parseConfig, parseConfigText } from "./config.js";
import {
  hostIdentity,
  hostedServerOf,
  hostedStore,
  targetIdentity,
  type HostedServer,
} from "./hosted-store.js";
import { Reconnects, reconnectTiming, type ReconnectOptions } from "./reconnect.js";

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
export interface TaskHostOptions extends Omit<TaskClientOptions, "store" | "maxInFlight"> {
  /** The servers by name: a URL, a stdio command, an MCP transport, or `{ url | command, …own options }`. */
  servers: Record<string, ServerEntry>;
  /**
   * Replaces the naming rule of qualified tool names (default `server__tool`, characters outside
   * `[a-zA-Z0-9_-]` replaced by `_`, cut to 64 with a hash). What it returns must match `^[a-zA-Z0-9_-]{1,64}$`.
   */
  toolName?: ToolNamer;
  /** How long `close()` waits for the servers' clients to close, in milliseconds. Default 10000. */
  closeTimeoutMs?: number;
  /**
   * Most `tasks/get` requests in flight at once across every server. Each of the n servers may have at most
   * `floor(maxInFlight / n)` of them out (its share; a server's own `maxInFlight` may only lower it), so a
   * server that stops answering holds its share and no more. Default 64 × n (each server the share a
   * `TaskClient` has on its own). Less than n is a `RangeError`.
   */
  maxInFlight?: number;
  /**
   * One store for every server that has none of its own: each server's refs are filed under its config name and
   * its URL (or its command and arguments), so a ref resumes only on the server it was made on. The host opens it
   * once at `connect` and closes it once at `close()`. See `resume()`.
   */
  store?: TaskStore;
  /**
   * Connecting again a server that failed to connect or whose connection dropped, in the background: bounded
   * attempts with jittered exponential backoff. A dropped server's handles wait and go on once it is back (its
   * polls held meanwhile); when the attempts run out, or with `false`, its client is closed and they end `closed`. Default `{ retries: 10, minTimeoutMs: 1000, maxTimeoutMs: 30000,
   * factor: 2 }`; `false` turns it off. `close()` stops it.
   */
  reconnect?: ReconnectOptions;
}

/**
 * Events of a `TaskHost`: eventemitter3's listener types, kept and called by ../task/emitter.ts as the client's are
 * (an `error` without listeners is not thrown).
 */
export interface TaskHostEvents {
  /** A server's state changed. */
  server: (status: ServerStatus) => void;
  /** A fault of one server's client no handle owns (its `error` event), or a refresh of its tools that failed. */
  error: (server: string, error: unknown) => void;
  /** A server's tools changed (`notifications/tools/list_changed`); `listTools()` has its new ones. */
  tools: (server: string) => void;
  /**
   * Stored tasks of a server were picked up with new handles: after `resume()`, by a server that was down then.
   * (A server whose connection dropped and was opened again keeps its handles: no event.)
   */
  resumed: (server: string, tasks: HostTask[]) => void;
}

type HostListener<E extends keyof TaskHostEvents> = EventEmitter.EventListener<TaskHostEvents, E>;

/** A stored ref `resume()` left alone, and why: it is kept in the store, never dropped or followed elsewhere. */
export interface KeptRef {
  ref: TaskRef;
  /** The config name it was filed under; undefined for a ref no host wrote. */
  server: string | undefined;
  /**
   * `"not-configured"`: no server of the host has its config name and its URL or command (the server left the
   * config, or changed); `"not-ready"`: its server is not connected now (it is resumed when it comes back);
   * `"not-a-host-ref"`: written by a client, not a host.
   */
  reason: "not-configured" | "not-ready" | "not-a-host-ref";
}

/** What `host.resume()` did. */
export interface HostResume {
  /** A handle for each unfinished stored task of every ready server, with its server. */
  tasks: HostTask[];
  /** Stored refs it did not follow, each with why (also told to the `logger`). */
  kept: KeptRef[];
}

const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;
/** A server's share of the host's in-flight limit by default: what a `TaskClient` has on its own. */
const DEFAULT_SHARE = 64;

interface Member {
  status: ServerStatus;
  client?: TaskClient;
  /** How to connect it: its target, and its options (the host's shared ones overridden by its own). */
  plan: ServerConnect;
  /** Its share of the host's in-flight limit, kept across reconnects. */
  share: PollShare;
  /** Its identity in the shared store. */
  hosted: HostedServer;
  /** Its tools as last listed; undefined before its first listing. */
  tools?: ToolInfo[];
  /**
   * Set while its client's connection is down and may be opened again (Decision 22): one attempt at it. Its
   * handles wait meanwhile, and go on once it is back.
   */
  reopen?: (() => Promise<void>) | undefined;
}

/**
 * Many MCP servers, one object: `TaskHost.connect({ servers: { name: target, … } })` connects to every server
 * at once (one `TaskClient` each, all polling on one fair scheduler and, with `store`, sharing one store); a
 * server that fails to connect is `"failed"`, does not fail the others, and is connected again in the
 * background. `listTools()` names every server's tools `server__tool`; `callTool(qualifiedName, …)` routes the
 * call to its server and returns that client's `TaskHandle`.
 */
export class TaskHost {
  /** Emission stays inside the host: callers listen through `on`, `once` and `off`. */
  private readonly events = new Emitter<TaskHostEvents>();
  private readonly emitEvent: Emitter<TaskHostEvents>["emit"] = this.events.emit.bind(this.events);
  private readonly members = new Map<string, Member>();
  private readonly namer: ToolNamer;
  private readonly log: Logger;
  private readonly closeTimeoutMs: number;
  private readonly polls = new FairPollScheduler();
  private readonly store: TaskStore | undefined;
  private readonly reconnects: Reconnects | undefined;
  /** Qualified name → its server and tool, as of the last tool listing. */
  private index = new Map<string, ToolAddress>();
  private closing: Promise<void> | undefined;
  /** Set once `connect` listed the first tools: from then on a server that joins names its tools itself. */
  private listening = false;
  /** Set by `resume()`: a server that comes back later resumes its stored tasks with these options. */
  private resumeOptions: Omit<CallToolOptions, "meta"> | undefined;

  private constructor(plans: (readonly [string, ServerConnect])[], options: TaskHostOptions) {
    this.namer = options.toolName ?? defaultToolName;
    this.log = safeLogger(options.logger);
    this.closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    this.store = options.store;
    const share = fairShare(options.maxInFlight ?? DEFAULT_SHARE * plans.length, plans.length);
    const timing = reconnectTiming(options.reconnect);
    if (timing !== undefined) {
      this.reconnects = new Reconnects({
        timing,
        connect: (name) => this.attempt(name),
        retrying: (name, attempt, delayMs) =>
          this.log.debug(
            `TaskHost: connecting server ${JSON.stringify(name)} again in ${delayMs} ms (attempt ${attempt})`,
          ),
        gaveUp: (name, error, attempts) => {
          this.log.error(
            `TaskHost: server ${JSON.stringify(name)} is still down after ${attempts} attempts`,
            error,
          );
          this.giveUp(name);
        },
      });
    }
    for (const [name, plan] of plans) {
      const own = plan.options.maxInFlight;
      const size = typeof own === "number" && own >= 1 ? Math.min(Math.floor(own), share) : share;
      this.members.set(name, {
        status: { name, state: "connecting" },
        plan,
        share: this.polls.share(size),
        hosted: { name, target: targetIdentity(plan.target) },
      });
    }
  }

  /**
   * Connects to every server at once. Resolves when each one is ready or failed (a failed server's tools reject
   * their calls at once with a `TransportError` naming it, and it is connected again in the background), with
   * every ready server's tools listed. Rejects only for the caller's mistakes: a malformed entry or option, a
   * `store` that cannot be opened, or two tools that map to one qualified name (after closing what it opened).
   */
  static async connect(options: TaskHostOptions): Promise<TaskHost> {
    const { servers } = checkHostOptions(options);
    const shared = sharedOptions(options);
    const plans = Object.entries(servers).map(
      ([name, entry]) => [name, serverConnect(name, entry, shared)] as const,
    );
    const host = new TaskHost(plans, options);
    await options.store?.open?.(); // a store another process holds fails here, before any connection is made
    await Promise.all(plans.map(([name]) => host.start(name).catch(() => undefined)));
    try {
      await host.listTools();
    } catch (error) {
      await host.close();
      throw error;
    }
    host.listening = true;
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

  /** Listens to one of the host's events (see `TaskHostEvents`). */
  on<E extends keyof TaskHostEvents>(event: E, listener: HostListener<E>): this {
    this.events.on(event, listener);
    return this;
  }

  /** Listens to the next occurrence of an event only. */
  once<E extends keyof TaskHostEvents>(event: E, listener: HostListener<E>): this {
    this.events.once(event, listener);
    return this;
  }

  /** Removes a listener, or every listener of `event` when none is given. */
  off<E extends keyof TaskHostEvents>(event: E, listener?: HostListener<E>): this {
    this.events.off(event, listener);
    return this;
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
    const listed = await Promise.all(ready.map((member) => this.listed(member)));
    const index = this.indexOf(ready.map((member, i) => ({ member, tools: listed[i] ?? [] })));
    this.index = index;
    return this.hostTools(index, ready);
  }

  /**
   * Calls a tool by its qualified name on its server: the same handle `TaskClient.callTool` returns. A name of
   * a server that is not ready throws at once a `TransportError` naming the server (its `cause` is the server's
   * error); a name no server has throws a `TypeError`. Names are as of the last `listTools()` (or `connect`, or
   * a server's `tools/list_changed`).
   */
  callTool(
    qualifiedName: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): TaskHandle<CallToolResult> {
    if (this.closing !== undefined) throw new TaskEndedError("closed", undefined);
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
   * Picks up every unfinished stored task of every ready server, each on the server it was made on (its config
   * name and its URL or command, never its place in the config). A server with a store of its own resumes from
   * it. With the shared `store`, a ref whose server is not in the config (it left, or its URL or command
   * changed) is kept in the store and reported, never followed elsewhere; so is one of a server that is down
   * now, which resumes by itself when the server is back. Needs a store (shared or per server); else an
   * `McpTasksError` from the client, per server, is logged and nothing is resumed there.
   */
  async resume(options: Omit<CallToolOptions, "meta"> = {}): Promise<HostResume> {
    if (this.closing !== undefined) throw new TaskEndedError("closed", undefined);
    this.resumeOptions = options;
    const ready = [...this.members.values()].filter((member) => member.status.state === "ready");
    const resumed = await Promise.all(ready.map((member) => this.resumeOn(member, options)));
    const kept = await this.keptRefs();
    for (const { ref, server, reason } of kept) {
      this.log.warn(
        `TaskHost: a stored task of server ${JSON.stringify(server ?? "(none)")} is kept, not resumed: ${reason}`,
        {
          toolName: ref.toolName,
        },
      );
    }
    return { tasks: resumed.flat(), kept };
  }

  /**
   * Closes every server's client at once (each ends its handles and its session), stops reconnecting, then
   * closes the shared store; resolves when all have, or after `closeTimeoutMs` at the latest (what is still
   * closing then is logged and left to finish). Never rejects.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.reconnects?.close();
      const pending = new Set(this.members.keys());
      const closes = [...this.members.values()].map(async ({ status, client }) => {
        try {
          if (client !== undefined) await client.close();
        } finally {
          pending.delete(status.name);
          this.update(status.name, { state: "closed" });
        }
      });
      const all = Promise.allSettled(closes).then(async (settled) => {
        this.polls.close();
        await this.store?.close?.();
        return settled;
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), this.closeTimeoutMs);
      });
      const settled = await Promise.race([
        all.catch((error: unknown) => [{ status: "rejected", reason: error }] as const),
        timeout,
      ]);
      clearTimeout(timer);
      if (settled === "timeout") {
        const late = [...pending];
        const what = late.length > 0 ? `servers ${late.join(", ")}` : "the store";
        this.log.warn(`TaskHost: closing ${what} took over ${this.closeTimeoutMs} ms`);
      } else {
        for (const result of settled) {
          if (result.status === "rejected")
            this.log.warn("TaskHost: a server's client or the store failed to close", result.reason);
        }
      }
    })();
    return this.closing;
  }

  /** `await using host = await TaskHost.connect(…)` closes the host when the scope ends. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** One attempt to connect a server: ready, or failed (and retried in the background) and rejects. */
  private async start(name: string): Promise<void> {
    const member = this.members.get(name) as Member;
    let client: TaskClient;
    try {
      client = await TaskClient.connect(member.plan.target, this.clientOptions(member));
    } catch (error) {
      if (this.closing !== undefined) throw error;
      this.log.warn(`TaskHost: server ${JSON.stringify(name)} failed to connect`, error);
      this.update(name, { state: "failed", error });
      // A caller's mistake (a bad option) does not mend itself; an MCP transport cannot be opened twice.
      if (!(error instanceof TypeError) && member.hosted.target !== "transport") {
        this.reconnects?.start(name, error);
      }
      throw error;
    }
    // Back after `connect`: its tools are named before it is reported ready.
    if (this.listening && this.closing === undefined) {
      member.client = client;
      await this.listed(member);
    }
    if (this.closing !== undefined) {
      await client.close();
      throw new TaskEndedError("closed", undefined);
    }
    this.joined(member, client);
  }

  /** One attempt of the reconnect loop: the dropped connection opened again, or a new client. */
  private async attempt(name: string): Promise<void> {
    const member = this.members.get(name) as Member;
    const reopen = member.reopen;
    if (reopen === undefined) return this.start(name);
    try {
      await reopen();
    } catch (error) {
      this.log.warn(`TaskHost: server ${JSON.stringify(name)} failed to connect again`, error);
      member.status.error = error;
      throw error;
    }
    if (member.reopen !== reopen || this.closing !== undefined) return;
    member.reopen = undefined;
    member.share.resume();
    // Its tools are named before it is reported ready, as on a first connect.
    await this.listed(member);
    if (member.reopen !== undefined || this.closing !== undefined) return;
    member.status = { name, state: "ready", supportsTasks: member.client?.server.supportsTasks };
    this.reindex(name);
    this.emitEvent("server", { ...member.status });
  }

  /**
   * The connection of a server's client dropped and may be opened again (Decision 22): the server is `"failed"`
   * and the reconnect loop opens it again, under the same client, so its handles go on. Without a reconnect
   * loop, or over an MCP transport, the client is closed, as a client whose connection ended is.
   */
  private lost(member: Member, reopen: () => Promise<void>): void {
    const name = member.status.name;
    // Already down (an attempt's new process exited too): the loop that runs goes on.
    if (this.closing !== undefined || member.reopen !== undefined) return;
    // A transport the caller built cannot be opened twice: the client's close ends it (`dropped`).
    if (this.reconnects === undefined || member.hosted.target === "transport") {
      void member.client?.close();
      return;
    }
    const error = new TransportError(`the connection to server ${JSON.stringify(name)} ended`, {
      transient: true,
    });
    this.log.warn(`TaskHost: ${error.message}; its tasks wait while it is connected again`);
    member.reopen = reopen;
    // Its polls wait in its share's queue, not spent on a dead connection, until it is back.
    member.share.pause();
    this.update(name, { state: "failed", error });
    this.reconnects.start(name, error);
  }

  /** The reconnect loop gave up on a server whose connection dropped: its client is closed, its handles end. */
  private giveUp(name: string): void {
    const member = this.members.get(name) as Member;
    if (member.reopen === undefined) return;
    member.reopen = undefined;
    const client = member.client;
    member.client = undefined;
    // Its share is free again once the old client's polls are dropped.
    const resume = () => member.share.resume();
    if (client === undefined) resume();
    else void client.close().then(resume, resume);
  }

  /** A server's client options: its plan, its share of the polls, its view of the shared store, the hooks. */
  private clientOptions(member: Member): TaskClientOptions {
    const hooks: HostHooks = {
      polls: (onJobError) => member.share.lane(onJobError),
      toolsChanged: () => void this.refreshTools(member),
      dropped: (reopen) => this.lost(member, reopen),
    };
    const options: TaskClientOptions & { [HOST_HOOKS]?: HostHooks } = {
      ...member.plan.options,
      [HOST_HOOKS]: hooks,
    };
    // A malformed own `maxInFlight` is left for the client to refuse, naming it.
    const own = options.maxInFlight;
    const valid = own === undefined || (Number.isInteger(own) && own >= 1);
    if (valid && Number.isFinite(member.share.size)) options.maxInFlight = member.share.size;
    if (options.store === undefined && this.store !== undefined) {
      options.store = hostedStore(this.store, member.hosted);
    }
    return options;
  }

  private joined(member: Member, client: TaskClient): void {
    const name = member.status.name;
    member.client = client;
    client.on("error", (error: unknown) => {
      member.status.error = error;
      this.emitEvent("error", name, error);
    });
    client.on("closed", () => {
      if (member.client !== client || this.closing !== undefined) return;
      void this.dropped(member, client);
    });
    member.status = { name, state: "ready", supportsTasks: client.server.supportsTasks };
    if (this.listening) this.reindex(name);
    this.emitEvent("server", { ...member.status });
    if (this.resumeOptions !== undefined) void this.pickUp(member, this.resumeOptions);
  }

  /**
   * The server's connection ended for good while the host was open (an MCP transport, which cannot be opened
   * twice, or `reconnect: false`): it is `"closed"` with why, and its client is closed (its handles end with
   * `TaskEndedError` of kind `closed`, which carries their task ids). A connection that can be opened again is
   * `lost` instead, and its handles go on.
   */
  private async dropped(member: Member, client: TaskClient): Promise<void> {
    const name = member.status.name;
    const error = new TransportError(`the connection to server ${JSON.stringify(name)} ended`, {
      transient: true,
    });
    this.log.warn(`TaskHost: ${error.message}`);
    member.client = undefined;
    this.update(name, { state: "closed", error });
    await client
      .close()
      .catch((closing: unknown) =>
        this.log.warn(`TaskHost: closing server ${JSON.stringify(name)}'s old client failed`, closing),
      );
  }

  /** A server is back after `resume()` (its first connection, or a new client): its stored tasks are followed. */
  private async pickUp(member: Member, options: Omit<CallToolOptions, "meta">): Promise<void> {
    const tasks = await this.resumeOn(member, options);
    if (tasks.length > 0) this.emitEvent("resumed", member.status.name, tasks);
  }

  /** The stored tasks of one ready server, as handles; a failure is logged and resumes nothing. */
  private async resumeOn(member: Member, options: Omit<CallToolOptions, "meta">): Promise<HostTask[]> {
    const client = member.client;
    if (client === undefined) return [];
    try {
      const handles = await client.resume(options);
      return handles.map((handle) => ({ server: member.status.name, handle }));
    } catch (error) {
      this.log.warn(
        `TaskHost: resuming the tasks of server ${JSON.stringify(member.status.name)} failed`,
        error,
      );
      return [];
    }
  }

  /** The shared store's refs no ready server of the host follows, with why. */
  private async keptRefs(): Promise<KeptRef[]> {
    if (this.store === undefined) return [];
    const byIdentity = new Map<string, Member>();
    for (const member of this.members.values()) {
      if (member.plan.options.store === undefined) byIdentity.set(hostIdentity(member.hosted), member);
    }
    const kept: KeptRef[] = [];
    for (const ref of await this.store.list()) {
      const hosted = hostedServerOf(ref);
      if (hosted === undefined) {
        kept.push({ ref, server: undefined, reason: "not-a-host-ref" });
        continue;
      }
      const member = byIdentity.get(hostIdentity(hosted));
      if (member === undefined) kept.push({ ref, server: hosted.name, reason: "not-configured" });
      else if (member.status.state !== "ready") kept.push({ ref, server: hosted.name, reason: "not-ready" });
    }
    return kept;
  }

  /** Lists one server's tools again after its `tools/list_changed`, and renames what changed. */
  private async refreshTools(member: Member): Promise<void> {
    const name = member.status.name;
    if (member.status.state !== "ready" || this.closing !== undefined) return;
    await this.listed(member);
    if (this.reindex(name)) this.emitEvent("tools", name);
  }

  /**
   * Names the ready servers' tools again after `server`'s changed. A clash keeps the names as they were (the
   * server's new tools are not callable), logged and emitted as `error`; returns whether the names changed.
   */
  private reindex(server: string): boolean {
    const ready = [...this.members.values()].filter((other) => other.status.state === "ready");
    try {
      this.index = this.indexOf(ready.map((other) => ({ member: other, tools: other.tools ?? [] })));
      return true;
    } catch (error) {
      this.log.error(`TaskHost: the tools of server ${JSON.stringify(server)} clash with others`, error);
      this.emitEvent("error", server, error);
      return false;
    }
  }

  /** One server's tools, fetched (the client keeps them until `tools/list_changed`) and kept on the member. */
  private async listed(member: Member): Promise<ToolInfo[]> {
    const client = member.client;
    if (client === undefined) return [];
    try {
      member.tools = await client.listTools();
    } catch (error) {
      this.log.warn(
        `TaskHost: listing the tools of server ${JSON.stringify(member.status.name)} failed`,
        error,
      );
      member.tools = [];
    }
    return member.tools;
  }

  /** The qualified names of the given servers' tools; a clash throws a `TypeError` naming both tools. */
  private indexOf(lists: { member: Member; tools: ToolInfo[] }[]): Map<string, ToolAddress> {
    return nameTools(
      lists.flatMap(({ member, tools }) =>
        tools.map((tool) => ({ server: member.status.name, tool: tool.name })),
      ),
      this.namer,
    );
  }

  private hostTools(index: Map<string, ToolAddress>, ready: Member[]): HostTool[] {
    const names = [...index.keys()];
    const tools = ready.flatMap((member) =>
      (member.tools ?? []).map((tool) => ({ server: member.status.name, tool })),
    );
    return tools.map(({ server, tool }, i) => ({ ...tool, server, qualifiedName: names[i] as string }));
  }

  /** Changes a server's status and emits `server` when its state changed. */
  private update(name: string, change: Partial<ServerStatus>): void {
    const member = this.members.get(name) as Member;
    const next = { ...member.status, ...change };
    const changed = next.state !== member.status.state;
    member.status = next;
    if (changed) this.emitEvent("server", { ...next });
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

/** The options every server shares: the host's, less what belongs to the host itself. */
function sharedOptions(options: TaskHostOptions): TaskClientOptions {
  const shared: Record<string, unknown> = { ...options };
  for (const key of ["servers", "toolName", "closeTimeoutMs", "maxInFlight", "store", "reconnect"]) {
    delete shared[key];
  }
  return shared as TaskClientOptions;
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
  const store: unknown = options.store;
  if (store !== undefined && !isStore(store)) {
    throw new TypeError("TaskHost.connect: `store` must be a TaskStore (put, remove and list)");
  }
  nonNegative("TaskHost.connect", "closeTimeoutMs", closeTimeoutMs, undefined);
  return options;
}

function isStore(value: unknown): value is TaskStore {
  const store = value as Partial<Record<keyof TaskStore, unknown>> | null;
  return (
    typeof store === "object" &&
    store !== null &&
    typeof store.put === "function" &&
    typeof store.remove === "function" &&
    typeof store.list === "function"
  );
}
