/**
 * Answers the input requests of one task (`status: "input_required"`): every new key goes to its handler, several
 * at once; answers that are ready together go back in one `tasks/update`; the ledger makes sure no request is
 * shown twice, answered twice, or lost. The task driver feeds it every snapshot and wires its side effects
 * (events, polling, cancel, fail) through {@link InputCoordinatorDeps}.
 *
 * Create it when a task first asks for input: most tasks never do, and until then it would only hold memory.
 */
import { Method, isTerminalStatus } from "../protocol/constants.js";
import { McpTasksError, ProtocolError, InputRespondError } from "../protocol/errors.js";
import type { InputRequest, InputResponse } from "../schema/index.js";
import { DEFAULT_RETRY_TIMING } from "../scheduler/timing.js";
import type { RetryTiming } from "../scheduler/types.js";
import type { UnansweredInputAction } from "../task/types.js";
import type { AnsweredInput } from "../task/state.js";
import { fingerprint } from "./fingerprint.js";
import { InputLedger } from "./ledger.js";
import { createLimiter, type Limiter } from "./limit.js";
import {
  DEFAULT_INPUT_CONCURRENCY,
  DEFAULT_MAX_UPDATE_FAILURES,
  actionFor,
  checkPolicy,
  declined,
  unansweredEvent,
} from "./policy.js";
import {
  askHandler,
  hasHandler,
  missingHandlerReason,
  quote,
  readInputRequest,
  type ReadInput,
  takeAnswer,
} from "./requests.js";
import type { InputCoordinatorDeps, InputSnapshot } from "./coordinator-deps.js";

export type { InputCoordinatorDeps, InputSnapshot };
import type { InputContext, InputUnansweredEvent } from "./types.js";
import { observe, openBatch, sendUpdate, type Batch } from "./batch.js";

/** A key the app can still answer, with what is needed to answer it. */
interface LiveKey {
  /** The request as the server sent it. */
  raw: unknown;
  input: ReadInput;
  /** Set while a handler runs; aborting it tells the handler its answer is no longer wanted. */
  controller?: AbortController;
}

interface GiveUp {
  key: string;
  reason: string;
  cause?: unknown;
}

export class InputCoordinator implements AnsweredInput {
  private ledger: InputLedger | undefined;
  private readonly limiter: Limiter;
  private readonly live = new Map<string, LiveKey>();
  private batch: Batch | undefined;
  private readonly running = new Set<Promise<unknown>>();
  private readonly lifetime = new AbortController();
  private readonly policy: UnansweredInputAction;
  private readonly maxUpdateFailures: number;
  private readonly retry: RetryTiming;
  private readonly onAbort = () => this.dispose(this.deps.signal?.reason);

