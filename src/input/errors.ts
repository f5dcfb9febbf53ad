/**
 * The error of answering input out of band (`handle.respond`) when the answer cannot be taken. Kept here until
 * it moves to `protocol/errors.ts` with the other public errors.
 */
import { brandErrorClass, McpTasksError } from "../protocol/errors.js";

export type InputRespondProblem =
  /** The key is not an outstanding input request of this task (never asked, or no longer listed). */
  | "unknown_key"
  /** The key was already answered (by a handler, an earlier `respond`, or the unanswerable-input policy). */
  | "already_answered"
  /** The answer does not fit the request's kind (e.g. an elicitation answer without `action`). */
  | "invalid_response"
  /** The handle has ended; nothing is being asked any more. */
  | "closed";

/** `respond(key, response)` could not take the answer. Nothing was sent. */
export class InputRespondError extends McpTasksError {
  static {
    brandErrorClass(this, "InputRespondError");
  }
  override name = "InputRespondError";
  constructor(
    /** The key the app tried to answer. */
    readonly key: string,
    readonly problem: InputRespondProblem,
    detail: string,
  ) {
    super(`respond(${JSON.stringify(key)}): ${detail}`);
  }
}
