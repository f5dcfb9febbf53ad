/**
 * Every error this library throws or rejects with, grouped by what the caller does about it (docs/errors.md):
 * - retry: `TransportError` (no answer; `transient` says whether trying again may help, `kind` why);
 * - re-authorize: `AuthError` (not a `TransportError`: trying again does not help);
 * - fix the call: `RpcError` (and `MissingCapabilityError`), `UnsupportedError`, `TaskRefError`,
 *   `InputRespondError`;
 * - the task ended other than with its result: `TaskError` (`TaskFailedError`, `TaskCancelledError`,
 *   `TaskEndedError` with its `kind`, `InputUnansweredError`, `OutputSchemaError`);
 * - the store failed: `TaskStoreError` (`LeaseLostError`, and `StoreLockedError` of the file store);
 * - the server broke the protocol: `ProtocolError`.
 * A class exists only where the caller acts differently; outcomes that differ only in kind share one class with a
 * `kind`. Callers branch on `instanceof` and `kind`, never on message text. Task ids appear in messages only
 * redacted; the full id is a property. Fields are `declare`d and assigned in the constructor, every one always: a
 * class field definition for each would weigh 0.1 KB gzip more in every browser bundle.
 */
import type { CallToolResult, ClientCapabilities, JSONRPCErrorObject } from "../schema/index.js";
import { ErrorCode } from "./constants.js";
import { redactTaskId } from "./logging.js";

/** Instances carry the brands of every class in their chain under this key (shared by every copy). */
const BRANDS: unique symbol = Symbol.for("mcp-tasks.error.brands");

/** The brand of the class named `errorName`: `Symbol.for`, so every copy of this library makes the same one. */
function brandOf(errorName: string): symbol {
  return Symbol.for(`mcp-tasks.error.${errorName}`);
}

/**
 * Base class of every error from mcp-tasks.
 *
 * Each error class declares its name once, as `static override readonly errorName: string = "…"`, and that one line is
 * both its `name` and its brand. `instanceof` recognises an instance made by another copy of this library (the
 * ESM and the CommonJS build loaded in one process, each entry point's bundle, two bundled versions) by brand,
 * since the classes differ between copies. The brand is a string written in the source, never the class's
 * `Function.name`, which a minifier renames. Nothing else is registered anywhere, so there is no second step to
 * forget, and the one line cannot be left out: the lint refuses an error class in src/ without it, and
 * test/package/consumer.test.ts checks every exported error class across the ESM and CJS builds.
 */
export class McpTasksError extends Error {
  /** This class's name and brand; a subclass that does not declare its own has no brand of its own. */
  static readonly errorName: string = "McpTasksError";

  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options);
    const brands: symbol[] = [];
    for (let c: unknown = new.target; typeof c === "function" && c !== Error; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, "errorName")) brands.push(brandOf((c as typeof McpTasksError).errorName));
    }
    Object.defineProperty(this, BRANDS, { value: Object.freeze(brands), enumerable: false });
    // An own, enumerable property, as a class field would make it (loggers serialise it).
    this.name = new.target.errorName;
  }

  /**
   * `error instanceof TaskFailedError` holds for a `TaskFailedError` from any copy of mcp-tasks, by brand; a
   * class without an `errorName` of its own (a subclass in user code) falls back to the prototype chain.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (!Object.hasOwn(this, "errorName") || typeof value !== "object" || value === null) return false;
    const brands = (value as { [BRANDS]?: unknown })[BRANDS];
    return Array.isArray(brands) && brands.includes(brandOf(this.errorName));
  }
}

/**
 * The server sent something the protocol does not allow: a frame that fails schema validation, an unknown
 * `resultType`, an input key reused for another request, or a task the client cannot follow (a `CreateTaskResult`
 * for a method that cannot create tasks, for a request that did not declare the extension, or with a malformed
 * body; a plain result carrying a task nobody asked for). Carries the method and the offending frame, and the id
 * of such a task when one could be read: it may still run on the server, and is never dropped.
 */
