/**
 * Wire types of the MCP Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663).
 *
 * Extension revision: draft
 * Editable: the Zod schemas in `generated/schema.ts` and the JSON Schema in `schema.json` are generated
 * from this file. Edit here, then run `npm run generate:schemas`; never edit the generated files.
 *
 * Hand-written from the extension specification. Objects are written closed here for readable types, but
 * the generator turns every `z.object` into `z.looseObject`, so unknown keys from newer revisions are kept
 * at runtime and allowed by the JSON Schema.
 *
 * Core MCP 2026-07-28 types that the extension leans on (the `_meta` envelope, `Result`, the JSON-RPC
 * error object, and the MRTR `InputRequests` / `InputResponses` with their elicitation, sampling and
 * roots shapes) are our own definitions below, in the section "Core MCP types". They are not vendored
 * from the core repository: they cover the fields a requestor reads and leave every object open, so
 * fields from newer core revisions pass through untouched.
 */

/* ------------------------------------------------------------------------------------------------
 * Core MCP types (own definitions, see the file comment)
 * ---------------------------------------------------------------------------------------------- */

/** Any JSON object. Objects from the wire stay open: unknown keys are kept. */
export interface JSONObject {
  [key: string]: unknown;
}

/** A JSON-RPC request id: a string or an integer, never null. */
export type RequestId = string | number;

/** Open metadata object carried as `_meta` on requests, results and notifications. */
export interface MetaObject {
  [key: string]: unknown;
}

/** Name and version of an MCP implementation. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
}

/** What a client can do, declared per request in `_meta["io.modelcontextprotocol/clientCapabilities"]`. */
export interface ClientCapabilities {
  /** Present when the client can answer `elicitation/create`; `form` and `url` name the modes. */
  elicitation?: {
    form?: JSONObject;
    url?: JSONObject;
  };
  /** Present when the client can answer `sampling/createMessage`. */
  sampling?: JSONObject;
  /** Present when the client can answer `roots/list`. */
  roots?: JSONObject;
  /** Extension settings keyed by extension id, e.g. `io.modelcontextprotocol/tasks`. */
  extensions?: {
    [extensionId: string]: JSONObject;
  };
  experimental?: {
    [key: string]: JSONObject;
  };
}

/** What a server can do, as advertised in its `server/discover` result. */
export interface ServerCapabilities {
  tools?: JSONObject;
  prompts?: JSONObject;
  resources?: JSONObject;
  logging?: JSONObject;
  /** Extension settings keyed by extension id. The tasks extension is `io.modelcontextprotocol/tasks`. */
  extensions?: {
    [extensionId: string]: JSONObject;
  };
  experimental?: {
    [key: string]: JSONObject;
  };
}

/**
 * The per-request envelope a 2026-07-28 request carries in `params._meta`. Capabilities are declared on
 * each request; a server must not infer them from earlier ones. Core 2026-07-28 asks every request for the
 * protocol version too (and `mcp-tasks` always sends it), but the extension's own examples show an envelope
 * with the capabilities alone, so this schema accepts one without it.
 */
export interface RequestMetaObject {
  "io.modelcontextprotocol/protocolVersion"?: string;
  "io.modelcontextprotocol/clientCapabilities": ClientCapabilities;
  "io.modelcontextprotocol/clientInfo"?: Implementation;
}

/**
 * Parameters shared by every request. `_meta` is optional, as in the official extension schema and the
 * spec's example requests (`tasks/get`, `tasks/update`, `tasks/cancel` and `tools/call` are printed
 * without it); whether a request declared the extension is the server's check, answered with -32021.
 */
export interface RequestParams {
  _meta?: RequestMetaObject;
}

/** Parameters shared by every notification. */
export interface NotificationParams {
  _meta?: MetaObject;
}

/**
 * The result discriminator. `"complete"` is the standard result of a method, `"input_required"` asks for
 * a multi-round-trip retry, and `"task"` (this extension) marks a `CreateTaskResult`. An absent value
 * means `"complete"`; other strings may come from future extensions.
 */
export type ResultType = string;

/** Fields every result may carry. */
export interface Result {
  /** Absent means `"complete"` (results from servers of earlier protocol revisions). */
  resultType?: ResultType;
  _meta?: MetaObject;
}

/** The JSON-RPC error object. */
export interface JSONRPCErrorObject {
  /** @format int */
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC request as it travels on the wire. */
export interface JSONRPCRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: JSONObject;
}

/** A JSON-RPC notification as it travels on the wire. */
export interface JSONRPCNotification {
  jsonrpc: "2.0";
  method: string;
  params?: JSONObject;
}

