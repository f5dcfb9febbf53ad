/**
 * Input the 2025-11-25 way: where a script asks for input, the server sends the matching server→client
 * request (`elicitation/create`, `sampling/createMessage`, `roots/list`) and feeds the answer back into the
 * script. A task's requests carry the related-task `_meta` and go out on the stream of a `tasks/result`
 * that waits on the task (each key once); a call without a task asks on its own `tools/call` stream.
 */
import type { InputRequest, InputRequests, InputResponse } from "../../schema/index.js";
import { ErrorCode } from "../constants.js";
import type { TaskEngine } from "../engine.js";
import { takeAnswers } from "../input-answers.js";
import type { TaskRecord } from "../task-record.js";
import { relatedTaskMeta } from "./wire.js";

/** Sends one server→client request on the stream of the request being served and resolves with the answer. */
export type SendInput = (request: { method: string; params?: Record<string, unknown> }) => Promise<unknown>;

function withMeta(request: InputRequest, meta: Record<string, unknown>) {
  const params = (request as { params?: Record<string, unknown> }).params ?? {};
  const existing = (params["_meta"] as Record<string, unknown> | undefined) ?? {};
  return { method: request.method, params: { ...params, _meta: { ...existing, ...meta } } };
}

function errorOf(error: unknown): { code: number; message: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    code: typeof code === "number" && Number.isSafeInteger(code) ? code : ErrorCode.internalError,
    message: error instanceof Error ? error.message : String(error),
  };
}

/** Ask every request of one round of a call without a task, and check the answers. */
export async function askWithoutTask(
  requests: InputRequests,
  send: SendInput,
): Promise<Record<string, InputResponse>> {
  const entries = Object.entries(requests);
  const answers = await Promise.all(entries.map(([, request]) => send(withMeta(request, {}))));
  return takeAnswers(requests, Object.fromEntries(entries.map(([key], i) => [key, answers[i]])));
}

export class InputRelay {
  /** Keys already sent, per task: a second `tasks/result` does not ask them again. */
  private readonly asked = new Map<string, Set<string>>();

  constructor(
    private readonly engine: TaskEngine,
    private readonly reportError: (error: Error) => void,
  ) {}

  /**
   * Send the task's outstanding requests that were not sent yet. An answer resumes the script; an error
   * answer, or an answer of the wrong shape, fails the task, as a v1 SDK tool would fail.
   */
  deliver(record: TaskRecord, send: SendInput): void {
    const requests = record.payload.inputRequests ?? {};
    let asked = this.asked.get(record.taskId);
    if (asked === undefined) this.asked.set(record.taskId, (asked = new Set()));
    for (const key of record.outstanding) {
      const request = requests[key];
      if (request === undefined || asked.has(key)) continue;
      asked.add(key);
      send(withMeta(request, relatedTaskMeta(record.taskId))).then(
        (answer) => this.take(record.taskId, key, answer),
        (error: unknown) => this.engine.failTask(record.taskId, errorOf(error)),
      );
    }
  }

  /** Forget a task's sent keys (it ended or expired). */
  forget(taskId: string): void {
    this.asked.delete(taskId);
  }

  private take(taskId: string, key: string, answer: unknown): void {
    try {
      this.engine.updateTask(taskId, { [key]: answer });
    } catch (error) {
      if (this.engine.store.find(taskId) === undefined) {
        this.reportError(new Error(`an answer for "${key}" arrived after task ${taskId} was gone`));
        return;
      }
      this.engine.failTask(taskId, errorOf(error));
    }
  }
}