export class ProtocolError extends McpTasksError {
  static override readonly errorName: string = "ProtocolError";
  /**
   * A task the server made that the client cannot follow, when the frame had a string `taskId` (an own property
   * only then: the handle's outcome carries the id of the task a protocol error ended).
   */
  declare readonly taskId: string | undefined;
  /**
   * @internal Whether the client stops that task itself (`tasks/cancel`): not for a placeholder result's task,
   * which the server made on its own and may be followed another way.
   */
  declare readonly cancelsTask: true | undefined;
  declare readonly method: string;
  /** The offending frame (result, notification params) as received. */
  declare readonly frame: unknown;
  constructor(
    message: string,
    method: string,
    frame: unknown,
    options?: { cause?: unknown; taskId?: string | undefined; cancelsTask?: boolean },
  ) {
    super(`${method}: ${message}`, options);
    this.method = method;
    this.frame = frame;
    if (options?.taskId !== undefined) (this as { taskId: string }).taskId = options.taskId;
    if (options?.cancelsTask === true) (this as { cancelsTask: true }).cancelsTask = true;
  }
}

/** A `CreateTaskResult` the client cannot follow: a `ProtocolError` naming the task, which the client cancels. */
export function orphanedTask(
  message: string,
  method: string,
  frame: unknown,
  taskId: string | undefined,
  options?: { cause?: unknown },
): ProtocolError {
  return new ProtocolError(message, method, frame, { ...options, taskId, cancelsTask: true });
}

/** One way a tool's `structuredContent` does not match its `outputSchema`. */
export interface OutputProblem {
  /** Where in `structuredContent`, as a JSON Pointer (`""` is the whole of it, `/items/0/id` a nested field). */
  path: string;
  /** What is wrong there, in the validator's words (it may quote server text). */
  message: string;
}

/** The server answered a request with a JSON-RPC error. */
export class RpcError extends McpTasksError {
  static override readonly errorName: string = "RpcError";
  declare readonly method: string;
  /** JSON-RPC error code. */
  declare readonly code: number;
  /** The server's message (untrusted text). */
  declare readonly rpcMessage: string;
  declare readonly data?: unknown;
  constructor(method: string, code: number, rpcMessage: string, data?: unknown) {
    super(`${method} failed with JSON-RPC error ${code}: ${rpcMessage}`);
    this.method = method;
    this.code = code;
    this.rpcMessage = rpcMessage;
    this.data = data;
  }
}

/**
 * The server needs a capability the request did not declare (-32021, or -32003 from older servers), e.g. a
 * tool that only runs as a task when talking to a server that does not get the tasks extension declared.
 */
export class MissingCapabilityError extends RpcError {
  static override readonly errorName: string = "MissingCapabilityError";
  /** What the server said it requires, as sent in `data.requiredCapabilities`. */
  declare readonly requiredCapabilities: ClientCapabilities | undefined;
  /** Readable names of what is missing, e.g. `["extensions.io.modelcontextprotocol/tasks", "elicitation"]`. */
  declare readonly missing: string[];
  constructor(method: string, code: number, rpcMessage: string, data?: unknown) {
    super(method, code, rpcMessage, data);
    const required = (data as { requiredCapabilities?: ClientCapabilities } | undefined)
      ?.requiredCapabilities;
    this.requiredCapabilities = required;
    this.missing = describeCapabilities(required);
    this.message = `${method}: the server requires client capabilities that were not declared: ${
      this.missing.length > 0 ? this.missing.join(", ") : "(unspecified)"
    }`;
  }
}

/** Whether a JSON-RPC error code means "missing required client capability" (current or older code). */
export function isMissingCapabilityCode(code: number): boolean {
  return (
    code === ErrorCode.missingRequiredClientCapability ||
    code === ErrorCode.legacyMissingRequiredClientCapability
  );
}

function describeCapabilities(required: ClientCapabilities | undefined): string[] {
  if (!required || typeof required !== "object") return [];
  const names: string[] = [];
  for (const [key, value] of Object.entries(required)) {
    if ((key === "extensions" || key === "experimental") && value && typeof value === "object") {
      for (const inner of Object.keys(value)) names.push(`${key}.${inner}`);
    } else {
      names.push(key);
    }
  }
  return names;
}

/**
 * The request never got a JSON-RPC answer: a network error, an HTTP error status without a JSON-RPC body, a
 * closed connection, a request timeout, a message over the size limit. `transient` says whether trying again may
 * help, `kind` why there was no answer.
 */
