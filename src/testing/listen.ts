/**
 * `subscriptions/listen` with `notifications.taskIds`, served in front of the SDK (whose listen
 * router strips `taskIds` and cannot push `notifications/tasks`). The stream opens with
 * `notifications/subscriptions/acknowledged` naming the accepted ids (only tasks the server knows),
 * then carries one `notifications/tasks` with the full detailed task per change of an accepted task.
 * A listen that also asks for `toolsListChanged: true` has it acknowledged and gets one
 * `notifications/tools/list_changed` per change of the server's tool list (the server advertises
 * `tools.listChanged`). Every message carries the listen request's id as
 * `_meta["io.modelcontextprotocol/subscriptionId"]`.
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
import type { Clock } from "./clock.js";
import { systemClock } from "./clock.js";
import type { ListenBehaviour } from "./listen-behaviour.js";
import { dropDelay, endDelay, shapeStream } from "./listen-behaviour.js";

type RequestId = string | number;

/** A JSON-RPC message written to a listen stream. */
export type ListenMessage = Record<string, unknown> & { jsonrpc: "2.0" };

/** A listen request that asks for task notifications. */
export interface TaskListenRequest {
  readonly id: RequestId;
  readonly params: Readonly<Record<string, unknown>>;
  readonly taskIds: unknown;
  /** The filter asks for `notifications/tools/list_changed` (`toolsListChanged: true`). */
  readonly toolsListChanged: boolean;
}

export type ListenOpening =
  | { kind: "rejected"; response: ListenMessage }
  | {
      kind: "open";
      /** Sends the acknowledgement (and from then on the notifications) through the stream's writer. */
      start(): void;
      close(): void;
      /** When the stream should break, if its behaviour says so. */
      dropAfterMs: number | undefined;
      /** When the server should end the listen with its result, if its behaviour says so. */
      endAfterMs: number | undefined;
    };

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
  return {
    id,
    params,
    taskIds: notifications["taskIds"],
    toolsListChanged: notifications["toolsListChanged"] === true,
  };
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

/** The `notifications/tools/list_changed` message for one change of the tool list. */
export function toolsChangedNotification(id: RequestId): ListenMessage {
  return { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: stamped(id) } };
}

/**
 * Check the request, then subscribe; `send` receives the acknowledgement (on `start()`) and every
 * `notifications/tasks` after it, shaped by `behaviour`. `listenIndex` counts the server's task listens.
 */
export function openTaskListen(
  engine: TaskEngine,
  request: TaskListenRequest,
  send: (message: ListenMessage) => void,
  behaviour: ListenBehaviour = {},
  listenIndex = 0,
  clock: Clock = systemClock,
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
  if (behaviour.refuse !== undefined) {
    const { code, message, data } = behaviour.refuse;
    return { kind: "rejected", response: errorResponse(request.id, code, message, data) };
  }
  // By default only tasks that move on their own are acknowledged; the rest keep being polled.
  const chosen = behaviour.acknowledge
    ? behaviour.acknowledge(taskIds as string[])
    : engine.pushable(taskIds as string[]);
  const stream = shapeStream(behaviour, clock, send as (message: Record<string, unknown>) => void);
  const subscription = engine.subscribe(chosen, (task) => stream.notify(taskNotification(request.id, task)));
  const { toolsListChanged } = request;
  const unwatchTools = toolsListChanged
    ? engine.onToolsChanged(() => stream.notify(toolsChangedNotification(request.id)))
    : undefined;
  const honored = { taskIds: subscription.accepted, ...(toolsListChanged && { toolsListChanged }) };
  return {
    kind: "open",
    start: () =>
      stream.acknowledge({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: honored, _meta: stamped(request.id) },
      }),
    close: () => {
      stream.stop();
      subscription.unsubscribe();
      unwatchTools?.();
    },
    dropAfterMs: dropDelay(behaviour, listenIndex),
    endAfterMs: endDelay(behaviour, listenIndex),
  };
}
