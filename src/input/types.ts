/**
 * The app-facing contract for answering server requests for input, inside a task (`input_required`) or before
 * one exists (a multi-round-trip `tools/call`).
 */
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsRequest,
  ListRootsResult,
} from "../schema/index.js";
import type { InputUnansweredError } from "../protocol/errors.js";
import type { InputRequestEvent, UnansweredInputAction } from "../task/types.js";

/**
 * Where an input request came from. Server text (messages, prompts) is untrusted: an input request gets exactly
 * the trust of a direct server-to-client request, never more because it arrived inside a task.
 */
export interface InputContext {
  /** The task that asks; undefined for input requested before a task exists (MRTR). */
  taskId: string | undefined;
  /** The key the server chose for this request. */
  key: string;
  /**
   * The tool whose call asked; undefined when that is not known: a task resumed by its id alone, or a server
   * request that names no task this client follows (JSON-RPC does not tie it to a call).
   */
  toolName: string | undefined;
  /** Which server asked (its `serverInfo`, and its URL when connected over HTTP). */
  server: { name?: string; version?: string; url?: string };
  /** Fires when the answer is no longer wanted (the task ended, was cancelled or detached, or the client closed). */
  signal: AbortSignal;
  /** For URL-mode elicitations: the host of the URL, to show the user before asking for consent. */
  urlHost?: string;
}

/** Functions that answer input requests, one per kind. The client declares a capability only for kinds given. */
export interface InputHandlers {
  elicitation?: (params: ElicitRequestParams, context: InputContext) => Promise<ElicitResult>;
  sampling?: (params: CreateMessageRequestParams, context: InputContext) => Promise<CreateMessageResult>;
  roots?: (params: ListRootsRequest["params"], context: InputContext) => Promise<ListRootsResult>;
}

/** The `inputUnanswered` event: an input request the client could not answer, and what it did about it. */
export interface InputUnansweredEvent extends InputRequestEvent {
  /** Why no answer could be given (no handler, the handler threw, an unusable request, undeliverable answers). */
  reason: string;
  /** What was done instead: `decline` (answered with a decline), `cancel` (the task), or `fail` (the handle). */
  action: UnansweredInputAction;
  /** The same facts as a typed error, with the handler's error (if any) as its `cause`. */
  error: InputUnansweredError;
}
