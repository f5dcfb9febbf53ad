/** Builders shared by the lifecycle tests: a fixed clock, wire objects, and a one-line form of an effect. */
import type {
  CallToolResult,
  CreateTaskResult,
  DetailedTask,
  InputRequests,
  TaskStatus,
} from "../../../src/schema/index.js";
import type { Effect, LifecycleConfig } from "../../../src/lifecycle/types.js";

/** Epoch ms of the moment every test starts from. */
export const T0 = Date.UTC(2026, 6, 28, 10, 0, 0);
export const TASK = "task-1";
export const OTHER_TASK = "task-2";

export const config: LifecycleConfig = { pollRetries: 2, cancelGraceMs: 10_000, ttlGraceMs: 5_000 };

/** The ISO timestamp `ms` after T0. */
export function iso(ms: number): string {
  return new Date(T0 + ms).toISOString();
}

export const toolResult: CallToolResult = { content: [{ type: "text", text: "done" }] };

export interface TaskFields {
  taskId?: string;
  createdAt?: string;
  ttlMs?: number | null;
  pollIntervalMs?: number;
}

const inputRequests: InputRequests = {
  confirm: {
    method: "elicitation/create",
    params: {
      message: "Go on?",
      requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
    },
  },
};

function taskBase(fields: TaskFields) {
  return {
    taskId: fields.taskId ?? TASK,
    createdAt: fields.createdAt ?? iso(0),
    lastUpdatedAt: iso(0),
    ttlMs: fields.ttlMs === undefined ? 60_000 : fields.ttlMs,
    pollIntervalMs: fields.pollIntervalMs ?? 500,
  };
}

/** The answer of a task-augmented call that created a task. */
export function created(status: TaskStatus = "working", fields: TaskFields = {}): CreateTaskResult {
  return { ...taskBase(fields), status, resultType: "task" };
}

/** A `tasks/get` snapshot with the payload its status requires. */
export function snapshot(status: TaskStatus, fields: TaskFields = {}): DetailedTask {
  const base = taskBase(fields);
  switch (status) {
    case "working":
      return { ...base, status };
    case "input_required":
      return { ...base, status, inputRequests };
    case "completed":
      return { ...base, status, result: { ...toolResult } };
    case "failed":
      return { ...base, status, error: { code: -32603, message: "boom" } };
    case "cancelled":
      return { ...base, status };
  }
}

/** The `InputRequiredResult` of a call that wants input before it makes a task. */
export const inputRequiredResult = { resultType: "input_required", inputRequests };

/** One effect as a short, readable token: its type and the payload that matters. */
export function effectToken(effect: Effect): string {
  switch (effect.type) {
    case "sendCall":
    case "runInputRounds":
    case "stopInputRounds":
      return effect.type;
    case "follow":
    case "persist":
    case "sendPoll":
    case "sendCancel":
    case "cancelOrphan":
      return `${effect.type}(${effect.taskId})`;
    case "show":
      return `show(${effect.snapshot.status})`;
    case "schedulePoll":
      return effect.cause === "retry"
        ? `schedulePoll(retry ${effect.retryDelayMs}ms)`
        : `schedulePoll(${effect.cause})`;
    case "retrying":
      return `retrying(${effect.attempt})`;
    case "settle": {
      const ending = effect.ending;
      if (ending.kind === "result") return "settle(result)";
      if (ending.kind === "snapshot") return `settle(${ending.snapshot.status})`;
      return `settle(${ending.reason})`;
    }
  }
}

/** The effects of a step in the form the tables use: tokens joined by ", ", or "—" for none. */
export function effectsLine(effects: readonly Effect[]): string {
  return effects.length === 0 ? "—" : effects.map(effectToken).join(", ");
}
