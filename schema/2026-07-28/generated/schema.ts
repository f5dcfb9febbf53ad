// MCP Tasks extension, revision 2026-07-28: Zod schemas of the types in ../schema.ts.
// Snapshot of the draft's generated file, released as revision 2026-07-28 by `npm run snapshot:schema`.
// Do not edit: generated files are never edited by hand.
import * as z from "zod/v4";

export const jsonObjectSchema = z.record(z.string(), z.unknown());

export const requestIdSchema = z.union([z.string(), z.number()]);

export const metaObjectSchema = z.record(z.string(), z.unknown());

export const implementationSchema = z.looseObject({
  name: z.string(),
  version: z.string(),
  title: z.string().optional(),
});

export const clientCapabilitiesSchema = z.looseObject({
  elicitation: z
    .looseObject({
      form: jsonObjectSchema.optional(),
      url: jsonObjectSchema.optional(),
    })
    .optional(),
  sampling: jsonObjectSchema.optional(),
  roots: jsonObjectSchema.optional(),
  extensions: z.record(z.string(), jsonObjectSchema).optional(),
  experimental: z.record(z.string(), jsonObjectSchema).optional(),
});

export const serverCapabilitiesSchema = z.looseObject({
  tools: jsonObjectSchema.optional(),
  prompts: jsonObjectSchema.optional(),
  resources: jsonObjectSchema.optional(),
  logging: jsonObjectSchema.optional(),
  extensions: z.record(z.string(), jsonObjectSchema).optional(),
  experimental: z.record(z.string(), jsonObjectSchema).optional(),
});

export const requestMetaObjectSchema = z.looseObject({
  "io.modelcontextprotocol/protocolVersion": z.string().optional(),
  "io.modelcontextprotocol/clientCapabilities": clientCapabilitiesSchema,
  "io.modelcontextprotocol/clientInfo": implementationSchema.optional(),
});

export const requestParamsSchema = z.looseObject({
  _meta: requestMetaObjectSchema.optional(),
});

export const notificationParamsSchema = z.looseObject({
  _meta: metaObjectSchema.optional(),
});

export const resultTypeSchema = z.string();

export const resultSchema = z.looseObject({
  resultType: resultTypeSchema.optional(),
  _meta: metaObjectSchema.optional(),
});

export const jsonrpcErrorObjectSchema = z.looseObject({
  code: z.int(),
  message: z.string(),
  data: z.unknown().optional(),
});

export const jsonrpcRequestSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: requestIdSchema,
  method: z.string(),
  params: jsonObjectSchema.optional(),
});

export const jsonrpcNotificationSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  method: z.string(),
  params: jsonObjectSchema.optional(),
});

export const jsonrpcResultResponseSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: requestIdSchema,
  result: resultSchema,
});

export const jsonrpcErrorResponseSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: requestIdSchema.nullable(),
  error: jsonrpcErrorObjectSchema,
});

export const textContentSchema = z.looseObject({
  type: z.literal("text"),
  text: z.string(),
  _meta: metaObjectSchema.optional(),
});

export const imageContentSchema = z.looseObject({
  type: z.literal("image"),
  data: z.string(),
  mimeType: z.string(),
  _meta: metaObjectSchema.optional(),
});

export const audioContentSchema = z.looseObject({
  type: z.literal("audio"),
  data: z.string(),
  mimeType: z.string(),
  _meta: metaObjectSchema.optional(),
});

export const resourceLinkSchema = z.looseObject({
  type: z.literal("resource_link"),
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.int().optional(),
  _meta: metaObjectSchema.optional(),
});

export const embeddedResourceSchema = z.looseObject({
  type: z.literal("resource"),
  resource: z.looseObject({
    uri: z.string(),
    mimeType: z.string().optional(),
    text: z.string().optional(),
    blob: z.string().optional(),
    _meta: metaObjectSchema.optional(),
  }),
  _meta: metaObjectSchema.optional(),
});

export const contentBlockSchema = z.discriminatedUnion("type", [
  textContentSchema,
  imageContentSchema,
  audioContentSchema,
  resourceLinkSchema,
  embeddedResourceSchema,
]);

export const callToolResultSchema = resultSchema.extend({
  resultType: z.literal("complete").optional(),
  content: z.array(contentBlockSchema),
  structuredContent: jsonObjectSchema.optional(),
  isError: z.boolean().optional(),
});

export const primitiveSchemaDefinitionSchema = z.looseObject({
  type: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
});

