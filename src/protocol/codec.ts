/**
 * Validation at the boundary: every frame a server sends is checked against the generated schemas (in zod/mini's
 * API on the kit of src/schema/kit.ts, src/schema/generated/validators.ts: the same shapes as `mcp-tasks/schema`) before any other
 * code reads it, and a violation becomes a `ProtocolError` naming the method and carrying the frame.
 *
 * The schemas keep unknown keys, and these functions go one step further: they validate and then return the
 * object they were given, never the validator's rebuilt copy. Fields from newer revisions (or the SDK server's stray
 * `content: []` on a task result) reach the caller untouched, and the poll path allocates nothing of its own.
 */
import * as z from "../schema/kit.js";
import { validators } from "../schema/validators.js";
import type {
  CallToolResult,
  CreateTaskResult,
  DetailedTask,
  DiscoverResult,
  Implementation,
  InputRequiredResult,
  JSONRPCErrorObject,
  TaskStatusNotificationParams,
} from "../schema/index.js";
import { describeIssues } from "./issues.js";
import { MAX_JSON_DEPTH, nestedDeeperThan, tooDeep } from "./depth.js";
import {
  INPUT_REQUIRED_METHODS,
  Method,
  ResultKind,
  TASK_CAPABLE_METHODS,
  TASKS_EXTENSION_ID,
} from "./constants.js";
import {
  MissingCapabilityError,
  orphanedTask,
  ProtocolError,
  RpcError,
  isMissingCapabilityCode,
} from "./errors.js";

/** What a server answered to a request that may return more than a plain result. */
export type ClassifiedResult =
  /** A final result (`resultType` absent or `"complete"`); a `CallToolResult` for `tools/call`. */
  | { kind: "complete"; result: Record<string, unknown> }
  /** A multi-round-trip request: answer `inputRequests`, then send the request again. */
  | { kind: "input_required"; result: InputRequiredResult }
  /** The server runs the request as a task. */
  | { kind: "task"; task: CreateTaskResult };

export interface ClassifyOptions {
  /** Hears what was forgiven in an advisory field of a `CreateTaskResult` (see `normaliseAdvisoryFields`). */
  warn?: Warn;
  /**
   * Whether the request declared the tasks extension in its envelope. Only then may a server answer with a
   * task. Default true: a modern-era session declares it on every request.
   */
  tasksDeclared?: boolean;
}

/**
 * Classifies the result of `tools/call` (or any request whose answer is polymorphic) by `resultType`, and
 * validates it for its kind. An unknown `resultType` is invalid (the spec says so); a task for a method that
 * cannot create tasks, or for a request that did not declare the extension, is a `ProtocolError` that names the task (`orphanedTask`).
 */
export function classifyResult(method: string, result: unknown, options?: ClassifyOptions): ClassifiedResult {
  const frame = requireObject(method, result, (shallow) => {
    // A task the client cannot read still exists: its id goes with the error, so it is cancelled, not lost.
    const strayId = typeof shallow.taskId === "string" ? shallow.taskId : undefined;
    if (shallow.resultType !== ResultKind.task || strayId === undefined) return undefined;
    return orphanedTask(`answered with a CreateTaskResult that ${tooDeep()}`, method, undefined, strayId);
  });
  const kind = frame.resultType;
  if (kind === undefined || kind === ResultKind.complete) {
    if (method === Method.toolsCall)
      check(validators().callToolResultSchema, frame, method, "is not a valid CallToolResult");
    return { kind: "complete", result: frame };
  }
  if (kind === ResultKind.inputRequired) {
    if (!INPUT_REQUIRED_METHODS.has(method)) {
      throw new ProtocolError(`resultType "input_required" is not allowed for this method`, method, frame);
    }
    return {
      kind: "input_required",
      result: check(validators().inputRequiredResultSchema, frame, method, "is not valid"),
    };
  }
  if (kind === ResultKind.task) return { kind: "task", task: parseCreateTaskResult(method, frame, options) };
  throw new ProtocolError(`unknown resultType ${JSON.stringify(kind)}`, method, frame);
}