  constructor(private readonly deps: InputCoordinatorDeps) {
    this.policy = checkPolicy(deps.policy);
    this.limiter = createLimiter(deps.concurrency ?? DEFAULT_INPUT_CONCURRENCY);
    this.retry = deps.retry ?? DEFAULT_RETRY_TIMING;
    this.maxUpdateFailures = deps.maxUpdateFailures ?? DEFAULT_MAX_UPDATE_FAILURES;
    if (!Number.isInteger(this.maxUpdateFailures) || this.maxUpdateFailures < 1) {
      throw new RangeError(
        `maxUpdateFailures must be a positive integer, got ${String(deps.maxUpdateFailures)}`,
      );
    }
    if (deps.signal?.aborted) this.lifetime.abort(deps.signal.reason);
    else deps.signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** Keys whose answers the server acknowledged (for the task's ref). */
  answeredKeys(): string[] {
    return this.ledger?.submittedKeys() ?? [...(this.deps.answered ?? [])];
  }

  /** Whether the answer for `key` went out in a `tasks/update` (acknowledged or on its way), or did before a resume. */
  answered(key: string): boolean {
    const state = this.ledger?.state(key);
    if (state === undefined) return this.deps.answered?.includes(key) ?? false;
    return state === "submitting" || state === "submitted";
  }

  /** Answers given and not yet acknowledged, by key (for the task's ref). */
  pendingAnswers(): Record<string, InputResponse> {
    return this.ledger?.pendingAnswers() ?? { ...this.deps.pending };
  }

  /** Whether the coordinator has stopped (task ended, policy applied, protocol error, or disposed). */
  get closed(): boolean {
    return this.lifetime.signal.aborted;
  }

  /**
   * Takes one accepted snapshot of the task. `input_required`: new keys are offered, repeats are ignored, keys
   * no longer listed stop being asked. Any other non-terminal status: every key still waiting is no longer
   * wanted. A terminal status disposes the coordinator. `source` names the method the snapshot came from.
   */
  observe(snapshot: InputSnapshot, source: string = Method.tasksGet): void {
    if (this.closed) return;
    if (isTerminalStatus(snapshot.status)) {
      this.dispose(new McpTasksError(`the task ended (${snapshot.status})`));
      return;
    }
    const requests = snapshot.status === "input_required" ? snapshot.inputRequests : {};
    if (typeof requests !== "object" || requests === null || Array.isArray(requests)) {
      this.stop(new ProtocolError("inputRequests is not an object", source, snapshot));
      return;
    }
    const entries = Object.entries(requests as Record<string, unknown>);
    if (entries.length === 0 && this.ledger === undefined) return;

    let listed: Map<string, string>;
    try {
      listed = new Map(entries.map(([key, raw]) => [key, fingerprint(raw)]));
    } catch (error) {
      this.stop(new ProtocolError("an input request cannot be read", source, snapshot, { cause: error }));
      return;
    }
    this.ledger ??= new InputLedger(this.deps.answered, Object.entries(this.deps.pending ?? {}));
    const changes = this.ledger.observe(listed);
    const [conflict] = changes.conflicts;
    if (conflict !== undefined) {
      this.stop(
        new ProtocolError(
          `input key ${quote(conflict)} was reused for a different request`,
          source,
          snapshot,
        ),
      );
      return;
    }
    for (const key of changes.vanished) {
      this.live
        .get(key)
        ?.controller?.abort(new McpTasksError(`input request ${quote(key)} is no longer listed`));
      this.live.delete(key);
    }
    for (const key of this.live.keys()) {
      // A key whose update failed and that the server no longer lists is not outstanding any more (its answer
      // stays in the ledger, and goes out again if the key is listed again).
      if (!listed.has(key) && this.ledger.state(key) === "released") this.live.delete(key);
    }
    const byKey = requests as Record<string, unknown>;
    for (const key of changes.resend) this.resend(key, byKey[key]);
    if (changes.fresh.length === 0) return;
    for (const key of changes.fresh)
      this.live.set(key, { raw: byKey[key], input: readInputRequest(byKey[key]) });
    // Handlers start after the `input` events, so a listener that answers at once (respond) wins the key.
    queueMicrotask(() => this.dispatch(changes.fresh));
    for (const key of changes.fresh) {
      this.deps.emitInput({ taskId: this.deps.taskId, key, request: byKey[key] as InputRequest });
    }
  }

  /**
   * Answers a key out of band (`handle.respond`). A handler already working on it is aborted; a key waiting for
   * a handler slot never reaches one. Resolves when the server acknowledged the update carrying the answer;
   * rejects with `InputRespondError` when the answer cannot be taken, or with the update's error (the answer is
   * then kept and re-sent if the server still lists the key).
   */
  async respond(key: string, response: InputResponse): Promise<void> {
    if (this.closed) throw new InputRespondError(key, "closed");
    const state = this.ledger?.state(key);
    const live = this.live.get(key);
    if (state === "submitting" || state === "submitted" || state === "unanswered") {
      throw new InputRespondError(key, "already_answered");
    }
    if (live === undefined || (state !== "offered" && state !== "answering" && state !== "released")) {
      throw new InputRespondError(key, "unknown_key");
    }
    return this.submit(key, takeAnswer(key, live, response));
  }

  /** Stops everything: running handlers are aborted, nothing more is sent. Safe to call more than once. */
  dispose(reason: unknown = new McpTasksError("the input coordinator was disposed")): void {
    if (this.closed) return;
    this.deps.signal?.removeEventListener("abort", this.onAbort);
    this.lifetime.abort(reason);
    for (const live of this.live.values()) live.controller?.abort(reason);
    this.live.clear();
    this.batch?.reject(reason);
    this.batch = undefined;
  }

  /** Resolves when no handler runs and no update is in flight (for tests and orderly shutdown). */
  async whenIdle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /* ---- Answering ---------------------------------------------------------------------------------------- */

  /** Sends each fresh key to its handler, or to the policy when nobody can answer it. */
  private dispatch(keys: readonly string[]): void {
    if (this.closed) return;
    const unanswerable: GiveUp[] = [];
    for (const key of keys) {
      const live = this.live.get(key);
      if (live === undefined || this.ledger?.state(key) !== "offered") continue; // answered out of band
      const { input } = live;
      if (!input.ok) unanswerable.push({ key, reason: input.reason, cause: input.cause });
      else if (!hasHandler(this.deps.handlers, input.kind)) {
        unanswerable.push({ key, reason: missingHandlerReason(input.kind) });
      } else {
        this.track(this.limiter(() => this.answerWithHandler(key)));
      }
    }
    this.giveUp(unanswerable, true);
  }

  private async answerWithHandler(key: string): Promise<void> {
    const live = this.live.get(key);
    const ledger = this.ledger;
    // Checked again: while the key waited for a slot it may have been answered, superseded or the task ended.
    if (this.closed || live === undefined || ledger?.state(key) !== "offered" || !live.input.ok) return;
    const controller = new AbortController();
    live.controller = controller;
    ledger.startAnswering(key);
    const { taskId, toolName, server, handlers } = this.deps;
    const context: InputContext = { taskId, key, toolName, server, signal: controller.signal };
    const outcome = await askHandler(live.input, handlers, context);
    if (controller.signal.aborted || this.closed) return; // the answer is no longer wanted
    live.controller = undefined;
    if (outcome.ok) void this.submit(key, outcome.response);
    else this.giveUp([{ key, reason: outcome.reason, cause: outcome.cause }], true);
  }

  /**
   * Applies the policy to keys nobody can answer; each is reported. `decline` answers; `cancel` and `fail` end
   * the task's input once, for the first key, after every key has been reported.
   */
  private giveUp(items: readonly GiveUp[], canDecline: boolean): void {
    let ending: InputUnansweredEvent | undefined;
    for (const { key, reason, cause } of items) {
      const live = this.live.get(key);
      if (this.closed) return;
      if (live === undefined) continue;
      const action = actionFor(this.policy, live.input.method, canDecline);
      const event = unansweredEvent(
        this.deps.taskId,
        key,
        live.raw,
        live.input.method,
        reason,
        action,
        cause,
      );
      if (action === "decline") {
        this.deps.emitUnanswered(event);
        void this.submit(key, declined());
        continue;
      }
      this.ledger?.unanswered(key);
      this.live.delete(key);
      this.deps.emitUnanswered(event);
      ending ??= event;
    }
    if (ending === undefined || this.closed) return;
    this.dispose(ending.error);
    if (ending.action === "cancel") observe(this.deps.cancelTask(ending.error));
    else this.deps.fail(ending.error);
  }

  /* ---- Sending answers ---------------------------------------------------------------------------------- */

  /**
   * A key whose update failed is listed again: its kept answer goes into the next update. The user (or handler)
   * is not asked again and no `input` event is emitted: the question was already answered.
   */
  private resend(key: string, raw: unknown): void {
    const answer = this.ledger?.pendingAnswer(key);
    if (answer === undefined) return; // cannot happen: a released key always keeps its answer
    if (!this.live.has(key)) this.live.set(key, { raw, input: readInputRequest(raw) });
    void this.submit(key, answer);
  }

  /** Puts an answer into the next `tasks/update`; answers ready in the same turn share one request. */
  private submit(key: string, response: InputResponse): Promise<void> {
    this.ledger?.answered(key, response);
    if (this.batch === undefined) {
      const batch = openBatch();
      this.batch = batch;
      queueMicrotask(() => {
        if (this.batch === batch) this.batch = undefined;
        this.track(this.send(batch));
      });
    }
    this.batch.responses.set(key, response);
    return this.batch.done;
  }

  private async send(batch: Batch): Promise<void> {
    if (this.closed) {
      batch.reject(this.lifetime.signal.reason);
      return;
    }
    const keys = [...batch.responses.keys()];
    try {
      await sendUpdate(this.deps.channel, this.deps.taskId, batch, {
        retry: this.retry,
        signal: this.lifetime.signal,
        onRetry: (event) => this.deps.emitRetry?.(event),
        store: this.deps.storeAnswers, // before each attempt (./batch.ts)
      });
    } catch (error) {
      batch.reject(error);
      if (this.closed) return;
      if (error instanceof ProtocolError) {
        this.ledger?.submitted(keys);
        this.stop(error);
      } else {
        this.release(keys, error);
      }
      return;
    }
    this.ledger?.submitted(keys);
    this.deps.submitted?.(keys);
    batch.resolve();
    if (this.closed) return;
    for (const key of keys) this.live.delete(key);
    this.deps.pollSoon();
  }

  /**
   * The update failed: the ledger keeps its answers, and they are re-sent (not asked again) when a snapshot
   * still lists their keys. A key whose updates keep failing is given up, so a server that rejects an answer
   * cannot make the client re-send it forever. `decline` is not possible then (it would need the same failing
   * update).
   */
  private release(keys: readonly string[], error: unknown): void {
    const ledger = this.ledger;
    if (ledger === undefined) return;
    ledger.released(keys);
    const exhausted = keys.filter((key) => ledger.failedUpdates(key) >= this.maxUpdateFailures);
    const reason = `the server did not take the answer after ${this.maxUpdateFailures} tasks/update attempts`;
    this.giveUp(
      exhausted.map((key) => ({ key, reason, cause: error })),
      false,
    );
  }

  /** Ends the task's input because the server broke the rules. */
  private stop(error: ProtocolError): void {
    this.dispose(error);
    this.deps.fail(error);
  }

  private track(work: Promise<unknown>): void {
    const settled = work.catch(() => undefined);
    this.running.add(settled);
    void settled.finally(() => this.running.delete(settled));
  }
}
