/**
 * The server→client requests of one task: `elicitation/create`, `sampling/createMessage` and `roots/list` sent as
 * JSON-RPC requests that name the task in `_meta["io.modelcontextprotocol/related-task"]` (the 2025-11-25
 * generation asks for input this way, on the `tasks/result` stream). They get what `inputRequests` of a 2026 task
 * get: an `input` event, the same handlers (several at once), `respond()`, the unanswerable-input policy, and a
 * ledger, so a request delivered twice is answered from memory and never shown twice. The answer goes back as the
 * JSON-RPC response instead of a `tasks/update`.
 *
 * The key of a request is its JSON-RPC id (as a string). Ids only need to be unique among open requests, so an id
 * the server uses again for a different request gets a suffixed key (`7#1`) instead of being taken for a repeat.
 */
import { ErrorCode } from "../protocol/constants.js";
import { McpTasksError, type InputUnansweredError } from "../protocol/errors.js";
import type { InputRequest, InputResponse } from "../schema/index.js";
import type { IncomingAnswer, IncomingError } from "../session/incoming.js";
import type { InputRequestEvent, UnansweredInputAction } from "../task/types.js";
import { observe } from "./batch.js";
import { InputRespondError } from "../protocol/errors.js";
import { fingerprint } from "./fingerprint.js";
import { InputLedger } from "./ledger.js";
import { createLimiter, type Limiter } from "./limit.js";
import { DEFAULT_INPUT_CONCURRENCY, actionFor, checkPolicy, declined, unansweredEvent } from "./policy.js";
import { askHandler, hasHandler, missingHandlerReason, readInputRequest, takeAnswer } from "./requests.js";
import type { ReadInput } from "./requests.js";
import type { InputContext, InputHandlers, InputUnansweredEvent } from "./types.js";

/** What the inbox needs from the task run that owns it. The `emit*` functions must not throw. */
export interface TaskInboxDeps {
  taskId: string;
  /** The tool whose call created the task, when known. */
  toolName: string | undefined;
  server: InputContext["server"];
  handlers: InputHandlers;
  policy?: UnansweredInputAction;
  concurrency?: number;
  emitInput(event: InputRequestEvent): void;
  emitUnanswered(event: InputUnansweredEvent): void;
  /** Policy `cancel`: cancel the task (a returned promise's rejection is dropped). */
  cancelTask(reason: InputUnansweredError): void | PromiseLike<unknown>;
  /** Policy `fail`: end the handle with this error. */
  fail(error: InputUnansweredError): void;
}

/** A request still waiting for its answer. */
interface OpenKey {
  raw: InputRequest;
  input: ReadInput;
  /** The JSON-RPC deliveries waiting for the answer (normally one). */
  waiters: Set<(answer: IncomingAnswer) => void>;
  /** Set while a handler runs; aborting it tells the handler its answer is no longer wanted. */
  controller?: AbortController;
  /** `respond()` callers, told when their answer has gone out. */
  delivered: { resolve(): void; reject(error: unknown): void }[];
}

/** Most suffixed keys for one JSON-RPC id: bounds the search for a free key. */
const MAX_KEY_REUSE = 64;

export class TaskInbox {
  private readonly ledger = new InputLedger();
  private readonly limiter: Limiter;
  private readonly policy: UnansweredInputAction;
  private readonly open = new Map<string, OpenKey>();
  /** The fingerprint of every key seen, so a reused id can be told from a repeat. */
  private readonly prints = new Map<string, string>();
  /** Answers delivered, to answer a repeat of the same request without asking again. */
  private readonly answers = new Map<string, InputResponse>();
  /** Errors sent for requests given up on, sent again for a repeat. */
  private readonly refusals = new Map<string, IncomingError>();
  private closed = false;

  constructor(private readonly deps: TaskInboxDeps) {
    this.policy = checkPolicy(deps.policy);
    this.limiter = createLimiter(deps.concurrency ?? DEFAULT_INPUT_CONCURRENCY);
  }

  /** Whether `key` is a request this inbox has seen (so `respond(key)` belongs here). */
  knows(key: string): boolean {
    return this.prints.has(key);
  }

