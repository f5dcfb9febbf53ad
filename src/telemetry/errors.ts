/**
 * `error.type` (and `rpc.response.status_code`) for what ended a request or a task. The conventions ask for the
 * JSON-RPC error code as a string when there is one and `tool_error` for a tool result with `isError: true`;
 * otherwise a low-cardinality class of error: `timeout`, the HTTP status, or the error's class name.
 */
import { AuthError, RpcError, TaskFailedError, TransportError, isTimeout } from "../protocol/errors.js";
import type { CallToolResult } from "../schema/index.js";
import type { TaskOutcome } from "../task/types.js";
import { TOOL_ERROR } from "./semconv.js";

export interface ErrorFacts {
  /** `error.type`. */
  type: string;
  /** `rpc.response.status_code`: the JSON-RPC error code, when the server answered with one. */
  code: string | undefined;
  /** The span status description: the JSON-RPC error's message, or the error's (task ids already redacted). */
  message: string;
}

export function requestError(error: unknown): ErrorFacts {
  if (error instanceof RpcError) {
    const code = String(error.code);
    return { type: code, code, message: error.rpcMessage };
  }
  const message = error instanceof Error ? error.message : String(error);
  if (isTimeout(error)) return { type: "timeout", code: undefined, message };
  if ((error instanceof TransportError || error instanceof AuthError) && error.status !== undefined) {
    return { type: String(error.status), code: undefined, message };
  }
  return { type: error instanceof Error ? error.name : "_OTHER", code: undefined, message };
}

/** What ended a handle, for its span; undefined when it ended well (a result without `isError`). */
export function outcomeError(outcome: TaskOutcome<CallToolResult>): ErrorFacts | undefined {
  switch (outcome.kind) {
    case "completed":
      return outcome.result.isError === true
        ? { type: TOOL_ERROR, code: undefined, message: "the tool reported an error (isError)" }
        : undefined;
    case "failed": {
      const error: TaskFailedError = outcome.error;
      const code = String(error.code);
      return { type: code, code, message: error.message };
    }
    case "detached":
    case "closed":
      // The client stopped watching; the task itself did not fail.
      return undefined;
    case "error":
      // A JSON-RPC error answer keeps its code; a protocol violation or a transport fault its class.
      return requestError(outcome.error);
    default:
      // cancelled, not_found, expired, deadline_exceeded: the kind is the class of error.
      return { type: outcome.kind, code: undefined, message: outcome.error.message };
  }
}
