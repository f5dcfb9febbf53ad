/**
 * How a call is framed and its answer read, per protocol generation (DESIGN decision 11: eras are adapters).
 * The lifecycle asks the dialect to `prepare` the call and to `classify` the answer; it never tests the era.
 *
 * - 2026-07-28: the server decides whether a call becomes a task; the call goes out as given.
 * - 2025-11-25: the client decides, from the tool's `execution.taskSupport` (cached `tools/list`) and the
 *   server's `capabilities.tasks.requests.tools.call`: `required` → always `params.task`, `optional` → unless
 *   `legacyTasks: "never"`, `forbidden` or absent → a plain call.
 *
 * In both, a plain result that carries a task (a placeholder while the real work runs) is never a completion:
 * it is followed where the era can follow it, else it fails with a `ProtocolError` carrying the id.
 */
import type { CreateTaskResult } from "../schema/index.js";
import { Method, ResultKind } from "../protocol/constants.js";
import { classifyResult, parseCallToolResult, type ClassifiedResult, type Warn } from "../protocol/codec.js";
import { ProtocolError } from "../protocol/errors.js";
import {
  isLegacyCreateTaskResult,
  parseLegacyCreateTaskResult,
  unrequestedTaskIdOf,
} from "./legacy/codec.js";
import type { LegacyTaskSupport } from "./legacy/capabilities.js";
import { type ToolSchemas, taskSupportOf } from "../tools/catalog.js";

/** What to call: the method and its params, without the envelope (the session adds it). */
export interface CallSpec {
  method: string;
  params: Record<string, unknown>;
  /** The tool name, for input handler contexts and refs. */
  toolName: string;
  /** 2025-11-25 servers: this call's `legacyTasks` (the client's option applies when absent). */
  legacyTasks?: LegacyTasksMode;
  /** 2025-11-25 servers: the `ttl` asked for when the call is task-augmented. */
  taskTtlMs?: number;
  /** Set by the dialect when it added `params.task` (2025-11-25). */
  augmented?: boolean;
}

/** Whether an `optional` tool is task-augmented on a 2025-11-25 server. */
export type LegacyTasksMode = "auto" | "never";

export interface CallDialect {
  /** The call as it is sent. Synchronous where nothing needs fetching, so a 2026 call goes out at once. */
  prepare(call: CallSpec): CallSpec | Promise<CallSpec>;
  /** Reads the call's answer; throws a typed error for an answer that must not settle the call. */
  classify(call: CallSpec, raw: Record<string, unknown>): ClassifiedResult;
}

export function modernDialect(tasksDeclared: boolean, warn: Warn): CallDialect {
  return {
    prepare: (call) => call,
    classify: (call, raw) => {
      const answer = classifyResult(call.method, raw, { tasksDeclared, warn });
      if (answer.kind === "complete" && call.method === Method.toolsCall) {
        // A 2025-shaped task riding on a 2026 answer cannot be followed with 2026 requests.
        const stray = unrequestedTaskIdOf(answer.result);
        if (stray !== undefined) throw unrequested(call.method, raw, stray);
      }
      return answer;
    },
  };
}

export interface LegacyDialectDeps {
  tools: ToolSchemas;
  support: LegacyTaskSupport;
  /** The client's `legacyTasks` option; a call's own option wins. */
  mode: LegacyTasksMode;
  warn: Warn;
  now(): number;
}

export function legacyDialect(deps: LegacyDialectDeps): CallDialect {
  const { tools, support, mode, warn } = deps;
  return {
    prepare: (call) => {
      if (call.method !== Method.toolsCall || !support.toolCalls) return call;
      return tools.tool(call.toolName).then((tool) => {
        const taskSupport = taskSupportOf(tool);
        const augment =
          taskSupport === "required" || (taskSupport === "optional" && (call.legacyTasks ?? mode) === "auto");
        if (!augment) return call;
        const task = call.taskTtlMs === undefined ? {} : { ttl: call.taskTtlMs };
        return { ...call, params: { ...call.params, task }, augmented: true };
      });
    },
    classify: (call, raw) => {
      if (call.method !== Method.toolsCall)
        return classifyResult(call.method, raw, { tasksDeclared: false, warn });
      if (isLegacyCreateTaskResult(raw)) {
        if (call.augmented || support.any) {
          return { kind: "task", task: parseLegacyCreateTaskResult(call.method, raw, warn) };
        }
        throw unrequested(call.method, raw, unrequestedTaskIdOf(raw));
      }
      parseCallToolResult(raw, call.method); // validated; the frame itself is kept (unknown fields included)
      const stray = unrequestedTaskIdOf(raw);
      if (stray === undefined) return { kind: "complete", result: raw };
      // A placeholder: follow the task it names where the server offers tasks/get, else refuse it.
      if (!support.any) throw unrequested(call.method, raw, stray);
      warn(
        `${call.method}: the result carries a task the client did not ask for; following the task instead`,
      );
      return { kind: "task", task: seedFor(stray, deps.now()) };
    },
  };
}

/** The first look at a task known only by its id: working, no known lifetime; the first poll tells the rest. */
function seedFor(taskId: string, now: number): CreateTaskResult {
  const at = new Date(now).toISOString();
  return {
    resultType: ResultKind.task,
    taskId,
    status: "working",
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs: null,
  } as CreateTaskResult;
}

function unrequested(method: string, frame: unknown, taskId: string | undefined): ProtocolError {
  return new ProtocolError(
    "answered with a placeholder result that carries a task the client did not ask for (and cannot follow); " +
      "it is not reported as completed",
    method,
    frame,
    { taskId },
  );
}

/** Hands `send` the call as the dialect frames it: at once when nothing needs fetching. Never throws. */
export function prepareThen(
  dialect: CallDialect,
  call: CallSpec,
  send: (call: CallSpec) => void,
  failed: (error: unknown) => void,
): void {
  let prepared: CallSpec | Promise<CallSpec>;
  try {
    prepared = dialect.prepare(call);
  } catch (error) {
    failed(error);
    return;
  }
  if (prepared instanceof Promise) prepared.then(send, failed);
  else send(prepared);
}

/**
 * The id of a task to cancel because the client cannot follow it. Not a placeholder's task: that one is the
 * server's own doing and may be followed another way, so its id travels on the `ProtocolError` instead.
 */
export function orphanToCancel(error: unknown): string | undefined {
  return error instanceof ProtocolError && error.cancelsTask === true ? error.taskId : undefined;
}