  /**
   * Takes one server request naming this task; resolves with its answer. Undefined once the inbox is closed (the
   * caller then serves the request without a task). `signal` aborts when the server cancels the request.
   */
  receive(id: string, request: InputRequest, signal: AbortSignal): Promise<IncomingAnswer> | undefined {
    if (this.closed) return undefined;
    let print: string;
    try {
      print = fingerprint(request);
    } catch {
      return Promise.resolve(refusal(ErrorCode.invalidParams, "the request cannot be read"));
    }
    const key = this.keyFor(id, print);
    if (key === undefined) return Promise.resolve(refusal(ErrorCode.invalidRequest, "request id reused"));
    switch (this.ledger.offer(key, print)) {
      case "final":
        return Promise.resolve(this.repeatAnswer(key));
      case "resend": {
        const kept = this.ledger.pendingAnswer(key) as InputResponse;
        this.ledger.answered(key, kept);
        return Promise.resolve(this.resultFor(key, kept));
      }
      case "fresh": {
        const input = readInputRequest(request);
        this.open.set(key, { raw: request, input, waiters: new Set(), delivered: [] });
        const answer = this.wait(key, signal); // before the event: a listener may answer at once
        queueMicrotask(() => this.dispatch(key)); // after the event, so a listener may respond first
        this.deps.emitInput({ taskId: this.deps.taskId, key, request });
        return answer;
      }
      default:
        return this.wait(key, signal);
    }
  }

  /** Answers a key out of band (`handle.respond`); resolves once the answer has gone out to the server. */
  async respond(key: string, response: InputResponse): Promise<void> {
    if (this.closed) throw new InputRespondError(key, "closed");
    const state = this.ledger.state(key);
    if (state === "submitting" || state === "submitted" || state === "unanswered") {
      throw new InputRespondError(key, "already_answered");
    }
    const entry = this.open.get(key);
    if (entry === undefined || (state !== "offered" && state !== "answering")) {
      throw new InputRespondError(key, "unknown_key");
    }
    const answer = takeAnswer(key, entry, response);
    const done = new Promise<void>((resolve, reject) => entry.delivered.push({ resolve, reject }));
    done.catch(() => undefined); // a caller who does not wait must not see an unhandled rejection (closed client)
    this.answer(key, answer);
    return done;
  }

  /**
   * The handle ended: running handlers are aborted, and requests still waiting are refused (the server must not
   * wait for an answer nobody will give). Answers already on their way still go out.
   */
  dispose(reason: unknown = new McpTasksError("the task's input is closed")): void {
    if (this.closed) return;
    this.closed = true;
    for (const [key, entry] of this.open) {
      if (this.ledger.state(key) === "submitting") continue;
      entry.controller?.abort(reason);
      this.settleWaiters(entry, refusal(ErrorCode.internalError, "the client no longer follows this task"));
      this.open.delete(key);
    }
  }

  /* ---- Answering ------------------------------------------------------------------------------------ */

  private dispatch(key: string): void {
    const entry = this.open.get(key);
    if (this.closed || entry === undefined || this.ledger.state(key) !== "offered") return; // answered already
    const { input } = entry;
    if (!input.ok) this.giveUp(key, input.reason, ErrorCode.invalidParams, input.cause);
    else if (!hasHandler(this.deps.handlers, input.kind)) {
      this.giveUp(key, missingHandlerReason(input.kind), ErrorCode.methodNotFound);
    } else {
      void this.limiter(() => this.answerWithHandler(key));
    }
  }

  private async answerWithHandler(key: string): Promise<void> {
    const entry = this.open.get(key);
    if (this.closed || entry === undefined || this.ledger.state(key) !== "offered" || !entry.input.ok) return;
    const controller = new AbortController();
    entry.controller = controller;
    this.ledger.startAnswering(key);
    const { taskId, toolName, server, handlers } = this.deps;
    const context: InputContext = { taskId, key, toolName, server, signal: controller.signal };
    const outcome = await askHandler(entry.input, handlers, context);
    if (controller.signal.aborted || this.closed) return; // the answer is no longer wanted
    entry.controller = undefined;
    if (outcome.ok) this.answer(key, outcome.response);
    else this.giveUp(key, outcome.reason, ErrorCode.internalError, outcome.cause);
  }