export class TransportError extends McpTasksError {
  static override readonly errorName: string = "TransportError";
  constructor(
    message: string,
    readonly details: {
      /** Why there was no answer; `http` when a `status` is given, else `connection`, unless named. */
      kind?: TransportError["kind"];
      /** HTTP status, when there was a response. */
      status?: number;
      /** Delay the server asked for (HTTP `Retry-After`), in milliseconds. */
      retryAfterMs?: number;
      /** Whether a retry may succeed (network errors, 5xx, 429, timeouts). */
      transient: boolean;
      /** With `timeout`: the timeout that passed, in milliseconds. */
      timeoutMs?: number;
      /** With `too_large`: the limit, in bytes. */
      limitBytes?: number;
      cause?: unknown;
    },
  ) {
    super(message, { cause: details.cause });
  }
  /**
   * Why there was no answer:
   * - `connection`: a network error, a closed connection or session, a response stream that ended early;
   * - `http`: an HTTP status (or content type) without a JSON-RPC answer in the body;
   * - `timeout`: no answer within the request's timeout (`timeoutMs`); transient;
   * - `too_large`: the server sent more than `maxMessageBytes` in one message (`limitBytes`); never transient.
   */
  get kind(): "connection" | "http" | "timeout" | "too_large" {
    return this.details.kind ?? (this.details.status === undefined ? "connection" : "http");
  }
  /** With kind `timeout`: the request's timeout, in milliseconds. */
  get timeoutMs(): number | undefined {
    return this.details.timeoutMs;
  }
  /** With kind `too_large`: `maxMessageBytes`, the limit the message passed. */
  get limitBytes(): number | undefined {
    return this.details.limitBytes;
  }
  /** HTTP status, when there was a response. */
  get status(): number | undefined {
    return this.details.status;
  }
  /** Delay the server asked for (HTTP `Retry-After`), in milliseconds. */
  get retryAfterMs(): number | undefined {
    return this.details.retryAfterMs;
  }
  /** Whether trying again may succeed (network errors, 5xx, 429, timeouts). */
  get transient(): boolean {
    return this.details.transient;
  }
}

/** No answer arrived within the request's timeout. Transient: the request may be sent again (with a new id). */
export function requestTimeout(method: string, timeoutMs: number): TransportError {
  return new TransportError(`${method}: no answer within ${timeoutMs} ms`, {
    kind: "timeout",
    transient: true,
    timeoutMs,
  });
}

/** What was too large, by error: kept to name the request a closed connection failed (`tooLargeFor`). */
const tooLargeWhat = new WeakMap<TransportError, string>();

/**
 * The server sent more than the client takes in one message (`maxMessageBytes`): an HTTP body, one SSE event or
 * one stdio line, named by `what` (e.g. `tools/call: the HTTP response body`). What was read so far is dropped and
 * the request (or the stream) fails; not transient, since asking again would most likely bring the same bytes.
 */
export function messageTooLarge(what: string, limitBytes: number): TransportError {
  const error = new TransportError(
    `${what} is larger than ${limitBytes} bytes (maxMessageBytes); not read further`,
    { kind: "too_large", transient: false, limitBytes },
  );
  tooLargeWhat.set(error, what);
  return error;
}

/** Whether `error` is a message over `maxMessageBytes`. */
export function isTooLarge(error: unknown): error is TransportError {
  return error instanceof TransportError && error.kind === "too_large";
}

/** Whether `error` is a request that got no answer within its timeout. */
export function isTimeout(error: unknown): error is TransportError {
  return error instanceof TransportError && error.kind === "timeout";
}

/** The same too-large failure as one request's, named by its method (a connection it closed failed them all). */
export function tooLargeFor(error: TransportError, method: string): TransportError {
  const what = tooLargeWhat.get(error) ?? "a message from the server";
  return messageTooLarge(`${method}: ${what}`, error.limitBytes ?? 0);
}

