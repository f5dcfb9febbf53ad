/**
 * The `TaskHost` class the main entry exports (and `mcp-tasks/host` re-exports): a small class whose `connect` and
 * `fromConfig` load the host's code on first use and return the real host, so a page that imports `TaskClient`
 * alone loads none of it (docs/architecture.md, Decision 19). Owns only that loading and `instanceof`; the host
 * itself is src/host/task-host.ts.
 */
import { TaskClient } from "../client/task-client.js";
import { TaskEndedError, TransportError } from "../protocol/errors.js";
import type { TaskHost as LoadedTaskHost, TaskHostOptions } from "./task-host.js";

type Loaded = typeof import("./loaded.js");

let loading: Promise<Loaded> | undefined;
let loadedClass: typeof LoadedTaskHost | undefined;

/**
 * Loads the host's code once and hands it the core it runs on: its build never imports the main entry back, so a
 * bundler keeps one copy of the core and no import cycle (which would wrap the whole core in lazy-init code).
 */
function load(): Promise<Loaded> {
  loading ??= import("./loaded.js").then((loaded) => {
    loaded.provideCore({ TaskClient, TaskEndedError, TransportError });
    loadedClass = loaded.TaskHost;
    return loaded;
  });
  return loading;
}

/** `TaskHost`, many MCP servers behind one object: see `mcp-tasks/host` and docs/many-servers.md. */
class TaskHostClass {
  private constructor() {}

  /** Connects to every server at once and resolves with the host (its code loads on the first call). */
  static async connect(options: TaskHostOptions): Promise<LoadedTaskHost> {
    return (await load()).TaskHost.connect(options);
  }

  /** Connects to the servers of a Claude Desktop, Claude Code, Cursor or VS Code config (a path or the object). */
  static async fromConfig(
    config: string | object,
    options?: Omit<TaskHostOptions, "servers">,
  ): Promise<LoadedTaskHost> {
    return (await load()).TaskHost.fromConfig(config, options);
  }

  /** `host instanceof TaskHost` holds for every host `connect` or `fromConfig` made. */
  static [Symbol.hasInstance](value: unknown): value is LoadedTaskHost {
    return loadedClass !== undefined && value instanceof loadedClass;
  }
}

/** Many MCP servers behind one object: the host `TaskHost.connect` and `TaskHost.fromConfig` resolve with. */
// An interface rather than an alias, so the API reference lists the host's members under this name.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface TaskHost extends LoadedTaskHost {}
/**
 * Many MCP servers behind one object (docs/many-servers.md): `TaskHost.connect({ servers })` or
 * `TaskHost.fromConfig(pathOrObject, options?)` load the host's code on first use and resolve with the host.
 */
export const TaskHost: typeof TaskHostClass = TaskHostClass;
