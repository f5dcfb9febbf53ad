/**
 * Input requests that arrive as server→client JSON-RPC requests (both eras: a 2025-11-25 server asks this way, and
 * any server may ask on a request's stream) reach the same `inputHandlers` as a task's `inputRequests`. A request
 * whose `_meta["io.modelcontextprotocol/related-task"]` names a task a live handle of this client follows goes to
 * that task's inbox (ledger, policy, `input` event, `respond`); any other goes straight to the handler for its
 * kind, with no task in its context, at most `concurrency` at once for the whole client (the others wait their
 * turn; the session bounds how many may wait). A kind without a handler was never declared, so the server should
 * not have asked: it gets -32601 and the logger hears of it. Methods that are not input requests are not served
 * here.
 */
import { ErrorCode, MetaKey } from "../protocol/constants.js";
import type { InputRequest } from "../schema/index.js";
import type { IncomingAnswer, IncomingRequest } from "../session/incoming.js";
import { createLimiter, type Limiter } from "./limit.js";
import { DEFAULT_INPUT_CONCURRENCY } from "./policy.js";
import { askHandler, hasHandler, INPUT_METHODS, readInputRequest } from "./requests.js";
import type { InputContext, InputHandlers } from "./types.js";

/** A live task that takes the server requests naming it. */
export interface TaskInputTarget {
  /** Undefined when the task no longer takes input (its handle just ended): the request is then served without it. */
  serverRequest(key: string, request: InputRequest, signal: AbortSignal): Promise<IncomingAnswer> | undefined;
}

export interface ServerRequestRouterOptions {
  handlers: InputHandlers;
  /** Which server asks, as handlers see it. */
  server: InputContext["server"];
  log: { warn(message: string, ...details: unknown[]): void };
  /** How many requests without a task are answered at once (`inputConcurrency`). Default 4. */
  concurrency?: number;
}

const INPUT_METHOD_NAMES: ReadonlySet<string> = new Set(Object.values(INPUT_METHODS));

/** A request withdrawn before its turn came (its answer is dropped by the session). */
const WITHDRAWN = Symbol("withdrawn");

/** The task a request names in `_meta["io.modelcontextprotocol/related-task"]`, if any. */
export function relatedTaskId(params: Record<string, unknown>): string | undefined {
  const meta = params._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  const related = (meta as Record<string, unknown>)[MetaKey.relatedTask];
  if (typeof related !== "object" || related === null) return undefined;
  const taskId = (related as Record<string, unknown>).taskId;
  return typeof taskId === "string" && taskId.length > 0 ? taskId : undefined;
}

export class ServerRequestRouter {
  private readonly tasks = new Map<string, TaskInputTarget>();
  private readonly limit: Limiter;

  constructor(private readonly options: ServerRequestRouterOptions) {
    this.limit = createLimiter(options.concurrency ?? DEFAULT_INPUT_CONCURRENCY);
  }

  /** A handle follows this task from now on: requests naming it go to `target`. */
  follow(taskId: string, target: TaskInputTarget): void {
    this.tasks.set(taskId, target);
  }

  /** The handle stopped following the task (only if `target` is still the one registered). */
  unfollow(taskId: string, target: TaskInputTarget): void {
    if (this.tasks.get(taskId) === target) this.tasks.delete(taskId);
  }

  /**
   * Whether a request belongs to a task this client follows. On a connection shared with an SDK Client these are
   * the only requests this client answers; the Client answers the rest.
   */
  claims(method: string, params: Record<string, unknown>): boolean {
    if (!INPUT_METHOD_NAMES.has(method)) return false;
    const taskId = relatedTaskId(params);
    return taskId !== undefined && this.tasks.has(taskId);
  }

  /** Serves one request; undefined for a method that is not an input request (the session answers -32601). */
  serve(request: IncomingRequest): Promise<IncomingAnswer> | undefined {
    const { id, method, params, signal } = request;
    if (!INPUT_METHOD_NAMES.has(method)) return undefined;
    const input: InputRequest = { method, params } as InputRequest;
    const taskId = relatedTaskId(params);
    const target = taskId === undefined ? undefined : this.tasks.get(taskId);
    return (
      target?.serverRequest(String(id), input, signal) ?? this.serveWithoutTask(String(id), input, signal)
    );
  }

  private async serveWithoutTask(
    key: string,
    request: InputRequest,
    signal: AbortSignal,
  ): Promise<IncomingAnswer> {
    const input = readInputRequest(request);
    if (!input.ok) {
      this.options.log.warn(`server request ${request.method}: ${input.reason}; answered with an error`);
      return { error: { code: ErrorCode.invalidParams, message: input.reason } };
    }
    if (!hasHandler(this.options.handlers, input.kind)) {
      this.options.log.warn(
        `the server sent ${request.method}, but no ${input.kind} handler was given (and the capability was not ` +
          "declared); answered -32601",
      );
      return { error: { code: ErrorCode.methodNotFound, message: `Method not found: ${request.method}` } };
    }
    const { server } = this.options;
    const context: InputContext = { taskId: undefined, key, toolName: undefined, server, signal };
    // A request the server cancelled while it waited for a slot never reaches the handler.
    const outcome = await this.limit<Awaited<ReturnType<typeof askHandler>> | typeof WITHDRAWN>(() =>
      signal.aborted ? Promise.resolve(WITHDRAWN) : askHandler(input, this.options.handlers, context),
    );
    if (outcome === WITHDRAWN) return { error: { code: ErrorCode.internalError, message: "cancelled" } };
    if (outcome.ok) return { result: outcome.response as unknown as Record<string, unknown> };
    this.options.log.warn(
      `server request ${request.method}: ${outcome.reason}; answered with an error`,
      outcome.cause,
    );
    return { error: { code: ErrorCode.internalError, message: "the client could not answer this request" } };
  }
}