/**
 * Why the server would not take a request's credentials:
 * - `unauthorized`: HTTP 401 — no credentials, or ones it rejects (expired, revoked), and a refresh did not help;
 * - `insufficient_scope`: HTTP 403 asking for more scope (`scope` names what it asked for);
 * - `forbidden`: any other HTTP 403;
 * - `authorization_required`: the OAuth provider (`auth: oauth(provider)`) started an interactive authorization
 *   (it was sent to the authorization page) that nothing completed during the request;
 * - `authorization_failed`: getting credentials failed: the OAuth flow (discovery, registration, token endpoint,
 *   an `iss` or `state` that does not match), the provider, or a `headers` function threw.
 */
export type AuthFailure =
  "unauthorized" | "insufficient_scope" | "forbidden" | "authorization_required" | "authorization_failed";

/**
 * A request failed on authorization: the server answered 401 or 403 (after one refresh, when an OAuth provider can
 * refresh), or credentials could not be had. The request failed, not the task: a handle that ends with it keeps its
 * task running on the server, carries `taskId`, and `client.task(ref)` follows it again once authorization is back.
 * No credential text is ever part of it; `challenge` is the server's `WWW-Authenticate` header as sent. Not a
 * `TransportError`: trying again does not help, authorizing again does.
 */
export class AuthError extends McpTasksError {
  static override readonly errorName: string = "AuthError";
  /** The HTTP status (401, 403), when the server answered; undefined when credentials could not be had. */
  declare readonly status: number | undefined;
  /** The task the request was about (`tasks/*`), or the task of the handle this error ended. */
  declare readonly taskId: string | undefined;
  declare readonly reason: AuthFailure;
  /** The request's method, e.g. `tasks/get`. */
  declare readonly method: string;
  /** The server's `WWW-Authenticate` challenge, verbatim; undefined when it sent none (or there was no answer). */
  declare readonly challenge: string | undefined;
  /** The `scope` the challenge asked for (with `insufficient_scope`, the scope the request needs). */
  declare readonly scope: string | undefined;
  /** The challenge's `error` (e.g. `invalid_token`) and `error_description` (untrusted server text). */
  declare readonly oauthError: string | undefined;
  declare readonly errorDescription: string | undefined;
  /** The challenge's `resource_metadata` URL (RFC 9728), where the server's authorization details live. */
  declare readonly resourceMetadataUrl: string | undefined;

