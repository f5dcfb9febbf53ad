/**
 * The one owner of what callers pass the client's entry points — `connect` (and `tasksFor`), `callTool`,
 * `task`, `resume`, `cancel` — and of the options' defaults. Every entry point checks here first, synchronously,
 * before anything is registered, opened or sent. Every default is written once: here, or (for a part that also
 * runs on its own) as that part's exported constant, which is imported here rather than repeated.
 *
 * One error type per kind of mistake:
 * - `TypeError`: the value is not of the kind the option takes — the wrong type, a malformed shape (an object
 *   without the members it needs, a string that is not an http(s) URL), an option that moved, or options that do
 *   not go together (with each other or with the target);
 * - `RangeError`: the value is of the right kind but outside what is allowed — a number that is negative,
 *   fractional, not finite or too large; an invalid `Date`; an empty name or task id; a string that is not one
 *   of the option's choices.
 * A ref that is malformed or names another server is data rather than an option: `TaskRefError` (../task/ref.ts).
 */
import type { Implementation } from "../schema/index.js";
import type { InputHandlers } from "../input/types.js";
import type { PollTiming, RetryTiming } from "../scheduler/types.js";
import type { UnansweredInputAction } from "../task/types.js";
import type { TaskStore } from "../store/types.js";
import type { CallSpec, LegacyTasksMode } from "../eras/dialect.js";
import type { ConnectionTelemetry } from "../telemetry/connection-telemetry.js";
import { Method } from "../protocol/constants.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../session/bounded-body.js";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../session/session.js";
import { DEFAULT_MAX_SERVER_REQUESTS } from "../session/incoming.js";
import { DEFAULT_MAX_IN_FLIGHT } from "../scheduler/scheduler.js";
import { DEFAULT_SAFETY_NET_MS } from "../notifications/subscriptions.js";
import {
  DEFAULT_INPUT_CONCURRENCY,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_UNANSWERED_INPUT_POLICY,
  UNANSWERED_INPUT_ACTIONS,
} from "../input/policy.js";
import { checkConnectTarget, type ConnectTarget } from "../session/targets.js";
import type { ConnectionHeaders } from "../auth/headers.js";
import type { ConnectionAuth } from "../auth/connection-auth.js";
import type { JsonSchemaValidator } from "../tools/json-schema.js";
import { resolvePollTiming, resolveRetryTiming } from "../scheduler/timing.js";
import { safeLogger, type Logger } from "../protocol/logging.js";
import { checkTelemetry, type TelemetryPlugin } from "../telemetry/connection-telemetry.js";
import { checkConnectionHeaders } from "../auth/headers.js";
import { checkConnectionAuth } from "../auth/connection-auth.js";
import type { HttpTransportOptions } from "../session/http-transport.js";
import { hostHooksOf, type HostHooks } from "./host-hooks.js";

