/**
 * The names this library's telemetry records, in one place. The `mcp.*`, `gen_ai.*`, `jsonrpc.*`, `rpc.*`,
 * `network.*`, `server.*` and `error.type` names are those of the OpenTelemetry semantic conventions for MCP
 * (status Development: open-telemetry/semantic-conventions-genai, docs/gen-ai/mcp.md, "Client" span and the
 * `mcp.client.operation.duration` metric); what the conventions do not cover (a task's whole life) is named
 * under this library's own prefix, `mcp_tasks.`, so it never collides with a future convention.
 */

/** Attribute keys from the semantic conventions (spelled exactly as they define them). */
export const Attr = {
  mcpMethodName: "mcp.method.name",
  mcpProtocolVersion: "mcp.protocol.version",
  mcpSessionId: "mcp.session.id",
  genAiToolName: "gen_ai.tool.name",
  genAiOperationName: "gen_ai.operation.name",
  jsonrpcRequestId: "jsonrpc.request.id",
  rpcResponseStatusCode: "rpc.response.status_code",
  errorType: "error.type",
  networkTransport: "network.transport",
  networkProtocolName: "network.protocol.name",
  serverAddress: "server.address",
  serverPort: "server.port",
  clientAddress: "client.address",
  clientPort: "client.port",
} as const;

/** This library's own attribute keys. */
export const TaskAttr = {
  /** The task id, redacted unless `taskIds: "full"` (see `redactTaskId`). */
  taskId: "mcp_tasks.task.id",
  /** How the handle ended: `completed`, `failed`, `cancelled`, `expired`, … (`TaskOutcome["kind"]`). */
  outcome: "mcp_tasks.task.outcome",
  /** A task status (`working`, `input_required`, `completed`, …). */
  status: "mcp_tasks.task.status",
  /** True on the span of a task followed by `client.task(ref)` rather than started by `callTool`. */
  resumed: "mcp_tasks.task.resumed",
  inputRound: "mcp_tasks.input.round",
  inputKeys: "mcp_tasks.input.keys",
  inputMethods: "mcp_tasks.input.methods",
  inputAction: "mcp_tasks.input.action",
  retryAttempt: "mcp_tasks.retry.attempt",
  /** The listen's tasks beyond the first (each one is also a span link). */
  listenTasks: "mcp_tasks.listen.tasks",
} as const;

/** Events on a task's span. */
export const TaskEvent = {
  created: "mcp_tasks.task.created",
  status: "mcp_tasks.task.status",
  input: "mcp_tasks.task.input",
  inputUnanswered: "mcp_tasks.task.input_unanswered",
  retry: "mcp_tasks.task.retry",
} as const;

/** Metric names: the convention's, then this library's task-level ones. */
export const MetricName = {
  operationDuration: "mcp.client.operation.duration",
  activeTasks: "mcp_tasks.client.active_tasks",
  taskDuration: "mcp_tasks.client.task.duration",
  polls: "mcp_tasks.client.polls",
  pushedUpdates: "mcp_tasks.client.pushed_updates",
  retries: "mcp_tasks.client.retries",
} as const;

/** The bucket boundaries the conventions give `mcp.client.operation.duration` (seconds). */
export const OPERATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** Task lifetimes run from a second to hours (seconds). */
export const TASK_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200];

/** `error.type` of a tool result with `isError: true`, as the conventions name it. */
export const TOOL_ERROR = "tool_error";

/** The `gen_ai.operation.name` of a `tools/call`. */
export const EXECUTE_TOOL = "execute_tool";
