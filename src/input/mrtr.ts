/**
 * Multi-round-trip input before a task exists: a `tools/call` answered with `resultType: "input_required"` is
 * answered with the same handlers and policy as task input, then sent again with `inputResponses` and the
 * `requestState` echoed unchanged, until the server gives a final answer (a result, or a task). Core MRTR rules
 * R1–R4 of the requestor checklist; the caller's `resend` makes each retry a new request with the full envelope.
 *
 * MRTR keys and task keys are independent (SEP "Composition with MRTR"): nothing here is shared with the task's
 * ledger.
 */
import { Method, ResultKind } from "../protocol/constants.js";
import { ProtocolError, InputRespondError } from "../protocol/errors.js";
import type { InputResponse, InputResponses } from "../schema/index.js";
import type { InputRequestEvent, UnansweredInputAction } from "../task/types.js";
import { fingerprint } from "./fingerprint.js";
import { createLimiter } from "./limit.js";
import { DEFAULT_INPUT_CONCURRENCY, DEFAULT_MAX_INPUT_ROUNDS, checkPolicy } from "./policy.js";
import { InputRound, type RoundSetup } from "./round.js";
import type { InputContext, InputHandlers, InputUnansweredEvent } from "./types.js";

export interface InputRoundsOptions {
  handlers: InputHandlers;
  /** What to do with input that cannot be answered. Default `"fail"` (see `policy.ts`). */
  policy?: UnansweredInputAction;
  /** Handlers running at once within a round. Default 4. */
  concurrency?: number;
  /** Most retries before the call fails with a `ProtocolError`. Default 10. */
  maxRounds?: number;
  /** Shown to handlers: the tool being called and the server asking. */
  context: { toolName: string; server: InputContext["server"] };
  /** Aborts the rounds: running handlers are aborted and the call rejects with `signal.reason`. */
  signal?: AbortSignal;
  emitInput?(event: InputRequestEvent): void;
  emitUnanswered?(event: InputUnansweredEvent): void;
  /** The request being retried, for error messages. Default `tools/call`. */
  method?: string;
}

/** What a retry adds to the original params. Absent members are not sent. */
export interface InputRetry {
  inputResponses?: InputResponses;
  requestState?: string;
}

export interface RunInputRoundsOptions extends InputRoundsOptions {
  /** The result that asked for input (`resultType: "input_required"`), as received or as classified. */
  first: object;
  /** Sends the original request again, as a new request, with `retry` merged into its params. */
  resend(retry: InputRetry): Promise<Record<string, unknown>>;
}

/**
 * Runs the input rounds of one call. Use the class when the app may answer out of band (`respond`); use
 * {@link runInputRounds} otherwise.
 */
export class InputRounds {
  private readonly setup: RoundSetup;
  private readonly maxRounds: number;
  private readonly method: string;
  private round: InputRound | undefined;

  constructor(private readonly options: InputRoundsOptions) {
    this.maxRounds = options.maxRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
    if (!Number.isInteger(this.maxRounds) || this.maxRounds < 1) {
      throw new RangeError(`maxRounds must be a positive integer, got ${String(options.maxRounds)}`);
    }
    this.method = options.method ?? Method.toolsCall;
    this.setup = {
      handlers: options.handlers,
      policy: checkPolicy(options.policy),
      limiter: createLimiter(options.concurrency ?? DEFAULT_INPUT_CONCURRENCY),
      toolName: options.context.toolName,
      server: options.context.server,
      emitInput: options.emitInput,
      emitUnanswered: options.emitUnanswered,
    };
  }

  /**
   * Answers rounds until the server's answer is not `input_required`, and returns that answer unclassified (the
   * caller classifies it like any first answer: a result or a task). Rejects with `ProtocolError` when the
   * server keeps asking beyond the cap, repeats a round without progress, or sends an unreadable round; with
   * `InputUnansweredError` or `TaskCancelledError` when the policy ends the call; with whatever `resend` rejects
   * with; with `signal.reason` when aborted.
   */
  async run(
    first: object,
    resend: (retry: InputRetry) => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    try {
      return await this.loop(first, resend);
    } finally {
      this.round = undefined;
    }
  }

  /** Answers a key of the current round out of band. Throws `InputRespondError` when it cannot be taken. */
  async respond(key: string, response: InputResponse): Promise<void> {
    if (this.round === undefined) {
      throw new InputRespondError(key, "unknown_key");
    }
    this.round.respond(key, response);
  }

  private async loop(
    first: object,
    resend: (retry: InputRetry) => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    let result: unknown = first;
    let previous: { requests: string; requestState: string | undefined } | undefined;
    for (let retries = 0; isInputRequired(result); retries++) {
      this.options.signal?.throwIfAborted();
      const { inputRequests, requestState } = this.readRound(result);
      if (retries >= this.maxRounds) {
        throw new ProtocolError(
          `the server still asked for input after ${this.maxRounds} rounds`,
          this.method,
          result,
        );
      }
      const requests = this.fingerprintOf(inputRequests, result);
      if (previous?.requests === requests && previous.requestState === requestState) {
        throw new ProtocolError(
          "the server asked for the same input with the same requestState again: the exchange is not advancing",
          this.method,
          result,
        );
      }
      previous = { requests, requestState };
      const inputResponses = await this.answer(inputRequests);
      const retry: InputRetry = {};
      if (Object.keys(inputRequests).length > 0) retry.inputResponses = inputResponses;
      if (requestState !== undefined) retry.requestState = requestState; // echoed exactly, never inspected
      result = await resend(retry);
    }
    if (typeof result !== "object" || result === null || Array.isArray(result)) {
      throw new ProtocolError("answered a retry with a result that is not an object", this.method, result);
    }
    return result as Record<string, unknown>;
  }

  private async answer(inputRequests: Record<string, unknown>): Promise<InputResponses> {
    const round = new InputRound(inputRequests, this.setup);
    this.round = round;
    const signal = this.options.signal;
    const onAbort = () => round.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await round.start();
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  private readRound(result: Record<string, unknown>): {
    inputRequests: Record<string, unknown>;
    requestState: string | undefined;
  } {
    const { inputRequests = {}, requestState } = result;
    if (typeof inputRequests !== "object" || inputRequests === null || Array.isArray(inputRequests)) {
      throw new ProtocolError("inputRequests is not an object", this.method, result);
    }
    if (requestState !== undefined && typeof requestState !== "string") {
      throw new ProtocolError("requestState is not a string", this.method, result);
    }
    return { inputRequests: inputRequests as Record<string, unknown>, requestState };
  }

  private fingerprintOf(inputRequests: Record<string, unknown>, result: unknown): string {
    try {
      return fingerprint(inputRequests);
    } catch (error) {
      throw new ProtocolError("an input request cannot be read", this.method, result, { cause: error });
    }
  }
}

/** Runs the input rounds of one call with handlers only (no out-of-band answers). See {@link InputRounds.run}. */
export function runInputRounds(options: RunInputRoundsOptions): Promise<Record<string, unknown>> {
  return new InputRounds(options).run(options.first, options.resend);
}

function isInputRequired(result: unknown): result is Record<string, unknown> {
  return (
    typeof result === "object" &&
    result !== null &&
    (result as { resultType?: unknown }).resultType === ResultKind.inputRequired
  );
}
