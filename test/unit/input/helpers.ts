/**
 * Test doubles for the input module: a scriptable RpcChannel, a coordinator wired to recorders, request fixtures.
 */
import { InputCoordinator, type InputCoordinatorDeps } from "../../../src/input/coordinator.js";
import type { InputUnansweredEvent } from "../../../src/input/types.js";
import type { InputUnansweredError, ProtocolError } from "../../../src/protocol/errors.js";
import type { RequestOptions, RpcChannel } from "../../../src/session/types.js";
import type { InputRequestEvent, RetryEvent } from "../../../src/task/types.js";

export interface RecordedRequest {
  method: string;
  params: Record<string, unknown>;
  signal: AbortSignal | undefined;
}

/** A channel whose answers the test scripts; every request is recorded. */
export class FakeChannel implements RpcChannel {
  readonly requests: RecordedRequest[] = [];
  answer: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>> =
    async () => ({
      resultType: "complete",
    });

  request(method: string, params: Record<string, unknown>, options?: RequestOptions) {
    this.requests.push({ method, params, signal: options?.signal });
    return this.answer(method, params);
  }
  async notify(): Promise<void> {}
  onNotification(): () => void {
    return () => undefined;
  }

  /** The `inputResponses` of every `tasks/update` sent, in order. */
  get updates(): Array<Record<string, unknown>> {
    return this.requests
      .filter((request) => request.method === "tasks/update")
      .map((request) => request.params.inputResponses as Record<string, unknown>);
  }
}

export interface Recorded {
  input: InputRequestEvent[];
  unanswered: InputUnansweredEvent[];
  retries: RetryEvent[];
  polls: number;
  cancelled: InputUnansweredError[];
  failed: Array<InputUnansweredError | ProtocolError>;
}

/** A coordinator for task `task-1` of tool `deploy`, with every side effect recorded. */
export function coordinatorHarness(overrides: Partial<InputCoordinatorDeps> = {}) {
  const channel = new FakeChannel();
  const recorded: Recorded = { input: [], unanswered: [], retries: [], polls: 0, cancelled: [], failed: [] };
  const coordinator = new InputCoordinator({
    channel,
    taskId: "task-1",
    toolName: "deploy",
    server: { name: "reference", version: "1.0.0", url: "http://127.0.0.1:4000/mcp" },
    handlers: {},
    emitInput: (event) => recorded.input.push(event),
    emitUnanswered: (event) => recorded.unanswered.push(event),
    emitRetry: (event) => recorded.retries.push(event),
    pollSoon: () => void recorded.polls++,
    cancelTask: (reason) => void recorded.cancelled.push(reason),
    fail: (error) => void recorded.failed.push(error),
    ...overrides,
  });
  return { coordinator, channel, recorded };
}

/** A promise with its resolve/reject exposed. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Captured before any test installs fake timers. */
const realSetImmediate = globalThis.setImmediate;

/** Lets every pending promise callback and microtask run (a macrotask turn; no clock involved). */
export function settle(): Promise<void> {
  return new Promise((resolve) => realSetImmediate(resolve));
}

export function elicitation(message: string, field = "confirm") {
  return {
    method: "elicitation/create",
    params: {
      message,
      requestedSchema: { type: "object", properties: { [field]: { type: "boolean" } }, required: [field] },
    },
  };
}

export function urlElicitation(url: string) {
  return { method: "elicitation/create", params: { mode: "url", message: "Sign in to continue", url } };
}

export function sampling(text: string) {
  return {
    method: "sampling/createMessage",
    params: { messages: [{ role: "user", content: { type: "text", text } }], maxTokens: 100 },
  };
}

export const roots = { method: "roots/list" };

export const accepted = { action: "accept" as const, content: { confirm: true } };

export const completion = {
  role: "assistant" as const,
  content: { type: "text" as const, text: "Paris" },
  model: "test-model",
};

export function inputRequired(inputRequests: Record<string, unknown>) {
  return { status: "input_required", inputRequests };
}