function parseCreateTaskResult(method: string, frame: Record<string, unknown>, options?: ClassifyOptions) {
  const strayId = typeof frame.taskId === "string" ? frame.taskId : undefined;
  if (!TASK_CAPABLE_METHODS.has(method)) {
    throw orphanedTask("answered with a task, but this method cannot create tasks", method, frame, strayId);
  }
  if (options?.tasksDeclared === false) {
    throw orphanedTask(
      "answered with a task to a request that did not declare the tasks extension",
      method,
      frame,
      strayId,
    );
  }
  const task = normaliseAdvisoryFields(method, frame, options?.warn);
  const parsed = validators().createTaskResultSchema.safeParse(task);
  if (!parsed.success) {
    throw orphanedTask(
      `answered with an invalid CreateTaskResult (${describe(parsed.error)})`,
      method,
      frame,
      strayId,
      { cause: parsed.error },
    );
  }
  return task as unknown as CreateTaskResult;
}

/** Hears what the codec forgave in a server frame (an advisory field it read liberally). Default: nobody. */
export type Warn = (message: string) => void;

const ignoreWarning: Warn = () => undefined;

/**
 * Reads the advisory fields of a task frame liberally, before the schema sees it (design decision 13): a bad
 * `pollIntervalMs`, `ttlMs` or `statusMessage` never ends a task. A fractional number is rounded (requestor
 * checklist §4.1), a decimal string is read as its number, and any other unusable value falls back with a
 * warning: `pollIntervalMs` is dropped (the client's default interval), `statusMessage` is dropped, and
 * `ttlMs` becomes `null` (no known lifetime, so no TTL backstop). Identity and outcome (`taskId`, `status`,
 * `result`, `error`, timestamps) stay strict. The frame is copied only when something changes; warnings
 * describe a value's kind, never the value, so no server text (which may quote a task id) reaches a log.
 */
export function normaliseAdvisoryFields(
  method: string,
  frame: Record<string, unknown>,
  warn: Warn = ignoreWarning,
): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  const set = (key: string, value: unknown) => {
    copy ??= { ...frame };
    if (value === undefined) delete copy[key];
    else copy[key] = value;
  };

  if ("pollIntervalMs" in frame) {
    const read = readMilliseconds(frame.pollIntervalMs);
    if (read.problem !== undefined) {
      warn(`${method}: pollIntervalMs ${read.problem}; using the default poll interval`);
      set("pollIntervalMs", undefined);
    } else if (read.value !== frame.pollIntervalMs) {
      if (typeof frame.pollIntervalMs === "string") {
        warn(`${method}: pollIntervalMs came as a string; read as ${read.value}`);
      }
      set("pollIntervalMs", read.value);
    }
  }

  if (frame.ttlMs !== null) {
    const read = readMilliseconds(frame.ttlMs);
    if (read.problem !== undefined) {
      warn(`${method}: ttlMs ${read.problem}; treating the task's lifetime as unknown (null)`);
      set("ttlMs", null);
    } else if (read.value !== frame.ttlMs) {
      if (typeof frame.ttlMs === "string") warn(`${method}: ttlMs came as a string; read as ${read.value}`);
      set("ttlMs", read.value);
    }
  }

  if ("statusMessage" in frame && typeof frame.statusMessage !== "string") {
    warn(`${method}: statusMessage is ${kindOf(frame.statusMessage)}, not a string; ignored`);
    set("statusMessage", undefined);
  }
  return copy ?? frame;
}

/** A whole number of milliseconds from a number or a decimal string, or what is wrong with it. */
function readMilliseconds(value: unknown): { value: number; problem?: undefined } | { problem: string } {
  let number: number;
  if (typeof value === "number") number = value;
  else if (typeof value === "string" && DECIMAL.test(value)) number = Number(value);
  else if (value === undefined) return { problem: "is missing" };
  else return { problem: `is ${kindOf(value)}, not a number` };
  const whole = Math.round(number);
  // A negative value is still a number: the scheduler bounds it (an interval to the floor, a TTL as passed).
  if (!Number.isSafeInteger(whole)) return { problem: "is not a usable number of milliseconds" };
  return { value: whole };
}

