/**
 * The contract between the input coordinator and the task run that owns it: what the coordinator needs, and the
 * part of a task snapshot it reads.
 */
import type { ProtocolError, InputUnansweredError } from "../protocol/errors.js";
import type { RetryTiming } from "../scheduler/types.js";
import type { RpcChannel } from "../session/types.js";
import type { InputRequestEvent, RetryEvent, UnansweredInputAction } from "../task/types.js";
import type { InputResponse } from "../schema/index.js";
import type { InputContext, InputHandlers, InputUnansweredEvent } from "./types.js";

/** What the coordinator needs from the task driver. The `emit*` functions must not throw. */
export interface InputCoordinatorDeps {
  /** Where `tasks/update` goes (the session adds the envelope). */
  channel: RpcChannel;
  taskId: string;
  /** The tool whose call created the task (shown to handlers); undefined for a task resumed by its id alone. */
  toolName: string | undefined;
  /** Which server asks (shown to handlers). */
  server: InputContext["server"];
  handlers: InputHandlers;
  /** What to do with input that cannot be answered. Default `"fail"` (see `policy.ts`). */
  policy?: UnansweredInputAction;
  /** Handlers running at once for this task. Default 4. */
  concurrency?: number;
  /** Failed `tasks/update` requests carrying one key before the key is given up. Default 3. */
  maxUpdateFailures?: number;
  /**
   * Backoff for transient `tasks/update` faults: pass the client's resolved `retry` options, so updates follow
   * the same policy as polls (`retryDelay`). Default {@link DEFAULT_RETRY_TIMING}, which ignores the client's.
   */
  retry?: RetryTiming;
  /** Keys answered before (a task resumed from its ref): they are never asked again. */
  answered?: readonly string[];
  /** Answers given before and never acknowledged (a task resumed from its ref): re-sent, never asked again. */
  pending?: Readonly<Record<string, InputResponse>>;
  /**
   * Answers are about to go into a `tasks/update`: resolve once the task's stored ref holds them
   * ({@link InputCoordinator.pendingAnswers}). A rejection means they are not stored: the update is not sent,
   * and counts as a failed one (the answers go out again if the server still lists their keys).
   */
  storeAnswers?(): Promise<void>;
  /** Aborted when the task's answers are no longer wanted (handle ended, detached, client closed). */
  signal?: AbortSignal;
  /** A key is offered (handle event `input`). */
  emitInput(event: InputRequestEvent): void;
  /** A key could not be answered and the policy was applied (handle event `inputUnanswered`). */
  emitUnanswered(event: InputUnansweredEvent): void;
  /**
   * A `tasks/update` is retried after a transient fault (handle event `retry`), once per retry. Default: not
   * reported.
   */
  emitRetry?(event: RetryEvent): void;
  /** An update was acknowledged: poll once promptly, then resume the usual cadence. */
  pollSoon(): void;
  /** The server acknowledged these keys' answers (a task's stored ref records them). */
  submitted?(keys: readonly string[]): void;
  /**
   * Policy `cancel`: send `tasks/cancel` and keep observing for the server's final word. A returned promise is
   * observed here (its rejection is dropped: the driver reports a failed cancel through its next poll), so
   * returning `this.cancel(reason)` as is leaves no unhandled rejection.
   */
  cancelTask(reason: InputUnansweredError): void | PromiseLike<unknown>;
  /**
   * End the handle with this error: policy `fail` (an `InputUnansweredError`), or the server broke the input
   * rules (a `ProtocolError`: a key reused for another request, unreadable `inputRequests`, an invalid ack).
   */
  fail(error: InputUnansweredError | ProtocolError): void;
}

/** The parts of a task snapshot the coordinator reads. */
export interface InputSnapshot {
  status: string;
  /** The raw `inputRequests` (status `input_required`); entries of unknown methods are welcome here. */
  inputRequests?: unknown;
}
