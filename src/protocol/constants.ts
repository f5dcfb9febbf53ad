/**
 * Names and numbers of the wire protocol, in one place, so no other file spells a method, a `_meta` key or an
 * error code by hand.
 */
import type { TaskStatus } from "../schema/index.js";

/** The extension this library speaks. */
export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";

/** The core protocol revision the extension is defined for. */
export const PROTOCOL_VERSION = "2026-07-28";

/** The last protocol revision before the per-request envelope (servers without `server/discover`). */
export const LEGACY_PROTOCOL_VERSION = "2025-11-25";

/** Keys of the per-request envelope and other reserved `_meta` entries. */
export const MetaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  /** Draft revision only: advisory ids of related tasks on `tools/call`. */
  relatedTaskIds: "io.modelcontextprotocol/relatedTaskIds",
  /** 2025-11-25: `{ taskId }` on messages that belong to a task (server requests asking for a task's input). */
  relatedTask: "io.modelcontextprotocol/related-task",
} as const;

/** Methods and notifications this library sends or receives. */
export const Method = {
  discover: "server/discover",
  initialize: "initialize",
  initialized: "notifications/initialized",
  toolsList: "tools/list",
  toolsCall: "tools/call",
  tasksGet: "tasks/get",
  tasksUpdate: "tasks/update",
  tasksCancel: "tasks/cancel",
  listen: "subscriptions/listen",
  tasksNotification: "notifications/tasks",
  subscriptionsAcknowledged: "notifications/subscriptions/acknowledged",
  cancelled: "notifications/cancelled",
} as const;

/**
 * Methods a server may answer with a `CreateTaskResult`. Data, not code: later revisions add methods here.
 * A `CreateTaskResult` for any other method is an invalid response.
 */
export const TASK_CAPABLE_METHODS: ReadonlySet<string> = new Set([Method.toolsCall]);

/** JSON-RPC error codes with a meaning in this protocol. */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  /** Also "unknown or expired task" on `tasks/*`. */
  invalidParams: -32602,
  internalError: -32603,
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
  /** The code older extension texts used for a missing capability; treated exactly like -32021. */
  legacyMissingRequiredClientCapability: -32003,
  unsupportedProtocolVersion: -32022,
  /**
   * Implementation-defined (JSON-RPC leaves -32000 to -32099 to implementations): this client refuses a server
   * request because `maxServerRequests` of them are open already.
   */
  tooManyRequests: -32000,
} as const;

/** Values of `resultType`. An absent value means `complete`. */
export const ResultKind = {
  complete: "complete",
  inputRequired: "input_required",
  task: "task",
} as const;

const TERMINAL: ReadonlySet<string> = new Set<TaskStatus>(["completed", "failed", "cancelled"]);

/** `completed`, `failed` and `cancelled` end a task; nothing moves it out of them. */
export function isTerminalStatus(status: string): boolean {
  return TERMINAL.has(status);
}

/**
 * Methods a server may answer with an `InputRequiredResult` (a multi-round-trip request). Servers must not send
 * one for any other method.
 */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  Method.toolsCall,
  "prompts/get",
  "resources/read",
]);