const DECIMAL = /^\s*-?\d+(\.\d+)?\s*$/;

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/**
 * Validates a `CallToolResult`: the immediate answer of `tools/call`, or the `result` of a completed task
 * (whose `resultType` may be absent or `"complete"`). `method` names where it came from, for the error.
 */
export function parseCallToolResult(result: unknown, method: string = Method.toolsCall): CallToolResult {
  return check(
    validators().callToolResultSchema,
    requireObject(method, result),
    method,
    "is not a valid CallToolResult",
  );
}

/**
 * Validates a `tasks/get` result. Each status must carry its payload (`input_required` a non-empty
 * `inputRequests`, `completed` a `result`, `failed` an `error`). A missing `resultType` is read as
 * `"complete"`, leniently; any other value is invalid here. An unknown status is invalid too.
 */
export function parseGetTaskResult(result: unknown, warn?: Warn): DetailedTask {
  return parseTaskState(Method.tasksGet, requireComplete(Method.tasksGet, result), warn);
}

/** Validates the params of a `notifications/tasks` notification: a complete task state, as from `tasks/get`. */
export function parseTaskNotification(params: unknown, warn?: Warn): TaskStatusNotificationParams {
  return parseTaskState(Method.tasksNotification, requireObject(Method.tasksNotification, params), warn);
}

/** A detailed task state, as `tasks/get` and `notifications/tasks` carry it. */
function parseTaskState(method: string, received: Record<string, unknown>, warn?: Warn): DetailedTask {
  if (isWorkingTaskInShape(received)) return received as unknown as DetailedTask;
  const frame = normaliseAdvisoryFields(method, received, warn);
  const task = check(validators().detailedTaskSchema, frame, method, "is not a valid task state");
  requireInputRequests(method, task, frame);
  return task;
}

/**
 * The poll path's one validation shortcut. Nearly every frame a poll or a notification brings is a `working`
 * task whose fields are already in shape, and for such a frame this check is the full path's verdict: it asks
 * exactly what the `working` branch of the task schema asks (a string id and timestamps, a whole `ttlMs` or null,
 * an optional string message and whole interval) and no more than `normaliseAdvisoryFields` would let through
 * unchanged. Zod would build a copy of the frame only for it to be thrown away, which was a quarter of a poll's
 * allocations. Any other frame (another status, a field out of shape, a frame whose error must be described)
 * takes the full path. test/unit/protocol/codec-fast-path.test.ts proves it accepts nothing the schema refuses.
 */
export function isWorkingTaskInShape(frame: Record<string, unknown>): boolean {
  return (
    frame.status === "working" &&
    typeof frame.taskId === "string" &&
    typeof frame.createdAt === "string" &&
    typeof frame.lastUpdatedAt === "string" &&
    (frame.ttlMs === null || Number.isSafeInteger(frame.ttlMs)) &&
    (typeof frame.statusMessage === "string" || !("statusMessage" in frame)) &&
    (Number.isSafeInteger(frame.pollIntervalMs) || !("pollIntervalMs" in frame))
  );
}

/** Validates the acknowledgement of `tasks/update` or `tasks/cancel`: an empty result. */
export function parseAck(method: string, result: unknown): Record<string, unknown> {
  return check(
    validators().resultSchema,
    requireComplete(method, result),
    method,
    "is not a valid acknowledgement",
  );
}

/** Validates a `server/discover` result. */
export function parseDiscoverResult(result: unknown): DiscoverResult {
  const method = Method.discover;
  return check(
    validators().discoverResultSchema,
    requireComplete(method, result),
    method,
    "is not a valid DiscoverResult",
  );
}

/** The parts of a 2025-era `initialize` result this library reads. */
export interface InitializeResult {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: Implementation;
  instructions?: string;
}

// Revision 2025-11-25's InitializeResult is outside the generated (2026-07-28) schemas; this is its shape,
// built on first use like the generated ones.
let initializeResultSchema: z.ZodMiniType | undefined;

/** Validates the result of a 2025-era `initialize` handshake. */
export function parseInitializeResult(result: unknown): InitializeResult {
  const method = Method.initialize;
  initializeResultSchema ??= z.looseObject({
    protocolVersion: z.string(),
    capabilities: z.record(z.string(), z.unknown()),
    serverInfo: validators().implementationSchema,
    instructions: z.optional(z.string()),
  });
  return check(
    initializeResultSchema as z.ZodMiniType<InitializeResult>,
    requireObject(method, result),
    method,
    "is not a valid InitializeResult",
  );
}