  /** Applies the policy to a request nobody can answer; the server gets an error unless it is declined. */
  private giveUp(key: string, reason: string, code: number, cause?: unknown): void {
    const entry = this.open.get(key);
    if (entry === undefined || this.closed) return;
    const action = actionFor(this.policy, entry.input.method);
    const { taskId } = this.deps;
    const event = unansweredEvent(taskId, key, entry.raw, entry.input.method, reason, action, cause);
    if (action === "decline") {
      this.deps.emitUnanswered(event);
      this.answer(key, declined());
      return;
    }
    this.ledger.unanswered(key);
    // The handler's own error stays here: its text may carry app details the server has no business seeing.
    const error: IncomingError = {
      code,
      message: code === ErrorCode.internalError ? "the client could not answer this request" : reason,
    };
    this.refusals.set(key, error);
    this.settleWaiters(entry, { error });
    this.open.delete(key);
    this.deps.emitUnanswered(event);
    if (this.closed) return;
    this.dispose(event.error);
    if (action === "cancel") observe(this.deps.cancelTask(event.error));
    else this.deps.fail(event.error);
  }

  /** An answer exists (handler, `respond`, decline): it goes out as the JSON-RPC response. */
  private answer(key: string, response: InputResponse): void {
    const entry = this.open.get(key);
    this.ledger.answered(key, response);
    if (entry !== undefined) this.settleWaiters(entry, this.resultFor(key, response));
  }

  private resultFor(key: string, response: InputResponse): IncomingAnswer {
    return {
      result: response as unknown as Record<string, unknown>,
      sent: (failure) => this.sent(key, failure),
    };
  }

  /** The session tells whether the response went out; a failed one is kept and sent again for a repeat. */
  private sent(key: string, failure: unknown): void {
    if (this.ledger.state(key) !== "submitting") return;
    const entry = this.open.get(key);
    this.open.delete(key);
    if (failure === undefined) {
      this.answers.set(key, this.ledger.pendingAnswer(key) as InputResponse);
      this.ledger.submitted([key]);
      for (const { resolve } of entry?.delivered ?? []) resolve();
    } else {
      this.ledger.released([key]);
      for (const { reject } of entry?.delivered ?? []) reject(failure);
    }
  }

  /* ---- Bookkeeping ---------------------------------------------------------------------------------- */

  /** Waits for the key's answer; the server cancelling its request withdraws the key once nobody waits. */
  private wait(key: string, signal: AbortSignal): Promise<IncomingAnswer> {
    const entry = this.open.get(key);
    if (entry === undefined) return Promise.resolve(this.repeatAnswer(key));
    return new Promise((resolve) => {
      const waiter = (answer: IncomingAnswer) => {
        signal.removeEventListener("abort", onAbort);
        resolve(answer);
      };
      const onAbort = () => {
        entry.waiters.delete(waiter);
        resolve(refusal(ErrorCode.internalError, "cancelled")); // the session drops it: the server cancelled
        if (entry.waiters.size > 0 || this.open.get(key) !== entry) return;
        if (this.ledger.state(key) === "submitting") return; // the answer is already on its way
        entry.controller?.abort(new McpTasksError("the server cancelled its request"));
        this.ledger.withdrawn(key);
        this.open.delete(key);
      };
      entry.waiters.add(waiter);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private settleWaiters(entry: OpenKey, answer: IncomingAnswer): void {
    const waiters = [...entry.waiters];
    entry.waiters.clear();
    for (const waiter of waiters) waiter(answer);
  }

  /** The answer for a repeat of a request already dealt with. */
  private repeatAnswer(key: string): IncomingAnswer {
    const kept = this.answers.get(key);
    if (kept !== undefined) return { result: kept as unknown as Record<string, unknown> };
    return {
      error: this.refusals.get(key) ?? { code: ErrorCode.internalError, message: "already answered" },
    };
  }

  /** The key for a request: its id, or the id with a suffix when the id was used for another request. */
  private keyFor(id: string, print: string): string | undefined {
    for (let n = 0; n < MAX_KEY_REUSE; n++) {
      const key = n === 0 ? id : `${id}#${n}`;
      const known = this.prints.get(key);
      if (known === undefined) this.prints.set(key, print);
      if (known === undefined || known === print) return key;
    }
    return undefined;
  }
}

function refusal(code: number, message: string): IncomingAnswer {
  return { error: { code, message } };
}