/** Options of `TaskClient.connect`: the connection, and the defaults of every call made through it. */
export interface TaskClientOptions {
  /**
   * URL targets: HTTP headers for every request of the connection (calls, polls, `tasks/update`, `tasks/cancel`,
   * listen streams, `tools/list`), e.g. `{ Authorization: "Bearer …" }`, in any `HeadersInit` form (a plain object,
   * a `Headers`, `[name, value]` pairs; anything else is refused with a `TypeError`); or a function called before
   * every request for that request's headers (a token that changes). They go to the MCP endpoint only (a redirect
   * to another origin is not followed), and never into a ref, the store, an event, a log line or an error message.
   * Headers the protocol sets (`Mcp-*`, `MCP-Protocol-Version`, `Content-Type`, `Accept`) are refused. A server's
   * 401 or 403 fails the request with `AuthError`.
   */
  headers?: ConnectionHeaders;
  /**
   * URL targets: OAuth (the MCP authorization spec), as `auth: oauth(provider, { authorizationResponse })` with
   * `import { oauth } from "mcp-tasks/oauth"`. The SDK's transport runs the flow with your `OAuthClientProvider`
   * (discovery, dynamic registration, PKCE, step-up) and, on a 401, one refresh and one retry of the request; a
   * second 401 fails the request with `AuthError` (a task keeps running and its handle keeps its id). Concurrent
   * 401s share one refresh. The OAuth code and the SDK it drives load only from that entry, so a client without
   * `auth` carries none of it.
   */
  auth?: ConnectionAuth;
  /**
   * @deprecated Moved to `mcp-tasks/oauth`: `auth: oauth(authProvider, { authorizationResponse })`, with
   * `import { oauth } from "mcp-tasks/oauth"`. Given here, `connect` throws a `TypeError` that says so (a client
   * never connects without the authorization it was given).
   */
  authProvider?: never;
  /**
   * @deprecated Moved to `mcp-tasks/oauth`, with `authProvider`: `auth: oauth(authProvider, { authorizationResponse
   * })`. Given here, `connect` throws a `TypeError` that says so.
   */
  authorizationResponse?: never;
  /**
   * The most bytes the client takes from the server in one message: an HTTP response body, one SSE event (its
   * lines together, so also one line), one stdio line; OAuth servers' answers too. A server that sends more fails
   * the request (or ends the stream) with a `TransportError` of kind `too_large` (not transient), and
   * nothing more of it is read. Default 16 MiB (16777216).
   */
  maxMessageBytes?: number;
  /** Sent as `io.modelcontextprotocol/clientInfo` on every request. */
  clientInfo?: Implementation;
  /**
   * Functions that answer server requests for input (inside a task or before one exists). The client declares
   * the elicitation / sampling / roots capabilities only for the kinds given here.
   */
  inputHandlers?: InputHandlers;
  /** What to do with input the client cannot answer (no handler, or the handler threw). Default `"fail"`. */
  unansweredInput?: UnansweredInputAction;
  /**
   * How many input requests of one task are answered at once. Default 4. Requests the server sends directly
   * without naming a task one of the client's handles follows share one such limit for the whole client; the
   * others wait their turn (see `maxServerRequests`).
   */
  inputConcurrency?: number;
  /**
   * Most requests from the server open at once (`elicitation/create`, `sampling/createMessage`, `roots/list`,
   * `ping`: being answered, or waiting for a handler). One more is answered at once with JSON-RPC error -32000
   * ("Too many requests") and never reaches a handler, and the `logger` hears of it once per flood; past as many
   * refusals still being sent, requests are dropped unanswered. Default 64.
   */
  maxServerRequests?: number;
  /** Cap on multi-round-trip rounds before a task exists. Default 10. */
  maxInputRounds?: number;
  /** Polling cadence bounds: default, minimum and maximum interval, and jitter. */
  polling?: Partial<PollTiming>;
  /** Retries of transient faults (network errors, 5xx, 429, -32603). */
  retry?: Partial<RetryTiming>;
  /** Most `tasks/get` requests in flight at once for this client. Default 64. */
  maxInFlight?: number;
  /**
   * Per-request timeout in milliseconds, for every request but the call itself. Default 60000. A `tools/call` has
   * none: it is bounded by the call's `deadline` / `timeoutMs` and `signal` and by `close()`, so a slow answer
   * (and the task id in it) is never dropped; listens last as long as their streams.
   */
  requestTimeoutMs?: number;
  /**
   * After `tasks/cancel` is acknowledged, how long to keep polling for the server's final word before the
   * handle reports an unconfirmed cancellation. Default 10000.
   */
  cancelGraceMs?: number;
  /** Allowance for clock skew before the `createdAt + ttlMs` backstop ends waiting. Default 5000. */
  ttlGraceMs?: number;
  /**
   * How long `close()` waits, at most, for the answers of `tools/call` requests in flight (a task the server
   * makes meanwhile is kept: its id on the handle, its ref stored), and then again for the store's writes in
   * flight and for the store to close (hand back its leases, disconnect). An answer or a store that takes longer
   * (a frozen Redis) is left behind with a logger warning; leases lapse by themselves after `leaseMs`. Default
   * 5000.
   */
  closeTimeoutMs?: number;
  /**
   * Where the client reports what no single handle owns: transport errors, a dropped connection, scheduler
   * faults, retries, a task created after its handle ended, and (`warn`) the warnings of the SDK's OAuth code
   * (with `auth`).
   * Any object with `debug`/`info`/`warn`/`error` (console, pino). Task ids are redacted. Default: silent.
   */
  logger?: Partial<Logger>;
  /**
   * Task status notifications (`subscriptions/listen`). `"auto"` (the default) listens for the client's tasks on
   * servers that speak the tasks extension and falls back to polling wherever the server declines; `"off"`
   * only polls.
   */
  notifications?: "auto" | "off";
  /**
   * While the server pushes a task's changes, a slow poll still checks on it (so a lost notification cannot
   * hang the task): at most once per `max(notificationSafetyNetMs, 10 × the task's poll interval)`. Default 30000.
   * Also how long a listen stream must stay open after its acknowledgement to count as working: a stream that
   * ends sooner brings no poll forward, and its tasks are listened for again with a doubling backoff (`retry`),
   * at most `retry.retries` times in a row, and stay on their poll interval until one of their streams has
   * stayed open this long.
   */
  notificationSafetyNetMs?: number;
  /**
   * Where refs of unfinished tasks are kept (`fileStore`, `memoryStore` from `mcp-tasks/store`, `redisStore`).
   * A new task's ref is written before its handle reports it, also when the handle was cancelled or detached
   * before the task existed (it ends once the ref is stored); a task whose ref the store refuses is never
   * reported (its handle fails with `TaskStoreError`, carrying the id, and the task is cancelled). Input answers
   * are stored before they are sent. A handle that ends while its task may still run keeps the ref and releases
   * it (`TaskStore.release`); `client.resume()` picks the stored tasks up in a new process. The client opens the
   * store on connect (and closes it again if connecting fails) and closes it on `close()`.
   */
  store?: TaskStore;
  /**
   * With a store shared by workers (`redisStore`): every `everyMs` (default 1000), take over the store's tasks of
   * this server whose lease nobody holds (their owner stopped renewing it, or released it when its handle ended),
   * this worker's own released tasks included. Adopted handles are announced by the client's `task` event; a task
   * this client cannot follow (another protocol generation) is handed back at once. A tick is skipped while the
   * previous adoption still runs; a failed one is logged. `close()` stops the loop first.
   */
  adopt?: boolean | { everyMs: number };
  /**
   * On 2025-11-25 servers, whether a tool whose `execution.taskSupport` is `optional` runs as a task: `"auto"`
   * (the default) asks for a task, `"never"` makes a plain call. `required` tools always run as tasks.
   */
  legacyTasks?: LegacyTasksMode;
  /**
   * OpenTelemetry: a span for every call's whole life with its requests as children, the
   * `mcp.client.operation.duration` metric and task-level ones, and W3C trace context (`traceparent`,
   * `tracestate`, `baggage`) in every request's `_meta`: `telemetry: telemetry({ tracerProvider, … })` with
   * `import { telemetry } from "mcp-tasks/telemetry"` (`telemetry()` alone uses the global providers of
   * `@opentelemetry/api`, an optional peer dependency loaded only then). Default: off, and nothing of
   * OpenTelemetry is loaded or bundled. `true` or an options object, as before the plug-in, is a `TypeError`
   * naming it. Not available through `tasksFor`.
   */
  telemetry?: ConnectionTelemetry | false;
  /**
   * Check each result of a tool that declares an `outputSchema` (MCP: clients SHOULD). A result that is not a tool
   * error (`isError: true` is exempt) and whose `structuredContent` is missing or does not match ends its handle
   * with `OutputSchemaError` (outcome kind `error`), which names the problem and keeps the result and the task id.
   * The schemas come from `tools/list`, fetched once per connection when a first result needs them (or a first call
   * becomes a task) and again after `notifications/tools/list_changed`; the check runs once per result, never per
   * poll. `true` (the default) uses `@cfworker/json-schema` (no `eval`, so it runs on Workers), imported the first
   * time a tool has an `outputSchema`; in a bundle made into one file, pass the validator itself,
   * `jsonSchemaValidator` from `mcp-tasks/json-schema`, or any `JsonSchemaValidator`. `false`: no check, and no
   * `tools/list` is sent for it.
   */
  validateOutput?: boolean | JsonSchemaValidator;
}