/** Whether a discover result advertises the tasks extension. A settings object with keys (a later revision) counts. */
export function advertisesTasks(discover: DiscoverResult): boolean {
  return isSettingsObject(discover.capabilities.extensions?.[TASKS_EXTENSION_ID]);
}

/** Whether a 2025-11-25 `initialize` answer offers tasks at all (`capabilities.tasks`, an object). */
export function offersLegacyTasks(capabilities: Record<string, unknown> | undefined): boolean {
  return isSettingsObject(capabilities?.["tasks"]);
}

function isSettingsObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Turns a JSON-RPC error object into the error the request rejects with: `MissingCapabilityError` for -32021
 * (and the older -32003), `RpcError` for any other code, `ProtocolError` when the object is not a valid error.
 */
export function errorFromRpc(method: string, error: unknown): RpcError | ProtocolError {
  if (nestedDeeperThan(error, MAX_JSON_DEPTH)) {
    return new ProtocolError(`answered with a JSON-RPC error that ${tooDeep()}`, method, undefined);
  }
  const parsed = validators().jsonrpcErrorObjectSchema.safeParse(error);
  if (!parsed.success) {
    return new ProtocolError(
      `answered with an invalid JSON-RPC error (${describe(parsed.error)})`,
      method,
      error,
      {
        cause: parsed.error,
      },
    );
  }
  const { code, message, data } = error as JSONRPCErrorObject;
  return isMissingCapabilityCode(code)
    ? new MissingCapabilityError(method, code, message, data)
    : new RpcError(method, code, message, data);
}

/* ---- helpers ---------------------------------------------------------------------------------------- */

/**
 * The frame as an object, nested no deeper than `MAX_JSON_DEPTH` (src/protocol/depth.ts): every result and
 * notification the codec reads passes here first. A frame too deep is not carried by the error (a host logging it
 * would walk it).
 */
export function requireObject(
  method: string,
  frame: unknown,
  tooDeepError?: (frame: Record<string, unknown>) => ProtocolError | undefined,
): Record<string, unknown> {
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) {
    throw new ProtocolError("answered with a result that is not an object", method, frame);
  }
  const record = frame as Record<string, unknown>;
  if (nestedDeeperThan(record, MAX_JSON_DEPTH)) {
    throw (
      tooDeepError?.(record) ?? new ProtocolError(`answered with JSON that ${tooDeep()}`, method, undefined)
    );
  }
  return record;
}

/** For results that are always final: `resultType` must be absent (read as `"complete"`) or `"complete"`. */
function requireComplete(method: string, result: unknown): Record<string, unknown> {
  const frame = requireObject(method, result);
  const kind = frame.resultType;
  if (kind !== undefined && kind !== ResultKind.complete) {
    const what = kind === ResultKind.task || kind === ResultKind.inputRequired ? "not allowed" : "unknown";
    throw new ProtocolError(`resultType ${JSON.stringify(kind)} is ${what} for this method`, method, frame);
  }
  return frame;
}

function requireInputRequests(method: string, task: DetailedTask, frame: unknown): void {
  if (task.status === "input_required" && Object.keys(task.inputRequests).length === 0) {
    throw new ProtocolError('status "input_required" came with no inputRequests', method, frame);
  }
}

/** Validates `frame` and returns it as the schema's type: the same object, not Zod's copy. */
function check<S extends z.ZodMiniType>(
  schema: S,
  frame: unknown,
  method: string,
  what: string,
): z.output<S> {
  const parsed = schema.safeParse(frame);
  if (!parsed.success) {
    throw new ProtocolError(`the answer ${what} (${describe(parsed.error)})`, method, frame, {
      cause: parsed.error,
    });
  }
  return frame as z.output<S>;
}

/** The first issue, as `path: expected …`, and how many more. Shapes only, never values: no task id leaks. */
function describe(error: Parameters<typeof describeIssues>[0]): string {
  return describeIssues(error, true);
}