export const elicitRequestFormParamsSchema = z.looseObject({
  mode: z.literal("form").optional(),
  message: z.string(),
  requestedSchema: z.looseObject({
    type: z.literal("object"),
    properties: z.record(z.string(), primitiveSchemaDefinitionSchema),
    required: z.array(z.string()).optional(),
  }),
  _meta: metaObjectSchema.optional(),
});

export const elicitRequestUrlParamsSchema = z.looseObject({
  mode: z.literal("url"),
  message: z.string(),
  url: z.string(),
  _meta: metaObjectSchema.optional(),
});

export const elicitRequestParamsSchema = z.union([
  elicitRequestFormParamsSchema,
  elicitRequestUrlParamsSchema,
]);

export const elicitRequestSchema = z.looseObject({
  method: z.literal("elicitation/create"),
  params: elicitRequestParamsSchema,
});

export const samplingMessageSchema = z.looseObject({
  role: z.union([z.literal("user"), z.literal("assistant")]),
  content: z.union([contentBlockSchema, z.array(contentBlockSchema)]),
  _meta: metaObjectSchema.optional(),
});

export const modelHintSchema = z.looseObject({
  name: z.string().optional(),
});

export const modelPreferencesSchema = z.looseObject({
  hints: z.array(modelHintSchema).optional(),
  costPriority: z.number().optional(),
  speedPriority: z.number().optional(),
  intelligencePriority: z.number().optional(),
});

export const createMessageRequestParamsSchema = z.looseObject({
  messages: z.array(samplingMessageSchema),
  maxTokens: z.int(),
  systemPrompt: z.string().optional(),
  modelPreferences: modelPreferencesSchema.optional(),
  includeContext: z.union([z.literal("none"), z.literal("thisServer"), z.literal("allServers")]).optional(),
  temperature: z.number().optional(),
  stopSequences: z.array(z.string()).optional(),
  metadata: jsonObjectSchema.optional(),
  tools: z.array(jsonObjectSchema).optional(),
  toolChoice: jsonObjectSchema.optional(),
  _meta: metaObjectSchema.optional(),
});

export const createMessageRequestSchema = z.looseObject({
  method: z.literal("sampling/createMessage"),
  params: createMessageRequestParamsSchema,
});

export const listRootsRequestSchema = z.looseObject({
  method: z.literal("roots/list"),
  params: z
    .looseObject({
      _meta: metaObjectSchema.optional(),
    })
    .optional(),
});

export const inputRequestSchema = z.union([
  elicitRequestSchema,
  createMessageRequestSchema,
  listRootsRequestSchema,
]);

export const inputRequestsSchema = z.record(z.string(), inputRequestSchema);

export const elicitResultSchema = z.looseObject({
  action: z.union([z.literal("accept"), z.literal("decline"), z.literal("cancel")]),
  content: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
    .optional(),
  _meta: metaObjectSchema.optional(),
});

export const createMessageResultSchema = z.looseObject({
  role: z.union([z.literal("user"), z.literal("assistant")]),
  content: z.union([contentBlockSchema, z.array(contentBlockSchema)]),
  model: z.string(),
  stopReason: z.string().optional(),
  _meta: metaObjectSchema.optional(),
});

export const rootSchema = z.looseObject({
  uri: z.string(),
  name: z.string().optional(),
  _meta: metaObjectSchema.optional(),
});

export const listRootsResultSchema = z.looseObject({
  roots: z.array(rootSchema),
  _meta: metaObjectSchema.optional(),
});

export const inputResponseSchema = z.union([
  elicitResultSchema,
  createMessageResultSchema,
  listRootsResultSchema,
]);

export const inputResponsesSchema = z.record(z.string(), inputResponseSchema);

export const inputRequiredResultSchema = resultSchema.extend({
  resultType: z.literal("input_required"),
  inputRequests: inputRequestsSchema.optional(),
  requestState: z.string().optional(),
});

export const discoverResultSchema = resultSchema.extend({
  supportedVersions: z.array(z.string()),
  capabilities: serverCapabilitiesSchema,
  instructions: z.string().optional(),
  ttlMs: z.int().optional(),
  cacheScope: z.union([z.literal("public"), z.literal("private")]).optional(),
});

export const tasksExtensionCapabilitySchema = z.record(z.string(), z.unknown());

export const taskStatusSchema = z.union([
  z.literal("working"),
  z.literal("input_required"),
  z.literal("completed"),
  z.literal("failed"),
  z.literal("cancelled"),
]);

