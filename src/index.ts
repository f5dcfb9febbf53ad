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
export type { JsonSchemaValidator } from "./tools/json-schema.js";
export type {
  CallToolRest,
  RefResultOf,
  ToolArguments,
  ToolName,
  ToolResult,
  ToolResultOf,
  ToolType,
  ToolTypes,
  UntypedTools,
} from "./client/typed-tools.js";
export type { TaskStore } from "./store/types.js";
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
export type { McpTransport, OutgoingMessage, SendOptions } from "./session/types.js";
export type { ServerInfo, ProtocolEra } from "./session/types.js";
export { tasksFor, type SdkClientLike } from "./adapters/sdk-client.js";
export { withRoutingHeaders, type FetchLike } from "./protocol/headers.js";
export { withHttpErrorMapping } from "./session/http-fetch.js";
export {
  McpTasksError,
  ProtocolError,
  OutputSchemaError,
  type OutputProblem,
  OrphanedTaskError,
  RpcError,
  MissingCapabilityError,
  TransportError,
  RequestTimeoutError,
  MessageTooLargeError,
  TaskError,
  TaskFailedError,
  TaskCancelledError,
  TaskNotFoundError,
  TaskExpiredError,
  DeadlineExceededError,
  TaskDetachedError,
  ClientClosedError,
  InputUnansweredError,
  TaskStoreError,
  LeaseLostError,
  AuthError,
  type AuthFailure,
} from "./protocol/errors.js";
export type { ConnectionHeaders } from "./auth/headers.js";
export type { ConnectionTelemetry } from "./telemetry/connection-telemetry.js";
export type { ConnectionAuth } from "./auth/connection-auth.js";
export { UnsupportedError, UnrequestedTaskError } from "./protocol/errors.js";
export type { TaskSupport } from "./tools/catalog.js";
export type { ToolInfo } from "./tools/catalog.js";
export type { LegacyTasksMode } from "./eras/dialect.js";
export { TASKS_EXTENSION_ID, PROTOCOL_VERSION, TASK_CAPABLE_METHODS } from "./protocol/constants.js";
export type {
  CallToolResult,
  DetailedTask,
  Task,
  TaskStatus,
  InputRequests,
  InputResponse,
} from "./schema/index.js";
