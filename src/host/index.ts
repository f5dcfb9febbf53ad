/**
 * `mcp-tasks/host`: `TaskHost`, many MCP servers behind one object, and its types. An entry of its own (it imports
 * the core by the package's name, as the bridges do) so that the main entry's browser bundle does not carry it.
 *
 * @module mcp-tasks/host
 */
export {
  TaskHost,
  type TaskHostOptions,
  type TaskHostEvents,
  type ServerState,
  type ServerStatus,
  type HostTool,
  type HostTask,
  type HostResume,
  type KeptRef,
} from "./task-host.js";
export type { ReconnectOptions } from "./reconnect.js";
export type { ServerEntry, UrlServer, StdioServer } from "./servers.js";
export { defaultToolName, type ToolNamer } from "./naming.js";