/** Options of one `callTool` call; where a connection option has the same name, this one wins for the call. */
export interface CallToolOptions {
  /** Aborting sends `tasks/cancel` (once the task id is known) and ends the handle with the server's final state. */
  signal?: AbortSignal;
  /**
   * Stop waiting at this time (a `Date` or epoch milliseconds): the handle ends `deadline_exceeded`, carrying the
   * task id. A task the handle knew is not cancelled. If the server has not answered the call yet, there is no id
   * to carry; a task it creates afterwards is cancelled (no handle follows it) and reported by the client's
   * `orphan` event.
   */
  deadline?: Date | number;
  /** Stop waiting after this many milliseconds; see `deadline`. */
  timeoutMs?: number;
  /** Extra `_meta` entries for the request (e.g. `io.modelcontextprotocol/relatedTaskIds` on draft servers). */
  meta?: Record<string, unknown>;
  /** 2025-11-25 servers: this call's `legacyTasks` (see `TaskClientOptions`). */
  legacyTasks?: LegacyTasksMode;
  /** 2025-11-25 servers: the lifetime to ask for (`params.task.ttl`, ms) when the call runs as a task. */
  taskTtlMs?: number;
  /**
   * Handlers for this call's input requests, used instead of the client's `inputHandlers` for the kinds given
   * here (the other kinds still go to the client's). The capabilities the client declares do not change: a
   * server asks only for kinds the client declared, so give the client a handler for a kind as well.
   */
  inputHandlers?: InputHandlers;
}

