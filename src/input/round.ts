/**
 * One round of multi-round-trip input (before a task exists): every request of an `input_required` result must be
 * answered before the request is sent again. Keys are offered as `input` events, answered by handlers (several at
 * once) or by `respond`, and anything unanswerable goes to the policy. Nothing is remembered across rounds: each
 * round is a new question from a stateless server.
 */
import { TaskCancelledError, InputRespondError } from "../protocol/errors.js";
import type { InputRequest, InputResponse, InputResponses } from "../schema/index.js";
import type { InputRequestEvent, UnansweredInputAction } from "../task/types.js";
import type { Limiter } from "./limit.js";
import { actionFor, declined, unansweredEvent } from "./policy.js";
import {
  askHandler,
  hasHandler,
  missingHandlerReason,
  readInputRequest,
  type ReadInput,
  takeAnswer,
} from "./requests.js";
import type { InputContext, InputHandlers, InputUnansweredEvent } from "./types.js";

/** What every round of one call shares. */
export interface RoundSetup {
  handlers: InputHandlers;
  policy: UnansweredInputAction;
  limiter: Limiter;
  toolName: string;
  server: InputContext["server"];
  emitInput?(event: InputRequestEvent): void;
  emitUnanswered?(event: InputUnansweredEvent): void;
}

interface RoundKey {
  raw: unknown;
  input: ReadInput;
  controller?: AbortController;
  /** The policy ended this key without an answer. */
  unanswered?: boolean;
}

export class InputRound {
  private readonly keys = new Map<string, RoundKey>();
  private readonly answers = new Map<string, InputResponse>();
  private finished = false;
  private resolve!: (responses: InputResponses) => void;
  private reject!: (error: unknown) => void;
  /** Resolves with one answer per key, or rejects when the policy ends the call or the round is aborted. */
  readonly done: Promise<InputResponses>;

  constructor(
    requests: Record<string, unknown>,
    private readonly setup: RoundSetup,
  ) {
    this.done = new Promise<InputResponses>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    for (const [key, raw] of Object.entries(requests))
      this.keys.set(key, { raw, input: readInputRequest(raw) });
  }

  /** Offers every key, then (a microtask later, so a listener may `respond` first) asks the handlers. */
  start(): Promise<InputResponses> {
    if (this.keys.size === 0) this.finish();
    queueMicrotask(() => this.dispatch());
    for (const [key, { raw }] of this.keys) {
      this.setup.emitInput?.({ taskId: undefined, key, request: raw as InputRequest });
    }
    return this.done;
  }

  /** Answers a key of this round out of band; a handler working on it is aborted. */
  respond(key: string, response: InputResponse): void {
    const entry = this.keys.get(key);
    if (entry === undefined) throw new InputRespondError(key, "unknown_key");
    if (this.answers.has(key) || entry.unanswered) throw new InputRespondError(key, "already_answered");
    if (this.finished) throw new InputRespondError(key, "closed");
    this.accept(key, takeAnswer(key, entry, response));
  }

  /** Stops the round: running handlers are aborted and `done` rejects with `reason`. */
  abort(reason: unknown): void {
    if (this.finished) return;
    this.finished = true;
    for (const entry of this.keys.values()) entry.controller?.abort(reason);
    this.reject(reason);
  }

  private dispatch(): void {
    for (const [key, entry] of this.keys) {
      if (this.finished) return;
      if (this.answers.has(key)) continue; // answered out of band
      const { input } = entry;
      if (!input.ok) this.giveUp(key, input.reason, input.cause);
      else if (!hasHandler(this.setup.handlers, input.kind))
        this.giveUp(key, missingHandlerReason(input.kind));
      else void this.setup.limiter(() => this.answerWithHandler(key, entry));
    }
  }

  private async answerWithHandler(key: string, entry: RoundKey): Promise<void> {
    if (this.finished || this.answers.has(key) || !entry.input.ok) return;
    const controller = new AbortController();
    entry.controller = controller;
    const { handlers, toolName, server } = this.setup;
    const context: InputContext = { taskId: undefined, key, toolName, server, signal: controller.signal };
    const outcome = await askHandler(entry.input, handlers, context);
    if (controller.signal.aborted || this.finished) return;
    entry.controller = undefined;
    if (outcome.ok) this.accept(key, outcome.response);
    else this.giveUp(key, outcome.reason, outcome.cause);
  }

  /** Applies the policy: `decline` answers; `cancel` and `fail` end the call (no task exists to cancel). */
  private giveUp(key: string, reason: string, cause?: unknown): void {
    const entry = this.keys.get(key);
    if (entry === undefined || this.finished) return;
    const action = actionFor(this.setup.policy, entry.input.method);
    const event = unansweredEvent(undefined, key, entry.raw, entry.input.method, reason, action, cause);
    this.setup.emitUnanswered?.(event);
    if (action === "decline") {
      this.accept(key, declined());
      return;
    }
    entry.unanswered = true;
    this.abort(action === "cancel" ? new TaskCancelledError(undefined, false, event.error) : event.error);
  }

  private accept(key: string, response: InputResponse): void {
    this.answers.set(key, response);
    if (this.answers.size === this.keys.size) this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.resolve(Object.fromEntries(this.answers));
  }
}
