/**
 * `mcp-tasks/host`: `TaskHost`, many MCP servers behind one object, and its types. The class is the main entry's
 * (which loads the host's code on first use); this entry adds the types and the default tool namer.
 *
 * @module mcp-tasks/host
 */
// The main entry's class, which loads the host's code on first use: one class under both names.
export { TaskHost } from "mcp-tasks";
export type {
  TaskHostOptions,
  TaskHostEvents,
  ServerState,
  ServerStatus,
  HostTool,
  HostTask,
  HostResume,
  KeptRef,
} from "./task-host.js";
export type { ReconnectOptions } from "./reconnect.js";
export type { ServerEntry, UrlServer, StdioServer } from "./servers.js";
export { defaultToolName, type ToolNamer } from "./naming.js";