/** A successful JSON-RPC response. */
export interface JSONRPCResultResponse {
  jsonrpc: "2.0";
  id: RequestId;
  result: Result;
}

/** A failed JSON-RPC response. The id may be null when the request could not be read. */
export interface JSONRPCErrorResponse {
  jsonrpc: "2.0";
  id: RequestId | null;
  error: JSONRPCErrorObject;
}

/* --- Content ------------------------------------------------------------------------------------ */

export interface TextContent {
  type: "text";
  text: string;
  _meta?: MetaObject;
}

export interface ImageContent {
  type: "image";
  /** Base64-encoded image data. */
  data: string;
  mimeType: string;
  _meta?: MetaObject;
}

export interface AudioContent {
  type: "audio";
  /** Base64-encoded audio data. */
  data: string;
  mimeType: string;
  _meta?: MetaObject;
}

/** A link to a resource the client may read or subscribe to. */
export interface ResourceLink {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** @format int */
  size?: number;
  _meta?: MetaObject;
}

/** The contents of a resource, embedded in the result: text or base64-encoded binary. */
export interface EmbeddedResource {
  type: "resource";
  resource: {
    uri: string;
    mimeType?: string;
    text?: string;
    blob?: string;
    _meta?: MetaObject;
  };
  _meta?: MetaObject;
}

/**
 * A content block of a tool result or a sampling message: text, image, audio, a resource link or an
 * embedded resource. Narrow on `type` to read the fields of each kind.
 * @discriminator type
 */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/* --- tools/call --------------------------------------------------------------------------------- */

/**
 * Task ids the client declares related to this `tools/call` (draft only; client to server, `tools/call`
 * only). Carried in `_meta["io.modelcontextprotocol/relatedTaskIds"]`. Advisory: a server MAY ignore it and
 * need not say whether it used it. Values SHOULD be task ids from the same server and auth context, and a
 * client SHOULD NOT let a model fill them in directly.
 */
export type RelatedTaskIds = string[];

/** The request envelope of `tools/call`: the common envelope plus the optional related task ids. */
export interface CallToolRequestMetaObject extends RequestMetaObject {
  "io.modelcontextprotocol/relatedTaskIds"?: RelatedTaskIds;
}

/** Parameters of `tools/call`. `inputResponses` and `requestState` appear only on an MRTR retry. */
export interface CallToolRequestParams extends RequestParams {
  _meta?: CallToolRequestMetaObject;
  name: string;
  arguments?: JSONObject;
  /** Answers to the `inputRequests` of an earlier `input_required` result (MRTR retry). */
  inputResponses?: InputResponses;
  /** Opaque server state from an earlier `input_required` result, echoed unchanged. */
  requestState?: string;
}

export interface CallToolRequest {
  method: "tools/call";
  params: CallToolRequestParams;
}

/** The standard result of `tools/call`. `isError: true` is a tool-level error, not a protocol failure. */
export interface CallToolResult extends Result {
  /** Absent or `"complete"`; `"task"` and `"input_required"` mark the other result shapes of `tools/call`. */
  resultType?: "complete";
  content: ContentBlock[];
  structuredContent?: JSONObject;
  isError?: boolean;
}

/* --- Multi round-trip requests (MRTR): server-to-client requests carried in results -------------- */

/** A primitive field of a flat elicitation form schema (string, number, integer, boolean or enum). */
export interface PrimitiveSchemaDefinition {
  type: string;
  title?: string;
  description?: string;
}

/** Form-mode elicitation: the client renders a flat form described by `requestedSchema`. */
export interface ElicitRequestFormParams {
  /** Absent means `"form"`. */
  mode?: "form";
  /** Untrusted server text shown to the user. */
  message: string;
  requestedSchema: {
    type: "object";
    properties: {
      [field: string]: PrimitiveSchemaDefinition;
    };
    required?: string[];
  };
  _meta?: MetaObject;
}

/** URL-mode elicitation: the user is sent to a URL out of band (consent first, show the host). */
export interface ElicitRequestURLParams {
  mode: "url";
  message: string;
  url: string;
  _meta?: MetaObject;
}

export type ElicitRequestParams = ElicitRequestFormParams | ElicitRequestURLParams;

/** An elicitation request (`elicitation/create`). */
export interface ElicitRequest {
  method: "elicitation/create";
  params: ElicitRequestParams;
}

/** A message of a sampling conversation. */
export interface SamplingMessage {
  role: "user" | "assistant";
  content: ContentBlock | ContentBlock[];
  _meta?: MetaObject;
}

/** A hint for model selection; `name` is matched as a substring of model names. */
export interface ModelHint {
  name?: string;
}

