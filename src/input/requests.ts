/**
 * One input request, from the server's raw JSON to an answer: which handler kind it needs (or why none can
 * answer it), the host of a URL-mode elicitation, running the handler, and checking what it returned.
 *
 * An input request gets exactly the trust of a direct server-to-client request (spec, Security
 * Considerations): its text is handed to the handler as data and never interpreted here.
 */
import type {
  CreateMessageRequestParams,
  ElicitRequestParams,
  ElicitResult,
  InputResponse,
  ListRootsRequest,
} from "../schema/index.js";
import { validators } from "../schema/validators.js";
import { describeIssues } from "../protocol/issues.js";
import { InputRespondError, McpTasksError } from "../protocol/errors.js";
import type { InputContext, InputHandlers } from "./types.js";

/** The handler kinds, named as in `InputHandlers`. */
export type InputKind = keyof InputHandlers;

/** The method each kind answers. */
export const INPUT_METHODS: Readonly<Record<InputKind, string>> = {
  elicitation: "elicitation/create",
  sampling: "sampling/createMessage",
  roots: "roots/list",
};

/** An input request this client knows how to route to a handler. */
export type AnswerableInput =
  | {
      ok: true;
      method: string;
      kind: "elicitation";
      params: ElicitRequestParams;
      urlHost: string | undefined;
    }
  | { ok: true; method: string; kind: "sampling"; params: CreateMessageRequestParams }
  | { ok: true; method: string; kind: "roots"; params: ListRootsRequest["params"] };

/** An input request nobody can answer: an unknown method, or params that do not fit the method. */
export interface UnanswerableInput {
  ok: false;
  method: string;
  reason: string;
  cause?: unknown;
}

export type ReadInput = AnswerableInput | UnanswerableInput;

/** How asking a handler went. */
export type AnswerOutcome =
  { ok: true; response: InputResponse } | { ok: false; reason: string; cause?: unknown };

/** Reads one entry of `inputRequests` as the server sent it. */
export function readInputRequest(raw: unknown): ReadInput {
  if (!isRecord(raw) || typeof raw.method !== "string") {
    return { ok: false, method: "(none)", reason: "the request has no method" };
  }
  const { method, params } = raw;
  switch (method) {
    case INPUT_METHODS.elicitation:
      return readElicitation(method, params);
    case INPUT_METHODS.sampling: {
      const parsed = validators().createMessageRequestParamsSchema.safeParse(params);
      if (!parsed.success) return malformed(method, parsed.error);
      return { ok: true, method, kind: "sampling", params: params as CreateMessageRequestParams };
    }
    case INPUT_METHODS.roots:
      if (params !== undefined && !isRecord(params)) {
        return { ok: false, method, reason: "the request does not fit roots/list (params is not an object)" };
      }
      return { ok: true, method, kind: "roots", params: params as ListRootsRequest["params"] };
    default:
      return { ok: false, method, reason: `the method ${quote(method)} is not one this client can answer` };
  }
}

function readElicitation(method: string, params: unknown): ReadInput {
  const parsed = validators().elicitRequestParamsSchema.safeParse(params);
  if (!parsed.success) return malformed(method, parsed.error);
  const request = params as ElicitRequestParams;
  if (request.mode !== "url")
    return { ok: true, method, kind: "elicitation", params: request, urlHost: undefined };
  const host = urlHost(request.url);
  if (!host.ok) return { ok: false, method, reason: `the elicitation URL ${host.reason}` };
  return { ok: true, method, kind: "elicitation", params: request, urlHost: host.host };
}

/**
 * The host to show the user before they agree to open a URL-mode elicitation. Only absolute http(s) URLs are
 * accepted. The host comes from the WHATWG URL parser, so `https://bank.example@evil.example/` yields
 * `evil.example` and international names come out in their ASCII (punycode) form.
 */
export function urlHost(url: string): { ok: true; host: string } | { ok: false; reason: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: "is not a valid absolute URL" };
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return {
      ok: false,
      reason: `uses the scheme ${quote(parsed.protocol)}; only http and https are allowed`,
    };
  }
  if (parsed.host === "") return { ok: false, reason: "has no host" };
  return { ok: true, host: parsed.host };
}

/** Whether the app gave a handler for this kind. */
export function hasHandler(handlers: InputHandlers, kind: InputKind): boolean {
  return typeof handlers[kind] === "function";
}

