/**
 * The script vocabulary of the reference server: each {@link Step} is one change to a task, applied
 * one per tick (one `tasks/get`, or one `everyMs` interval). Builders validate their arguments so a
 * malformed script fails where it is written, not halfway through a test.
 */
import type {
  CallToolResult,
  CreateMessageRequest,
  ElicitRequest,
  InputRequests,
  InputResponse,
  JSONRPCErrorObject,
  ListRootsRequest,
  PrimitiveSchemaDefinition,
  TextContent,
} from "../schema/index.js";
import { ErrorCode } from "./constants.js";
import { ToolDefinitionError } from "./errors.js";

/** What a step computed from the call sees. */
export interface ToolCall {
  /** The tool's name. */
  readonly name: string;
  /** The `arguments` of the `tools/call` request (an empty object when absent). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Every answer received so far, from MRTR retries and `tasks/update`, keyed by input key. */
  readonly responses: Readonly<Record<string, InputResponse>>;
  /** The task's id, or `undefined` while the call runs without a task. */
  readonly taskId: string | undefined;
  /** `true` once `tasks/cancel` arrived for a task whose tool uses `onCancel: "ignore"`. */
  readonly cancelRequested: boolean;
}

/** A value, or a function that computes it from the call when the step is applied. */
export type FromCall<T> = T | ((call: ToolCall) => T);

/** One change to a task. Build steps with {@link step}; the fields are public so tests can inspect scripts. */
export type Step =
  | { readonly kind: "working"; readonly statusMessage?: string }
  | { readonly kind: "statusMessage"; readonly statusMessage: string | undefined }
  | { readonly kind: "pollInterval"; readonly pollIntervalMs: number | undefined }
  | { readonly kind: "ttl"; readonly ttlMs: number | null }
  | { readonly kind: "input"; readonly requests: FromCall<InputRequests>; readonly reuseKeys: boolean }
  | { readonly kind: "complete"; readonly result: FromCall<CallToolResult>; readonly statusMessage?: string }
  | { readonly kind: "fail"; readonly error: FromCall<JSONRPCErrorObject>; readonly statusMessage?: string }
  | { readonly kind: "cancelled"; readonly statusMessage?: string }
  | { readonly kind: "idle"; readonly ticks: number }
  | { readonly kind: "stall" }
  | { readonly kind: "pollErrors"; readonly count: number; readonly error: JSONRPCErrorObject }
  | { readonly kind: "raw"; readonly fields: Readonly<Record<string, unknown>> };

const INTERNAL_ERROR: JSONRPCErrorObject = { code: ErrorCode.internalError, message: "Internal error" };

function positiveInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new ToolDefinitionError(`${what} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function checkErrorObject(error: JSONRPCErrorObject): JSONRPCErrorObject {
  if (!Number.isInteger(error.code) || typeof error.message !== "string") {
    throw new ToolDefinitionError(
      `a JSON-RPC error needs an integer code and a string message, got ${JSON.stringify(error)}`,
    );
  }
  return error;
}

/** Builders for every {@link Step}. */
export const step = {
  /** Status `working`, with this status message (none when omitted). */
  working: (statusMessage?: string): Step => ({ kind: "working", statusMessage }),

  /** Change only the status message; `undefined` removes it. */
  message: (statusMessage: string | undefined): Step => ({ kind: "statusMessage", statusMessage }),

  /**
   * Change `pollIntervalMs`; `undefined` removes it. The value is sent as written, so wild values
   * (0, negative, huge, fractional) test how a client bounds what a server suggests.
   */
  pollInterval: (pollIntervalMs: number | undefined): Step => ({ kind: "pollInterval", pollIntervalMs }),

  /** Change `ttlMs` (`null` = unlimited). The task expires once `createdAt + ttlMs` has passed. */
  ttl: (ttlMs: number | null): Step => ({ kind: "ttl", ttlMs }),

  /**
   * Status `input_required` with these requests; the script waits until every key is answered by
   * `tasks/update` (partial answers keep the rest outstanding). Keys must be new within the task
   * unless `reuseKeys` is set, which lets a script misbehave on purpose.
   */
  input: (requests: FromCall<InputRequests>, options: { reuseKeys?: boolean } = {}): Step => ({
    kind: "input",
    requests,
    reuseKeys: options.reuseKeys ?? false,
  }),

  /**
   * Status `completed` with this tool result (a result with `isError: true` still completes). The
   * result is sent exactly as written: no `resultType` is added inside it.
   */
  complete: (result: FromCall<CallToolResult>, options: { statusMessage?: string } = {}): Step => ({
    kind: "complete",
    result,
    statusMessage: options.statusMessage,
  }),

  /** Status `failed` with this JSON-RPC error; without a task the call answers with the error itself. */
  fail: (error: FromCall<JSONRPCErrorObject>, options: { statusMessage?: string } = {}): Step => ({
    kind: "fail",
    error: typeof error === "function" ? error : checkErrorObject(error),
    statusMessage: options.statusMessage,
  }),

  /** Status `cancelled`, decided by the server. */
  cancelled: (statusMessage?: string): Step => ({ kind: "cancelled", statusMessage }),

  /** Change nothing for this many ticks. */
  idle: (ticks = 1): Step => ({ kind: "idle", ticks: positiveInteger(ticks, "idle ticks") }),

  /** Never advance again: the task stays as it is until it expires (a server that hangs). */
  stall: (): Step => ({ kind: "stall" }),

  /** The next `count` polls answer with this JSON-RPC error instead of the task (default `-32603`). */
  pollErrors: (count = 1, error: JSONRPCErrorObject = INTERNAL_ERROR): Step => ({
    kind: "pollErrors",
    count: positiveInteger(count, "pollErrors count"),
    error: checkErrorObject(error),
  }),

  /**
   * Misbehave: replace the status and every status payload (`result`, `error`, `inputRequests`) with
   * exactly these wire fields, unchecked; for example `step.raw({ status: "completed" })` is a
   * completed task without its `result`. A terminal status ends the script.
   */
  raw: (fields: Record<string, unknown> & { status: string }): Step => ({
    kind: "raw",
    fields: { ...fields },
  }),
} as const;

/** A form-mode elicitation (`elicitation/create`) asking for a flat object of primitive fields. */
export function elicitForm(
  message: string,
  properties: Record<string, PrimitiveSchemaDefinition>,
  required: string[] = [],
): ElicitRequest {
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message,
      requestedSchema: { type: "object", properties, ...(required.length > 0 && { required }) },
    },
  };
}

/** A URL-mode elicitation (`elicitation/create`): the user completes it out of band at `url`. */
export function elicitUrl(message: string, url: string): ElicitRequest {
  return { method: "elicitation/create", params: { mode: "url", message, url } };
}

/** A sampling request (`sampling/createMessage`) with one user text message. */
export function sampleText(prompt: string, maxTokens = 256): CreateMessageRequest {
  const content: TextContent = { type: "text", text: prompt };
  return { method: "sampling/createMessage", params: { messages: [{ role: "user", content }], maxTokens } };
}

/** A roots request (`roots/list`). */
export function listRoots(): ListRootsRequest {
  return { method: "roots/list" };
}

/** A tool result with one text block; `isError: true` marks a tool-level error (the task still completes). */
export function textResult(text: string, options: { isError?: boolean } = {}): CallToolResult {
  const block: TextContent = { type: "text", text };
  return { content: [block], ...(options.isError === true && { isError: true }) };
}

/**
 * A tool result carrying `structuredContent` (for tools with an `outputSchema`), with the same JSON in one text
 * block, as the spec asks of servers for clients that do not read structured content.
 */
export function structuredResult(structuredContent: Record<string, unknown>): CallToolResult {
  const block: TextContent = { type: "text", text: JSON.stringify(structuredContent) };
  return { content: [block], structuredContent: structuredContent as CallToolResult["structuredContent"] };
}

/** The `content` of an accepted elicitation answer for `key`, or `undefined` when it was not accepted. */
export function acceptedContent(call: ToolCall, key: string): Record<string, unknown> | undefined {
  const response = call.responses[key] as { action?: unknown; content?: unknown } | undefined;
  if (response?.action !== "accept" || typeof response.content !== "object" || response.content === null) {
    return undefined;
  }
  return response.content as Record<string, unknown>;
}