/** Every option of `connect` checked and defaulted, once per client. */
export interface ClientSettings {
  options: ResolvedClientOptions;
  polling: PollTiming;
  retry: RetryTiming;
  log: Logger;
  store: TaskStore | undefined;
  /** How often the adoption loop runs; undefined without `adopt`. */
  adoptEveryMs: number | undefined;
  /** What a URL target's transport is built with: `headers`, `auth`. */
  http: HttpTransportOptions;
  /** Undefined when telemetry is off. */
  telemetry: TelemetryPlugin | undefined;
  /** Set when a `TaskHost` made the client (./host-hooks.ts). */
  host: HostHooks | undefined;
}

/**
 * The options of `connect` (and the target, when given), checked and defaulted. Everything a caller can get wrong
 * fails here, before the store is opened or anything is sent.
 */
export function settingsOf(options: TaskClientOptions, target?: ConnectTarget): ClientSettings {
  requireObject("TaskClient", "options", options);
  const log = safeLogger(options.logger);
  const http = httpOptions(options);
  if (target !== undefined) {
    checkConnectTarget(target);
    const isUrl = typeof target === "string" || target instanceof URL;
    if (!isUrl && Object.keys(http).length > 0) {
      throw new TypeError("TaskClient.connect: `headers` and `auth` apply to a URL target only");
    }
  }
  if (http.auth !== undefined) http.log = log;
  return {
    options: resolveClientOptions(options),
    polling: resolvePollTiming(options.polling ?? {}),
    retry: resolveRetryTiming(options.retry ?? {}),
    log,
    store: checkStore(options.store),
    adoptEveryMs: adoptEvery(options),
    http,
    telemetry: checkTelemetry(options.telemetry),
    host: hostHooksOf(options),
  };
}

/** What a client over an already negotiated connection (`tasksFor`) cannot take. */
export function checkNegotiatedOptions(settings: ClientSettings): void {
  if (settings.telemetry !== undefined) {
    throw new TypeError("tasksFor: `telemetry` needs TaskClient.connect");
  }
}