/** Asks the handler for `input`'s kind, and checks its answer. Never throws. */
export async function askHandler(
  input: AnswerableInput,
  handlers: InputHandlers,
  context: InputContext,
): Promise<AnswerOutcome> {
  let response: unknown;
  try {
    switch (input.kind) {
      case "elicitation":
        if (!handlers.elicitation) return missingHandler(input.kind);
        // A URL-mode elicitation shows its URL's host, so the user can see where consent would take them.
        response = await handlers.elicitation(
          input.params,
          input.urlHost === undefined ? context : { ...context, urlHost: input.urlHost },
        );
        break;
      case "sampling":
        if (!handlers.sampling) return missingHandler(input.kind);
        response = await handlers.sampling(input.params, context);
        break;
      case "roots":
        if (!handlers.roots) return missingHandler(input.kind);
        response = await handlers.roots(input.params, context);
        break;
    }
  } catch (error) {
    return { ok: false, reason: `the ${input.kind} handler failed: ${messageOf(error)}`, cause: error };
  }
  const problem = checkResponse(input, response);
  if (problem !== undefined) {
    return { ok: false, reason: `the ${input.kind} handler returned an invalid answer (${problem})` };
  }
  return { ok: true, response: completeResponse(input, response as InputResponse) };
}

/**
 * The answer as it goes to the server, from a checked handler or `respond()` answer. SEP-1034: an accepted form
 * elicitation that leaves a field out gets that field's `default` from `requestedSchema`, as a form pre-filled
 * with the defaults would have sent it. Fields the answer has are never touched; a default that is not a value
 * an answer may carry (string, number, boolean, array of strings) is not copied. Returns a copy when it adds.
 */
export function completeResponse(input: ReadInput, response: InputResponse): InputResponse {
  if (!input.ok || input.kind !== "elicitation" || input.params.mode === "url") return response;
  const answer = response as ElicitResult;
  if (answer.action !== "accept") return response;
  const properties: Record<string, unknown> = input.params.requestedSchema.properties;
  const content: NonNullable<ElicitResult["content"]> = { ...answer.content };
  let added = false;
  for (const [field, schema] of Object.entries(properties)) {
    if (content[field] !== undefined || !isRecord(schema) || !Object.hasOwn(schema, "default")) continue;
    const fallback = schema.default;
    if (!isAnswerValue(fallback)) continue;
    content[field] = Array.isArray(fallback) ? [...fallback] : fallback;
    added = true;
  }
  return added ? { ...answer, content } : response;
}

function isAnswerValue(value: unknown): value is string | number | boolean | string[] {
  if (Array.isArray(value)) return value.every((item) => typeof item === "string");
  return (
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

/**
 * An answer given out of band (`respond`) to the open request `entry`, checked and completed as it goes to the
 * server; a handler working on that request is aborted. Throws `InputRespondError` when the answer does not fit.
 */
export function takeAnswer(
  key: string,
  entry: { input: ReadInput; controller?: AbortController | undefined },
  response: InputResponse,
): InputResponse {
  const problem = checkResponse(entry.input, response);
  if (problem !== undefined) throw new InputRespondError(key, "invalid_response", problem);
  entry.controller?.abort(new McpTasksError(`input request ${quote(key)} was answered by the app`));
  entry.controller = undefined;
  return completeResponse(entry.input, response);
}

/** The reason a kind without a handler cannot be answered. */
export function missingHandlerReason(kind: InputKind): string {
  return `no ${kind} handler was given`;
}

function missingHandler(kind: InputKind): AnswerOutcome {
  return { ok: false, reason: missingHandlerReason(kind) };
}

/**
 * What is wrong with an answer to `input`, or undefined when it fits. An answer to a request of an unknown method
 * (possible only through `respond`) can only be checked for being an object.
 */
export function checkResponse(input: ReadInput, response: unknown): string | undefined {
  if (!input.ok) return isRecord(response) ? undefined : "the answer is not an object";
  const schema =
    input.kind === "elicitation"
      ? validators().elicitResultSchema
      : input.kind === "sampling"
        ? validators().createMessageResultSchema
        : validators().listRootsResultSchema;
  const parsed = schema.safeParse(response);
  return parsed.success ? undefined : describeIssues(parsed.error);
}

function malformed(method: string, error: Parameters<typeof describeIssues>[0]): UnanswerableInput {
  return {
    ok: false,
    method,
    reason: `the request does not fit ${method} (${describeIssues(error)})`,
    cause: error,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Server text inside our own messages: quoted, and cut short so a server cannot flood a log line. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