  constructor(init: {
    method: string;
    reason: AuthFailure;
    status?: number;
    taskId?: string;
    challenge?: string;
    scope?: string;
    oauthError?: string;
    errorDescription?: string;
    resourceMetadataUrl?: string;
    cause?: unknown;
  }) {
    super(authMessage(init), init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.taskId = init.taskId;
    this.reason = init.reason;
    this.method = init.method;
    this.challenge = init.challenge;
    this.scope = init.scope;
    this.oauthError = init.oauthError;
    this.errorDescription = init.errorDescription;
    this.resourceMetadataUrl = init.resourceMetadataUrl;
  }

  /** The same failure, as the error that ends the handle of task `taskId`. */
  forTask(taskId: string): AuthError {
    if (this.taskId === taskId) return this;
    const init: ConstructorParameters<typeof AuthError>[0] = {
      method: this.method,
      reason: this.reason,
      taskId,
      cause: this.cause,
    };
    if (this.status !== undefined) init.status = this.status;
    if (this.challenge !== undefined) init.challenge = this.challenge;
    if (this.scope !== undefined) init.scope = this.scope;
    if (this.oauthError !== undefined) init.oauthError = this.oauthError;
    if (this.errorDescription !== undefined) init.errorDescription = this.errorDescription;
    if (this.resourceMetadataUrl !== undefined) init.resourceMetadataUrl = this.resourceMetadataUrl;
    return new AuthError(init);
  }
}

const AUTH_FAILURE_TEXT: Record<AuthFailure, string> = {
  unauthorized: "the server refused the credentials",
  insufficient_scope: "the credentials lack the scope the server asks for",
  forbidden: "the server forbids this request",
  authorization_required: "authorization is required: the authorization step was started but not completed",
  authorization_failed: "could not obtain credentials",
};

function authMessage(init: ConstructorParameters<typeof AuthError>[0]): string {
  const parts: string[] = [];
  if (init.status !== undefined) parts.push(`HTTP ${init.status}`);
  // The reason already says insufficient_scope; any other OAuth error is named (invalid_scope, invalid_grant …).
  if (
    init.oauthError !== undefined &&
    init.oauthError !== init.reason &&
    /^[\w.-]{1,64}$/.test(init.oauthError)
  )
    parts.push(init.oauthError);
  // Scope tokens only (RFC 6749 §3.3): a challenge is server text, and this message may reach a terminal.
  if (init.scope !== undefined && /^[\x21\x23-\x5b\x5d-\x7e ]{1,300}$/.test(init.scope))
    parts.push(`scope "${init.scope}"`);
  const detail = parts.length > 0 ? ` (${parts.join(", ")})` : "";
  const text = `${init.method}: ${AUTH_FAILURE_TEXT[init.reason]}${detail}`;
  return init.taskId === undefined
    ? text
    : `task ${redactTaskId(init.taskId)}: ${redactIn(text, init.taskId)}`;
}

/** `text` with every occurrence of `taskId` redacted. */
export function redactIn(text: string, taskId: string): string {
  return taskId.length === 0 ? text : text.split(taskId).join(redactTaskId(taskId));
}

/**
 * Redacts `taskId` wherever server text may have put it in an error this library made: its `message`, and
 * for an `RpcError` the server's own `rpcMessage` too (loggers serialise every field). Changes the error in
 * place and returns it. Anything that is not ours (an abort reason the caller chose) is left alone.
 */
export function redactError<E>(error: E, taskId: string): E {
  if (!(error instanceof McpTasksError) || taskId.length === 0) return error;
  error.message = redactIn(error.message, taskId);
  if (error instanceof RpcError) {
    (error as { rpcMessage: string }).rpcMessage = redactIn(error.rpcMessage, taskId);
  }
  return error;
}

/** Base of the errors that end a task handle; each carries the task id when one was received. */
export class TaskError extends McpTasksError {
  static override readonly errorName: string = "TaskError";
  /** The full task id, when the server created a task. Never dropped: use it to resume or cancel. */
  declare readonly taskId: string | undefined;
  constructor(message: string, taskId: string | undefined, options?: { cause?: unknown }) {
    // Server text may quote the id ("Task 786512e2-… not found"): redact it there too.
    super(
      taskId === undefined ? message : `task ${redactTaskId(taskId)}: ${redactIn(message, taskId)}`,
      options,
    );
    this.taskId = taskId;
  }
}

/** The task ended `failed`: the underlying request hit a JSON-RPC error. Carries that error. */
export class TaskFailedError extends TaskError {
  static override readonly errorName: string = "TaskFailedError";
  declare readonly code: number;
  declare readonly data: unknown;
  /** The server's error message (untrusted text). */
  declare readonly rpcMessage: string;
  declare readonly statusMessage?: string;
  constructor(taskId: string | undefined, error: JSONRPCErrorObject, statusMessage?: string) {
    super(`failed with JSON-RPC error ${error.code}: ${error.message}`, taskId);
    this.statusMessage = statusMessage;
    this.code = error.code;
    this.rpcMessage = error.message;
    this.data = error.data;
  }
}

/**
 * The task was cancelled. `confirmed` is true when the server reported `cancelled`; false when the client
 * stopped waiting after asking (the server had not reported a final state in time, or no task existed yet).
 */
export class TaskCancelledError extends TaskError {
  static override readonly errorName: string = "TaskCancelledError";
  declare readonly confirmed: boolean;
  declare readonly reason?: unknown;
  constructor(taskId: string | undefined, confirmed: boolean, reason?: unknown) {
    super(
      confirmed ? "cancelled" : "cancellation requested; the server did not confirm a final state",
      taskId,
    );
    this.confirmed = confirmed;
    this.reason = reason;
  }
}

type TaskEnding = "detached" | "closed" | "deadline_exceeded" | "expired" | "not_found";

const ENDING_TEXT: Record<TaskEnding, string> = {
  detached: "detached; the task keeps running on the server",
  closed: "the client was closed before the task ended",
  deadline_exceeded: "the caller's deadline passed before the task ended",
  expired: "its time to live ended without a final status",
  not_found: "not found on the server (expired or unknown)",
};

/**
 * The handle ended without the task's result and without the server saying it failed or was cancelled: this
 * process stopped following it (`detached`, `closed`, `deadline_exceeded`: the task runs on, `client.task(taskId)`
 * follows it again) or the task is gone (`expired`, `not_found`: call again). `kind` says which.
 */
export class TaskEndedError<
  Kind extends "detached" | "closed" | "deadline_exceeded" | "expired" | "not_found" =
    "detached" | "closed" | "deadline_exceeded" | "expired" | "not_found",
> extends TaskError {
  static override readonly errorName: string = "TaskEndedError";
  /** With `deadline_exceeded`: the caller's deadline. */
  declare readonly deadline: Date | undefined;
  /** With `expired`: when the task's time to live ended. */
  declare readonly expiredAt: Date | undefined;
  /** With `not_found`: the server's message (untrusted text). */
  declare readonly rpcMessage: string | undefined;
  constructor(
    /**
     * How the handle ended, the same as `outcome.kind`:
     * - `detached`: `detach()`, or with leases another worker took the task over; the task runs on;
     * - `closed`: the client was closed while the handle (or `client.cancel(ref)`) was still waiting; the task
     *   runs on;
     * - `deadline_exceeded`: the caller's `deadline` or `timeoutMs` passed (`deadline`); the task runs on;
     * - `expired`: the task's `createdAt + ttlMs` passed without a final status (`expiredAt`);
     * - `not_found`: `tasks/get` answered -32602: the server does not know the task, or purged it
     *   (`rpcMessage`).
     */
    readonly kind: Kind,
    taskId: string | undefined,
    detail: { deadline?: Date; expiredAt?: Date; rpcMessage?: string } = {},
  ) {
    super(endingMessage(kind, detail), taskId);
    this.deadline = detail.deadline;
    this.expiredAt = detail.expiredAt;
    this.rpcMessage = detail.rpcMessage;
  }
}

function endingMessage(
  kind: TaskEnding,
  detail: { deadline?: Date; expiredAt?: Date; rpcMessage?: string },
): string {
  const at =
    kind === "deadline_exceeded" ? detail.deadline : kind === "expired" ? detail.expiredAt : undefined;
  const when = at !== undefined && !Number.isNaN(at.getTime()) ? ` (${at.toISOString()})` : "";
  const said = kind === "not_found" && detail.rpcMessage !== undefined ? `: ${detail.rpcMessage}` : "";
  return `${ENDING_TEXT[kind]}${when}${said}`;
}

/**
 * The server asked for input the client could not give (no handler for that kind, or the handler threw), and
 * the configured policy is to fail the handle.
 */
export class InputUnansweredError extends TaskError {
  static override readonly errorName: string = "InputUnansweredError";
  /** The input key the server used. */
  declare readonly key: string;
  /** The request method, e.g. `elicitation/create`. */
  declare readonly inputMethod: string;
  constructor(
    taskId: string | undefined,
    key: string,
    inputMethod: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`could not answer input request "${key}" (${inputMethod}): ${reason}`, taskId, options);
    this.key = key;
    this.inputMethod = inputMethod;
  }
}