/** The HTTP-only options, checked; a caller mistake (a bad header, an `auth` that is not one) throws here. */
function httpOptions(options: TaskClientOptions): HttpTransportOptions {
  const http: HttpTransportOptions = {};
  const checked = checkConnectionHeaders(options.headers);
  if (checked !== undefined) http.headers = checked;
  const auth = checkConnectionAuth(options);
  if (auth !== undefined) {
    if (
      typeof checked === "object" &&
      Object.keys(checked).some((name) => name.toLowerCase() === "authorization")
    ) {
      throw new TypeError("TaskClient: give either an `Authorization` header or `auth`, not both");
    }
    http.auth = auth;
  }
  return http;
}

function checkStore(store: TaskStore | undefined): TaskStore | undefined {
  if (store === undefined) return undefined;
  const methods = ["put", "remove", "list"] as const;
  if (typeof store !== "object" || store === null || methods.some((m) => typeof store[m] !== "function")) {
    throw new TypeError(mustBe("TaskClient", "store", "a TaskStore (put, remove, list)"));
  }
  return store;
}

/** How often adoption runs, by default (`adopt: true`). */
const DEFAULT_ADOPT_EVERY_MS = 1000;

function adoptEvery({ adopt, store }: TaskClientOptions): number | undefined {
  if (adopt === undefined || adopt === false) return undefined;
  if (adopt !== true) requireObject("TaskClient", "adopt", adopt);
  if (store === undefined) throw new TypeError("TaskClient: `adopt` needs a `store`");
  if (adopt === true) return DEFAULT_ADOPT_EVERY_MS;
  return positiveInteger("TaskClient", "adopt.everyMs", adopt.everyMs, undefined);
}

export const DEFAULT_CLIENT_INFO: Implementation = { name: "mcp-tasks", version: "0.1.0" };

export interface ResolvedClientOptions {
  clientInfo: Implementation;
  inputHandlers: InputHandlers;
  unansweredInput: UnansweredInputAction;
  inputConcurrency: number;
  maxServerRequests: number;
  maxInputRounds: number;
  maxInFlight: number;
  requestTimeoutMs: number;
  cancelGraceMs: number;
  ttlGraceMs: number;
  closeTimeoutMs: number;
  notifications: "auto" | "off";
  notificationSafetyNetMs: number;
  legacyTasks: LegacyTasksMode;
  maxMessageBytes: number;
  /** `false`: no check; `"bundled"`: `@cfworker/json-schema`, loaded on first need; or the validator given. */
  validateOutput: false | "bundled" | JsonSchemaValidator;
}

/** The client-wide options with their defaults (the timing options are `resolvePollTiming`'s and `resolveRetryTiming`'s). */
export function resolveClientOptions(options: TaskClientOptions): ResolvedClientOptions {
  const at = "TaskClient";
  if (options.inputHandlers !== undefined) checkInputHandlers(options.inputHandlers, at);
  return {
    clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
    inputHandlers: options.inputHandlers ?? {},
    unansweredInput:
      choice(at, "unansweredInput", options.unansweredInput, UNANSWERED_INPUT_ACTIONS) ??
      DEFAULT_UNANSWERED_INPUT_POLICY,
    inputConcurrency: positiveInteger(
      at,
      "inputConcurrency",
      options.inputConcurrency,
      DEFAULT_INPUT_CONCURRENCY,
    ),
    maxServerRequests: positiveInteger(
      at,
      "maxServerRequests",
      options.maxServerRequests,
      DEFAULT_MAX_SERVER_REQUESTS,
    ),
    maxInputRounds: positiveInteger(at, "maxInputRounds", options.maxInputRounds, DEFAULT_MAX_INPUT_ROUNDS),
    maxInFlight: positiveInteger(at, "maxInFlight", options.maxInFlight, DEFAULT_MAX_IN_FLIGHT),
    requestTimeoutMs: positiveInteger(
      at,
      "requestTimeoutMs",
      options.requestTimeoutMs,
      DEFAULT_REQUEST_TIMEOUT_MS,
    ),
    cancelGraceMs: nonNegative(at, "cancelGraceMs", options.cancelGraceMs, 10_000),
    ttlGraceMs: nonNegative(at, "ttlGraceMs", options.ttlGraceMs, 5_000),
    closeTimeoutMs: nonNegative(at, "closeTimeoutMs", options.closeTimeoutMs, 5_000),
    notifications: choice(at, "notifications", options.notifications, ["auto", "off"]) ?? "auto",
    notificationSafetyNetMs: positiveInteger(
      at,
      "notificationSafetyNetMs",
      options.notificationSafetyNetMs,
      DEFAULT_SAFETY_NET_MS,
    ),
    legacyTasks: choice(at, "legacyTasks", options.legacyTasks, LEGACY_TASKS_MODES) ?? "auto",
    maxMessageBytes: positiveInteger(
      at,
      "maxMessageBytes",
      options.maxMessageBytes,
      DEFAULT_MAX_MESSAGE_BYTES,
    ),
    validateOutput: validateOutputMode(options.validateOutput),
  };
}

