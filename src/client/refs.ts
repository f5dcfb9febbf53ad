/**
 * Owner of the refs a client makes and takes: what this server is in a ref (`server`), the ref of a task with
 * the era and HTTP session it lives in (`make`), which refs a caller may hand this client (`accept`), and which
 * stored refs are this server's (`storedServer`). A ref is matched to its server by identity only
 * (`serverIdentity`, decision 12): a connection without one follows no stored ref, and says so once.
 */
import type { Logger } from "../protocol/logging.js";
import type { ServerInfo } from "../session/types.js";
import {
  TaskRefError,
  foreignServer,
  isSessionField,
  readTaskRef,
  serverIdentity,
  type TaskRef,
  type HttpSession,
} from "../task/ref.js";
import { checkTaskArgument } from "./options.js";

export class ClientRefs {
  /** The HTTP session this client's 2025-era tasks are created in, as their refs record it. */
  readonly ownHttpSession: HttpSession | undefined;
  /** Whether the warning that this connection has no identity for stored refs was given. */
  private saidNoIdentity = false;

  constructor(
    private readonly info: ServerInfo,
    private readonly url: string | undefined,
    /** The connection's HTTP session id, if the server gave one. */
    sessionId: string | undefined,
    private readonly log: Logger,
  ) {
    // 2026-07-28 has no sessions; a 2025-era session id that could not be sent back is not recorded.
    this.ownHttpSession =
      info.era === "legacy" && isSessionField(sessionId)
        ? { id: sessionId, protocolVersion: info.protocolVersion }
        : undefined;
  }

  /** This server as a ref names it. */
  server(): TaskRef["server"] {
    const info = this.info.serverInfo;
    const server: TaskRef["server"] = { protocolVersion: this.info.protocolVersion };
    if (this.url !== undefined) server.url = this.url;
    if (info?.name !== undefined) server.name = info.name;
    if (info?.version !== undefined) server.version = info.version;
    return server;
  }

  /** A task's ref: the fields the run knows, this server, and the era and HTTP session the task lives in. */
  make(
    fields: Omit<TaskRef, "v" | "server">,
    era: NonNullable<TaskRef["era"]>,
    session: HttpSession | undefined,
  ): TaskRef {
    const ref: TaskRef = { v: 1, server: this.server(), era, ...fields };
    if (session !== undefined) ref.session = session;
    return ref;
  }

  /**
   * What a caller handed `task()` or `cancel()`: a bare task id, or a ref read field by field. A ref of a task on
   * another server is refused with `TaskRefError`.
   */
  accept(task: TaskRef | string, caller: string): Partial<TaskRef> & { taskId: string } {
    checkTaskArgument(task, caller);
    if (typeof task === "string") return { taskId: task };
    const ref = readTaskRef(task);
    const problem = foreignServer(ref, this.server());
    if (problem !== undefined) throw new TaskRefError(`${caller}: ${problem}`);
    return ref;
  }

  /**
   * This server as stored refs are matched to it, or undefined when the connection has no identity (no URL, and
   * no `serverInfo` name): it cannot be told from any other server, so `resume()` and adoption hand it no stored
   * ref, and say so once.
   */
  storedServer(): TaskRef["server"] | undefined {
    const server = this.server();
    if (serverIdentity(server) !== undefined) return server;
    if (!this.saidNoIdentity) {
      this.saidNoIdentity = true;
      this.log.warn("no URL and no serverInfo to match stored refs by: resume() and adoption follow none");
    }
    return undefined;
  }
}