/**
 * The tool broke its contract: it declares an `outputSchema`, and a result that is not an error (`isError` is not `true`) came without
 * `structuredContent`, or with one that does not match the schema; or the check could not run (the validator could
 * not be loaded, or the schema could not be used), in which case `problems` is empty and `cause` says why. The
 * handle ends with this error (outcome kind `error`) instead of handing on a structure its type does not describe.
 * Nothing is lost: `result` is the result as the server sent it and `taskId` the task it came from. Turn the check
 * off with the client option `validateOutput: false`.
 */
export class OutputSchemaError extends TaskError {
  static override readonly errorName: string = "OutputSchemaError";
  /** The request whose answer carried the result (`tools/call`, or `tasks/result` on a 2025-11-25 server). */
  declare readonly method: string;
  /** The tool whose result it is. */
  declare readonly toolName: string;
  /** The result, as the server sent it. */
  declare readonly result: CallToolResult;
  /** What does not match, most specific first (at most 20); empty when the check could not run. */
  declare readonly problems: readonly OutputProblem[];
  constructor(
    message: string,
    method: string,
    toolName: string,
    /** The task the result came from; undefined when the server answered the call at once. */
    taskId: string | undefined,
    result: CallToolResult,
    problems: readonly OutputProblem[],
    options?: { cause?: unknown },
  ) {
    super(`${method}: ${message}`, taskId, options);
    this.method = method;
    this.toolName = toolName;
    this.result = result;
    this.problems = problems;
  }
}