const LEGACY_TASKS_MODES: readonly LegacyTasksMode[] = ["auto", "never"];

function validateOutputMode(value: unknown): ResolvedClientOptions["validateOutput"] {
  if (value === undefined || value === true) return "bundled";
  if (value === false) return false;
  if (
    typeof value === "object" &&
    value !== null &&
    typeof (value as JsonSchemaValidator).compile === "function"
  )
    return value as JsonSchemaValidator;
  throw new TypeError(mustBe("TaskClient", "validateOutput", "a boolean or a JsonSchemaValidator"));
}

/** Checks the arguments of `callTool`: its name, its arguments and its options. */
export function checkToolCall(name: unknown, args: unknown, options: unknown): void {
  const says = mustBe("callTool", "name", "a non-empty string");
  if (typeof name !== "string") throw new TypeError(`${says}, got ${kindOf(name)}`);
  if (name.length === 0) throw new RangeError(`${says}, got an empty string`);
  requirePlain("callTool", "args", args);
  checkCallOptions(options, "callTool");
}

/** Checks the task `task()` and `cancel()` take: a non-empty task id, or an object (read as a `TaskRef`). */
export function checkTaskArgument(task: unknown, caller: string): void {
  if (typeof task === "string") {
    if (task.length === 0) throw new RangeError(`${caller}: the task id must be a non-empty string`);
    return;
  }
  if (typeof task !== "object" || task === null) {
    throw new TypeError(`${caller}: expected a TaskRef or a task id, got ${kindOf(task)}`);
  }
}

/** Checks the options of a call (`callTool`) or of a handle for an existing task (`task`, `resume`). */
export function checkCallOptions(options: unknown, caller: string): void {
  requireObject(caller, "options", options);
  const { timeoutMs, deadline, signal, meta, inputHandlers, legacyTasks, taskTtlMs } = options as Record<
    string,
    unknown
  >;
  nonNegative(caller, "timeoutMs", timeoutMs, undefined);
  if (deadline !== undefined) {
    if (!(deadline instanceof Date)) nonNegative(caller, "deadline", deadline, undefined);
    else if (!(deadline.getTime() >= 0)) throw new RangeError(mustBe(caller, "deadline", "a valid Date"));
  }
  if (signal !== undefined && !isAbortSignalLike(signal)) {
    throw new TypeError(mustBe(caller, "signal", "an AbortSignal"));
  }
  if (meta !== undefined) requirePlain(caller, "meta", meta);
  if (inputHandlers !== undefined) checkInputHandlers(inputHandlers, caller);
  choice(caller, "legacyTasks", legacyTasks, LEGACY_TASKS_MODES);
  positiveInteger(caller, "taskTtlMs", taskTtlMs, undefined);
}

/** The absolute time (epoch ms) a checked call stops waiting, or undefined: the earlier of its two limits. */
export function deadlineOf(options: CallToolOptions, now: number): number | undefined {
  const { deadline, timeoutMs } = options;
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  const byTimeout = timeoutMs === undefined ? undefined : now + timeoutMs;
  if (at === undefined) return byTimeout;
  return byTimeout === undefined ? at : Math.min(at, byTimeout);
}