export const taskSchema = z.looseObject({
  taskId: z.string(),
  status: taskStatusSchema,
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttlMs: z.int().nullable(),
  pollIntervalMs: z.int().optional(),
});

export const workingTaskSchema = taskSchema.extend({
  status: z.literal("working"),
});

export const inputRequiredTaskSchema = taskSchema.extend({
  status: z.literal("input_required"),
  inputRequests: inputRequestsSchema,
});

export const completedTaskSchema = taskSchema.extend({
  status: z.literal("completed"),
  result: jsonObjectSchema,
});

export const failedTaskSchema = taskSchema.extend({
  status: z.literal("failed"),
  error: jsonrpcErrorObjectSchema,
});

export const cancelledTaskSchema = taskSchema.extend({
  status: z.literal("cancelled"),
});

export const detailedTaskSchema = z.discriminatedUnion("status", [
  workingTaskSchema,
  inputRequiredTaskSchema,
  completedTaskSchema,
  failedTaskSchema,
  cancelledTaskSchema,
]);

export const createTaskResultSchema = taskSchema.extend({
  resultType: z.literal("task"),
  _meta: metaObjectSchema.optional(),
});

export const getTaskRequestParamsSchema = requestParamsSchema.extend({
  taskId: z.string(),
});

export const getTaskRequestSchema = z.looseObject({
  method: z.literal("tasks/get"),
  params: getTaskRequestParamsSchema,
});

export const getTaskResultFieldsSchema = z.looseObject({
  resultType: z.literal("complete"),
  _meta: metaObjectSchema.optional(),
});

export const getTaskResultSchema = detailedTaskSchema.and(getTaskResultFieldsSchema);

export const updateTaskRequestParamsSchema = requestParamsSchema.extend({
  taskId: z.string(),
  inputResponses: inputResponsesSchema,
});

export const updateTaskRequestSchema = z.looseObject({
  method: z.literal("tasks/update"),
  params: updateTaskRequestParamsSchema,
});

export const updateTaskResultSchema = z.looseObject({
  resultType: z.literal("complete"),
  _meta: metaObjectSchema.optional(),
});

export const cancelTaskRequestParamsSchema = requestParamsSchema.extend({
  taskId: z.string(),
});

export const cancelTaskRequestSchema = z.looseObject({
  method: z.literal("tasks/cancel"),
  params: cancelTaskRequestParamsSchema,
});

export const cancelTaskResultSchema = z.looseObject({
  resultType: z.literal("complete"),
  _meta: metaObjectSchema.optional(),
});

export const taskStatusNotificationFieldsSchema = z.looseObject({
  _meta: metaObjectSchema.optional(),
});

export const taskStatusNotificationParamsSchema = detailedTaskSchema.and(taskStatusNotificationFieldsSchema);

export const taskStatusNotificationSchema = z.looseObject({
  method: z.literal("notifications/tasks"),
  params: taskStatusNotificationParamsSchema,
});

export const subscriptionFilterSchema = z.looseObject({
  taskIds: z.array(z.string()).optional(),
  toolsListChanged: z.boolean().optional(),
  promptsListChanged: z.boolean().optional(),
  resourcesListChanged: z.boolean().optional(),
});

export const subscriptionsListenRequestParamsSchema = requestParamsSchema.extend({
  notifications: subscriptionFilterSchema,
});

export const subscriptionsListenRequestSchema = z.looseObject({
  method: z.literal("subscriptions/listen"),
  params: subscriptionsListenRequestParamsSchema,
});

export const subscriptionsAcknowledgedNotificationParamsSchema = z.looseObject({
  notifications: subscriptionFilterSchema,
  _meta: metaObjectSchema.optional(),
});

export const subscriptionsAcknowledgedNotificationSchema = z.looseObject({
  method: z.literal("notifications/subscriptions/acknowledged"),
  params: subscriptionsAcknowledgedNotificationParamsSchema,
});

export const missingRequiredClientCapabilityErrorSchema = z.looseObject({
  code: z.literal(-32021),
  message: z.string(),
  data: z.looseObject({
    requiredCapabilities: clientCapabilitiesSchema,
  }),
});

export const callToolRequestParamsSchema = requestParamsSchema.extend({
  name: z.string(),
  arguments: jsonObjectSchema.optional(),
  inputResponses: inputResponsesSchema.optional(),
  requestState: z.string().optional(),
});

export const callToolRequestSchema = z.looseObject({
  method: z.literal("tools/call"),
  params: callToolRequestParamsSchema,
});