/* ---- The client's task store ------------------------------------------------------------------------- */

/**
 * The task store failed: the base of the store's errors (`LeaseLostError`; `StoreLockedError` of `fileStore`). As
 * the error a handle ends with, the client's store did not take a new task's ref (its `put` rejected; `cause` is
 * why), so the task was not reported: durable before visible. The client asked the server to cancel the task
 * (nothing durable could follow it) unless the store said another worker owns it. `taskId` names it.
 */
export class TaskStoreError extends McpTasksError {
  static override readonly errorName: string = "TaskStoreError";
  /** The task whose ref the store refused, when there is one. */
  declare readonly taskId: string | undefined;
  constructor(message?: string, options: { taskId?: string; cause?: unknown } = {}) {
    const { taskId } = options;
    super(
      taskId === undefined || message === undefined
        ? message
        : `task ${redactTaskId(taskId)}: ${redactIn(message, taskId)}`,
      { cause: options.cause },
    );
    this.taskId = taskId;
  }
}

/** The handle's error when the store did not take a new task's ref. */
export function refNotStored(taskId: string, cause: unknown): TaskStoreError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new TaskStoreError(`the task store did not take its ref (${why}); the task was not reported`, {
    taskId,
    cause,
  });
}

/**
 * A store with leases refused a write because another worker holds the task's lease (`redisStore`; a store of
 * your own rejects with this class too). The client stops following that task at once, without cancelling
 * it: no poll, no input answer, no `tasks/cancel` from this worker.
 */
export class LeaseLostError extends TaskStoreError {
  static override readonly errorName: string = "LeaseLostError";
}

/**
 * Whether an error is worth retrying: network failures, HTTP 5xx and 429, timeouts, and JSON-RPC -32603
 * (internal error). This is the one place that decides what is transient.
 */
export function isTransientError(error: unknown): boolean {
  if (error instanceof TransportError) return error.transient;
  if (error instanceof RpcError) return error.code === ErrorCode.internalError;
  return false;
}

/* ---- Refusals made before any task is followed: what a server's protocol generation cannot do --------- */

/**
 * The server lacks what the operation needs (no tasks support at all, no `tasks/list`). Thrown at once, before
 * anything is sent, instead of retrying a request the server can never answer. `missing` names what is missing.
 */
export class UnsupportedError extends McpTasksError {
  static override readonly errorName: string = "UnsupportedError";
  /** What was asked for, e.g. `TaskClient.task`. */
  declare readonly operation: string;
  /** What the server would need to offer, e.g. `tasks (capabilities.tasks)`. */
  declare readonly missing: string;
  constructor(operation: string, missing: string) {
    super(`${operation}: the server does not support ${missing}`);
    this.operation = operation;
    this.missing = missing;
  }
}

/* ---- Answering input out of band (`handle.respond`) ---------------------------------------------------- */

/** Why `handle.respond` refused an answer (`InputRespondError.problem`). */
export type InputRespondProblem =
  /** The key is not an outstanding input request of this task (never asked, or no longer listed). */
  | "unknown_key"
  /** The key was already answered (by a handler, an earlier `respond`, or the unanswerable-input policy). */
  | "already_answered"
  /** The answer does not fit the request's kind (e.g. an elicitation answer without `action`). */
  | "invalid_response"
  /** The handle has ended; nothing is being asked any more. */
  | "closed";

const RESPOND_TEXT: Record<InputRespondProblem, string> = {
  unknown_key: "no outstanding input request has this key",
  already_answered: "this input request was already answered",
  invalid_response: "the answer does not fit the request",
  closed: "nothing is asking for input any more",
};

/** `respond(key, response)` could not take the answer. Nothing was sent. */
export class InputRespondError extends McpTasksError {
  static override readonly errorName: string = "InputRespondError";
  constructor(
    /** The key the app tried to answer. */
    readonly key: string,
    readonly problem: InputRespondProblem,
    /** What exactly is wrong; by default, what `problem` means. */
    detail: string = RESPOND_TEXT[problem],
  ) {
    super(`respond(${JSON.stringify(key)}): ${detail}`);
  }
}