/** What `callTool` sends, with the 2025-11-25 options the dialect reads. */
export function callSpec(name: string, params: Record<string, unknown>, options: CallToolOptions): CallSpec {
  const call: CallSpec = { method: Method.toolsCall, params, toolName: name };
  if (options.legacyTasks !== undefined) call.legacyTasks = options.legacyTasks;
  if (options.taskTtlMs !== undefined) call.taskTtlMs = options.taskTtlMs;
  return call;
}

/* ---- The checks, each throwing the error type the rule above gives its kind of mistake ----------------- */

/** The one wording of every option mistake: who was called, which option, and what it takes. */
function mustBe(caller: string, name: string, expected: string): string {
  return `${caller}: \`${name}\` must be ${expected}`;
}

function requireObject(caller: string, name: string, value: unknown): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${mustBe(caller, name, "an object")}, got ${kindOf(value)}`);
  }
}

function requirePlain(
  caller: string,
  name: string,
  value: unknown,
): asserts value is Record<string, unknown> {
  if (!isPlainObject(value))
    throw new TypeError(`${mustBe(caller, name, "a plain object")}, got ${kindOf(value)}`);
}

/** A whole number ≥ 1 (and a safe integer), or `fallback` when not given. */
function positiveInteger<F extends number | undefined>(
  caller: string,
  name: string,
  value: unknown,
  fallback: F,
) {
  return numberIn(true, caller, name, value, fallback);
}

/** A finite number ≥ 0, or `fallback` when not given. */
export function nonNegative<F extends number | undefined>(
  caller: string,
  name: string,
  value: unknown,
  fallback: F,
) {
  return numberIn(false, caller, name, value, fallback);
}

/** A number option: `TypeError` when it is no number, `RangeError` out of its range. */
function numberIn<F extends number | undefined>(
  whole: boolean,
  caller: string,
  name: string,
  value: unknown,
  fallback: F,
): number | F {
  if (value === undefined) return fallback;
  const says = `${mustBe(caller, name, whole ? "a positive whole number" : "a finite number ≥ 0")}, got `;
  if (typeof value !== "number") throw new TypeError(says + kindOf(value));
  if (whole ? !(Number.isSafeInteger(value) && value >= 1) : !(Number.isFinite(value) && value >= 0)) {
    throw new RangeError(says + String(value));
  }
  return value;
}

/** One of `choices`, or undefined when not given. */
function choice<T extends string>(
  caller: string,
  name: string,
  value: unknown,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  const says = `${mustBe(caller, name, `one of ${choices.join(", ")}`)}, got `;
  if (typeof value !== "string") throw new TypeError(says + kindOf(value));
  if (!(choices as readonly string[]).includes(value)) throw new RangeError(says.slice(0, -6));
  return value as T;
}

function checkInputHandlers(handlers: unknown, caller: string): void {
  requirePlain(caller, "inputHandlers", handlers);
  for (const kind of ["elicitation", "sampling", "roots"]) {
    const handler = handlers[kind];
    if (handler !== undefined && typeof handler !== "function") {
      throw new TypeError(`${mustBe(caller, `inputHandlers.${kind}`, "a function")}, got ${kindOf(handler)}`);
    }
  }
}

/** An object literal or a null-prototype object: not an array, a class instance, or null. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** An `AbortSignal`, or anything shaped like one (a polyfill, another realm's signal). */
function isAbortSignalLike(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const signal = value as Record<string, unknown>;
  return (
    typeof signal.aborted === "boolean" &&
    typeof signal.addEventListener === "function" &&
    typeof signal.removeEventListener === "function"
  );
}

/** A short description of a value's kind for an error message; never the value itself (it may be a secret). */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return value.length === 0 ? "an empty string" : "a string";
  if (typeof value === "object") return "an object that is not plain";
  return typeof value;
}