export interface ModelPreferences {
  hints?: ModelHint[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
}

export interface CreateMessageRequestParams {
  messages: SamplingMessage[];
  /** @format int */
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: ModelPreferences;
  includeContext?: "none" | "thisServer" | "allServers";
  temperature?: number;
  stopSequences?: string[];
  metadata?: JSONObject;
  tools?: JSONObject[];
  toolChoice?: JSONObject;
  _meta?: MetaObject;
}

/** A sampling request (`sampling/createMessage`): the server asks the client's model for a completion. */
export interface CreateMessageRequest {
  method: "sampling/createMessage";
  params: CreateMessageRequestParams;
}

/** A roots request (`roots/list`): the server asks which filesystem roots it may use. */
export interface ListRootsRequest {
  method: "roots/list";
  params?: {
    _meta?: MetaObject;
  };
}

/** One server-to-client request carried inside a result; it has no JSON-RPC id. */
export type InputRequest = ElicitRequest | CreateMessageRequest | ListRootsRequest;

/** Outstanding server-to-client requests, keyed by identifiers the server chose. */
export interface InputRequests {
  [key: string]: InputRequest;
}

/** The user's answer to an elicitation. `content` is present only for a form-mode `accept`. */
export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: {
    [field: string]: string | number | boolean | string[];
  };
  _meta?: MetaObject;
}

/** The client model's answer to a sampling request. */
export interface CreateMessageResult {
  role: "user" | "assistant";
  content: ContentBlock | ContentBlock[];
  model: string;
  stopReason?: string;
  _meta?: MetaObject;
}

export interface Root {
  uri: string;
  name?: string;
  _meta?: MetaObject;
}

/** The client's answer to a roots request. */
export interface ListRootsResult {
  roots: Root[];
  _meta?: MetaObject;
}

/** One answer to an input request; bare, without `resultType`. */
export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult;

/** Answers keyed by the same identifiers as the `InputRequests` they answer. */
export interface InputResponses {
  [key: string]: InputResponse;
}

/** An MRTR result: the server needs input before it can answer the original request. */
export interface InputRequiredResult extends Result {
  resultType: "input_required";
  inputRequests?: InputRequests;
  /** Opaque; the client echoes it unchanged on the retry and never inspects it. */
  requestState?: string;
}

/* --- server/discover ---------------------------------------------------------------------------- */

/**
 * The result of `server/discover`: what the server supports. The server's `Implementation` travels in
 * `_meta["io.modelcontextprotocol/serverInfo"]`, not as a field of the result.
 */
export interface DiscoverResult extends Result {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  /**
   * How long the result may be cached, in integer milliseconds. Core requires it on cacheable results;
   * it is optional here so that a discovery answer without it is still readable.
   * @format int
   */
  ttlMs?: number;
  /** Who may share a cached copy. Core requires it on cacheable results; optional here like `ttlMs`. */
  cacheScope?: "public" | "private";
}

/* ------------------------------------------------------------------------------------------------
 * The Tasks extension
 * ---------------------------------------------------------------------------------------------- */

/**
 * Settings of the tasks extension in a capabilities object. No settings are defined yet: an empty
 * object declares support. A settings object with keys (from a later revision) still declares support.
 */
export interface TasksExtensionCapability {
  [key: string]: unknown;
}

/** Where a task is in its life. `completed`, `failed` and `cancelled` are terminal. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** Operational metadata about ongoing work. */
export interface Task {
  /** Server-generated, unguessable identifier of the task. */
  taskId: string;
  status: TaskStatus;
  /** Untrusted server text describing the current state; may be shown to the user or model. */
  statusMessage?: string;
  /** ISO 8601 timestamp of creation. */
  createdAt: string;
  /** ISO 8601 timestamp of the last change. */
  lastUpdatedAt: string;
  /**
   * Lifetime from `createdAt` in integer milliseconds; `null` means unlimited. Required even when null.
   * It may change over the task's life.
   * @format int
   */
  ttlMs: number | null;
  /**
   * Suggested polling interval in integer milliseconds; it may change over the task's life.
   * @format int
   */
  pollIntervalMs?: number;
}

/** A task that is working. */
export interface WorkingTask extends Task {
  status: "working";
}

/** A task that waits for the client; `inputRequests` holds every outstanding request. */
export interface InputRequiredTask extends Task {
  status: "input_required";
  inputRequests: InputRequests;
}

/** A task that finished with a result (also a tool result with `isError: true`). */
export interface CompletedTask extends Task {
  status: "completed";
  /** The result of the original request; for `tools/call` a `CallToolResult`. */
  result: JSONObject;
}

