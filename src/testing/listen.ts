/**
 * `subscriptions/listen` with `notifications.taskIds`, served in front of the SDK (whose listen
 * router strips `taskIds` and cannot push `notifications/tasks`). The stream opens with
 * `notifications/subscriptions/acknowledged` naming the accepted ids (only tasks the server knows),
 * then carries one `notifications/tasks` with the full detailed task per change of an accepted task.
 * Every message carries the listen request's id as `_meta["io.modelcontextprotocol/subscriptionId"]`.
 */
import type { DetailedTask } from "../schema/index.js";
import { declaresTasks, missingTasksCapability } from "./capabilities.js";
import {
  ErrorCode,
  PROTOCOL_VERSION,
  PROTOCOL_VERSION_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
} from "./constants.js";
import type { TaskEngine } from "./engine.js";

type RequestId = string | number;

/** A JSON-RPC message written to a listen stream. */
export type ListenMessage = Record<string, unknown> & { jsonrpc: "2.0" };

/** A listen request that asks for task notifications. */
export interface TaskListenRequest {
  readonly id: RequestId;
  readonly params: Readonly<Record<string, unknown>>;
  readonly taskIds: unknown;
}

export type ListenOpening =
  | { kind: "rejected"; response: ListenMessage }
  | { kind: "open"; acknowledgement: ListenMessage; close(): void };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The request, when `body` is a `subscriptions/listen` that names `taskIds`; other listens stay with the SDK. */
export function asTaskListenRequest(body: unknown): TaskListenRequest | undefined {
  if (!isObject(body) || body["method"] !== "subscriptions/listen") return undefined;
  const id = body["id"];
  const params = body["params"];
  if ((typeof id !== "string" && typeof id !== "number") || !isObject(params)) return undefined;
  const notifications = params["notifications"];
  if (!isObject(notifications) || !("taskIds" in notifications)) return undefined;
  return { id, params, taskIds: notifications["taskIds"] };
}

function stamped(id: RequestId, meta: unknown = {}): Record<string, unknown> {
  return { ...(isObject(meta) ? meta : {}), [SUBSCRIPTION_ID_META_KEY]: id };
}

function errorResponse(id: RequestId, code: number, message: string, data?: unknown): ListenMessage {
  return { jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined && { data }) } };
}

/** The graceful end of a listen stream: the empty `subscriptions/listen` result. */
export function listenClosing(id: RequestId): ListenMessage {
  return { jsonrpc: "2.0", id, result: { resultType: "complete", _meta: stamped(id) } };
}

/** The `notifications/tasks` message for one change of a subscribed task. */
export function taskNotification(id: RequestId, task: DetailedTask): ListenMessage {
  const { _meta, ...fields } = task as DetailedTask & { _meta?: unknown };
  return { jsonrpc: "2.0", method: "notifications/tasks", params: { ...fields, _meta: stamped(id, _meta) } };
}

/** Check the request, then subscribe; `send` receives every `notifications/tasks` after the acknowledgement. */
export function openTaskListen(
  engine: TaskEngine,
  request: TaskListenRequest,
  send: (message: ListenMessage) => void,
): ListenOpening {
  const meta = request.params["_meta"];
  const version = isObject(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined;
  if (version === undefined) {
    return {
      kind: "rejected",
      response: errorResponse(
        request.id,
        ErrorCode.invalidParams,
        "Invalid params: the _meta envelope is required",
      ),
    };
  }
  if (version !== PROTOCOL_VERSION) {
    return {
      kind: "rejected",
      response: errorResponse(
        request.id,
        ErrorCode.unsupportedProtocolVersion,
        "Unsupported protocol version",
        {
          supported: [PROTOCOL_VERSION],
          requested: String(version),
        },
      ),
    };
  }
  if (!declaresTasks(meta as Record<string, unknown>)) {
    const error = missingTasksCapability();
    return { kind: "rejected", response: errorResponse(request.id, error.code, error.message, error.data) };
  }
  const { taskIds } = request;
  if (!Array.isArray(taskIds) || !taskIds.every((taskId) => typeof taskId === "string")) {
    return {
      kind: "rejected",
      response: errorResponse(
        request.id,
        ErrorCode.invalidParams,
        "Invalid params: notifications.taskIds must be an array of strings",
      ),
    };
  }
  const subscription = engine.subscribe(taskIds, (task) => send(taskNotification(request.id, task)));
  return {
    kind: "open",
    acknowledgement: {
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: subscription.accepted }, _meta: stamped(request.id) },
    },
    close: subscription.unsubscribe,
  };
}
