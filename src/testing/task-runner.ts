/**
 * Moves one task through its script. A tick applies at most one step; answers and cancellation
 * change the record directly. Every visible change stamps `lastUpdatedAt` and is reported through
 * `onChange`, which is how `notifications/tasks` learn about it.
 */
import type { CallToolResult, InputRequests, InputResponse, JSONRPCErrorObject } from "../schema/index.js";
import { ErrorCode } from "./constants.js";
import { ScriptError } from "./errors.js";
import type { FromCall, Step, ToolCall } from "./steps.js";
import type { TaskRecord } from "./task-record.js";
import { isTerminal } from "./task-record.js";
import { TOOL_DEFAULTS } from "./tool.js";

/** What the runner needs from the server around it. */
export interface RunnerEnvironment {
  now(): number;
  /** A visible field of the task changed. */
  onChange(record: TaskRecord): void;
  /** A script broke its own rules; the task has already failed. */
  onScriptError(record: TaskRecord, error: Error): void;
}

/** The {@link ToolCall} view of a task, handed to step functions. */
export function callOf(record: TaskRecord): ToolCall {
  return {
    name: record.tool.name,
    arguments: record.arguments,
    responses: record.responses,
    taskId: record.taskId,
    cancelRequested: record.cancelRequested,
  };
}

export function resolveFromCall<T>(value: FromCall<T>, call: ToolCall): T {
  return typeof value === "function" ? (value as (call: ToolCall) => T)(call) : value;
}

/** The default status message of a failed task: diagnostic text, as the spec suggests. */
export function failureMessage(error: JSONRPCErrorObject): string {
  return `Tool execution failed: ${error.message}`;
}

/** Whether the script can move on at the next tick. */
export function canAdvance(record: TaskRecord): boolean {
  return (
    !isTerminal(record) &&
    !record.stalled &&
    record.outstanding.size === 0 &&
    record.nextStep < record.steps.length
  );
}

function issueInput(record: TaskRecord, requests: InputRequests, reuseKeys: boolean): void {
  const keys = Object.keys(requests);
  if (keys.length === 0) throw new ScriptError("step.input needs at least one input request");
  const reused = keys.filter((key) => record.issuedKeys.has(key));
  if (reused.length > 0 && !reuseKeys) {
    throw new ScriptError(
      `input key(s) ${reused.join(", ")} were already used in this task; pass { reuseKeys: true } to do it on purpose`,
    );
  }
  record.status = "input_required";
  record.payload = { inputRequests: { ...requests } };
  record.outstanding.clear();
  for (const key of keys) {
    record.outstanding.add(key);
    record.issuedKeys.add(key);
  }
}

function applyRaw(record: TaskRecord, fields: Readonly<Record<string, unknown>>): void {
  const { status, statusMessage, ...payload } = fields;
  record.status = String(status);
  if ("statusMessage" in fields)
    record.statusMessage = statusMessage === undefined ? undefined : String(statusMessage);
  record.payload = { ...payload };
  record.outstanding.clear();
  const inputRequests = payload["inputRequests"];
  if (typeof inputRequests === "object" && inputRequests !== null) {
    for (const key of Object.keys(inputRequests)) record.outstanding.add(key);
  }
}

/** Apply one step. Returns whether a visible field changed. */
function applyStep(record: TaskRecord, step: Step): boolean {
  const call = callOf(record);
  switch (step.kind) {
    case "working":
      record.status = "working";
      record.statusMessage = step.statusMessage;
      record.payload = {};
      return true;
    case "statusMessage":
      record.statusMessage = step.statusMessage;
      return true;
    case "pollInterval":
      record.pollIntervalMs = step.pollIntervalMs;
      return true;
    case "ttl":
      record.ttlMs = step.ttlMs;
      return true;
    case "input":
      issueInput(record, resolveFromCall(step.requests, call), step.reuseKeys);
      return true;
    case "complete": {
      const result: CallToolResult = resolveFromCall(step.result, call);
      record.status = "completed";
      record.statusMessage = step.statusMessage;
      record.payload = { result };
      return true;
    }
    case "fail": {
      const error = resolveFromCall(step.error, call);
      record.status = "failed";
      record.statusMessage = step.statusMessage ?? failureMessage(error);
      record.payload = { error };
      return true;
    }
    case "cancelled":
      record.status = "cancelled";
      record.statusMessage = step.statusMessage;
      record.payload = {};
      return true;
    case "idle":
      record.idleTicksLeft = step.ticks - 1;
      return false;
    case "stall":
      record.stalled = true;
      return false;
    case "pollErrors":
      for (let i = 0; i < step.count; i++) record.armedPollErrors.push(step.error);
      return false;
    case "raw":
      applyRaw(record, step.fields);
      return true;
  }
}

function touch(record: TaskRecord, env: RunnerEnvironment): void {
  record.lastUpdatedAtMs = env.now();
  env.onChange(record);
}

/** Apply the next step, unless the task is blocked, idle, stalled or finished. */
export function tick(record: TaskRecord, env: RunnerEnvironment): void {
  if (!canAdvance(record)) return;
  if (record.idleTicksLeft > 0) {
    record.idleTicksLeft--;
    return;
  }
  const next = record.steps[record.nextStep++] as Step;
  let changed: boolean;
  try {
    changed = applyStep(record, next);
  } catch (cause) {
    const error = cause instanceof Error ? cause : new ScriptError(String(cause));
    record.status = "failed";
    record.statusMessage = `Script error: ${error.message}`;
    record.payload = { error: { code: ErrorCode.internalError, message: `Script error: ${error.message}` } };
    record.outstanding.clear();
    touch(record, env);
    env.onScriptError(record, error);
    return;
  }
  if (changed) touch(record, env);
}

/**
 * Take the answers for outstanding keys; other keys are ignored, as the spec asks. When the last
 * outstanding key is answered the task is `working` again. Returns whether anything was taken.
 */
export function answer(
  record: TaskRecord,
  responses: Readonly<Record<string, InputResponse>>,
  env: RunnerEnvironment,
): boolean {
  const taken = Object.keys(responses).filter((key) => record.outstanding.has(key));
  if (taken.length === 0 || isTerminal(record)) return false;
  const remaining: InputRequests = { ...record.payload.inputRequests };
  for (const key of taken) {
    record.responses[key] = responses[key] as InputResponse;
    record.outstanding.delete(key);
    delete remaining[key];
  }
  if (record.outstanding.size === 0) {
    record.status = "working";
    record.statusMessage = undefined;
    record.payload = {};
  } else {
    record.payload = { ...record.payload, inputRequests: remaining };
  }
  touch(record, env);
  return true;
}

/** Register a `tasks/cancel`. Honoured at once, or only noted when the tool ignores cancellation. */
export function requestCancel(record: TaskRecord, env: RunnerEnvironment): void {
  if (isTerminal(record)) return;
  record.cancelRequested = true;
  if ((record.tool.onCancel ?? TOOL_DEFAULTS.onCancel) === "ignore") return;
  record.status = "cancelled";
  record.statusMessage = "Cancelled at the client's request";
  record.payload = {};
  record.outstanding.clear();
  touch(record, env);
}