/** A task that ended with a JSON-RPC error during execution. */
export interface FailedTask extends Task {
  status: "failed";
  error: JSONRPCErrorObject;
}

/** A task that was cancelled. */
export interface CancelledTask extends Task {
  status: "cancelled";
}

/**
 * A task with the payload its status calls for, as returned by `tasks/get` and `notifications/tasks`.
 * @discriminator status
 */
export type DetailedTask = WorkingTask | InputRequiredTask | CompletedTask | FailedTask | CancelledTask;

/**
 * The answer to a task-augmented request when the server runs it as a task. Flat: the task's fields sit
 * on the result itself. It never carries `result`, `error` or `inputRequests`; fetch them with `tasks/get`.
 */
export interface CreateTaskResult extends Task {
  resultType: "task";
  _meta?: MetaObject;
}

/* --- tasks/get ---------------------------------------------------------------------------------- */

export interface GetTaskRequestParams extends RequestParams {
  taskId: string;
}

/** Ask for the current state of a task. */
export interface GetTaskRequest {
  method: "tasks/get";
  params: GetTaskRequestParams;
}

/** The fields the `tasks/get` result adds to the detailed task. */
export interface GetTaskResultFields {
  resultType: "complete";
  _meta?: MetaObject;
}

/** The current state of a task with its payload. `resultType` is always `"complete"`. */
export type GetTaskResult = DetailedTask & GetTaskResultFields;

/* --- tasks/update ------------------------------------------------------------------------------- */

export interface UpdateTaskRequestParams extends RequestParams {
  taskId: string;
  /** Answers to outstanding `inputRequests` of the task; a partial set is allowed. */
  inputResponses: InputResponses;
}

/** Answer some or all outstanding input requests of a task. */
export interface UpdateTaskRequest {
  method: "tasks/update";
  params: UpdateTaskRequestParams;
}

/** Empty acknowledgement of `tasks/update`. The task's status may reflect the answers only later. */
export interface UpdateTaskResult {
  resultType: "complete";
  _meta?: MetaObject;
}

/* --- tasks/cancel ------------------------------------------------------------------------------- */

export interface CancelTaskRequestParams extends RequestParams {
  taskId: string;
}

/** Ask the server to cancel a task. Cooperative: the task may still end otherwise. */
export interface CancelTaskRequest {
  method: "tasks/cancel";
  params: CancelTaskRequestParams;
}

/** Empty acknowledgement of `tasks/cancel`. */
export interface CancelTaskResult {
  resultType: "complete";
  _meta?: MetaObject;
}

/* --- notifications/tasks and subscriptions/listen ------------------------------------------------ */

/** The fields a notification adds to the detailed task. */
export interface TaskStatusNotificationFields {
  _meta?: MetaObject;
}

/** A full detailed task, identical to what `tasks/get` would return at that moment (without `resultType`). */
export type TaskStatusNotificationParams = DetailedTask & TaskStatusNotificationFields;

/**
 * Pushed on a `subscriptions/listen` stream for each task id the server acknowledged. Its `_meta` carries
 * `"io.modelcontextprotocol/subscriptionId"`: the JSON-RPC id of the listen request.
 */
export interface TaskStatusNotification {
  method: "notifications/tasks";
  params: TaskStatusNotificationParams;
}

/** Which notifications a listen stream carries. The extension adds `taskIds`. */
export interface SubscriptionFilter {
  /** Task ids to receive `notifications/tasks` for. */
  taskIds?: string[];
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
}

export interface SubscriptionsListenRequestParams extends RequestParams {
  notifications: SubscriptionFilter;
}

/** Open a listen stream. Asking for `taskIds` requires declaring the tasks extension on this request. */
export interface SubscriptionsListenRequest {
  method: "subscriptions/listen";
  params: SubscriptionsListenRequestParams;
}

export interface SubscriptionsAcknowledgedNotificationParams {
  /** The subset of the requested filter the server agreed to honour, including accepted `taskIds`. */
  notifications: SubscriptionFilter;
  _meta?: MetaObject;
}

/** The first message on a listen stream; its `_meta` carries the subscription id like every stream message. */
export interface SubscriptionsAcknowledgedNotification {
  method: "notifications/subscriptions/acknowledged";
  params: SubscriptionsAcknowledgedNotificationParams;
}

/* --- Errors ------------------------------------------------------------------------------------- */

/**
 * The server needs a capability the request did not declare: for this extension, a tool that only runs
 * as a task, or a `tasks/*` or listen-with-`taskIds` request without the declaration.
 */
export interface MissingRequiredClientCapabilityError {
  code: -32021;
  message: string;
  data: {
    requiredCapabilities: ClientCapabilities;
  };
}
