/**
 * mcp-tasks: a client for the MCP Tasks extension (`io.modelcontextprotocol/tasks`, protocol 2026-07-28).
 * Call a tool, get a handle: await it, iterate its status updates, listen to its events, cancel it.
 *
 * @module mcp-tasks
 */
export { TaskClient, type TaskClientEvents } from "./client/task-client.js";
export type { Logger } from "./protocol/logging.js";
export { TaskRefError, readTaskRef, type TaskRef, type HttpSession } from "./task/ref.js";
export type { TaskClientOptions, CallToolOptions } from "./client/options.js";
export type {
  ToolArguments,
  ToolName,
  ToolResult,
  ToolResultOf,
  ToolType,
  ToolTypes,
} from "./client/typed-tools.js";
export { TaskHandle } from "./task/handle.js";
export type {
  TaskUpdate,
  TaskOutcome,
  CancelResult,
  TaskDescription,
  TaskHandleEvents,
  InputRequestEvent,
  RetryEvent,
  UnansweredInputAction,
} from "./task/types.js";
export type { InputHandlers, InputContext, InputUnansweredEvent } from "./input/types.js";
export { InputRespondError, type InputRespondProblem } from "./protocol/errors.js";
export type { PollTiming, RetryTiming } from "./scheduler/types.js";
export type { ConnectTarget, StdioTarget } from "./session/targets.js";
export type { ServerInfo, ProtocolEra } from "./session/types.js";
export { tasksFor } from "./adapters/sdk-client.js";
// Many servers behind one object: a small class here, the host's code loaded on its first `connect` (Decision 19).
export { TaskHost } from "./host/task-host-class.js";
// The errors, by what the caller does (docs/errors.md): retry, re-authorize, fix the call, the task ended other than
// with its result, the store failed, the server broke the protocol.
export {
  McpTasksError,
  TransportError,
  AuthError,
  type AuthFailure,
  RpcError,
  MissingCapabilityError,
  TaskError,
  TaskFailedError,
  TaskCancelledError,
  TaskEndedError,
  InputUnansweredError,
  OutputSchemaError,
  TaskStoreError,
  ProtocolError,
} from "./protocol/errors.js";
export type { ConnectionHeaders } from "./auth/headers.js";
export type { ConnectionTelemetry } from "./telemetry/connection-telemetry.js";
export type { ConnectionAuth } from "./auth/connection-auth.js";
export { UnsupportedError } from "./protocol/errors.js";
export type { TaskSupport } from "./tools/catalog.js";
export type { ToolInfo } from "./tools/catalog.js";
export type { LegacyTasksMode } from "./eras/dialect.js";
export type {
  CallToolResult,
  DetailedTask,
  Task,
  TaskStatus,
  InputRequests,
  InputResponse,
} from "./schema/index.js";
