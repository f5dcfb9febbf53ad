/**
 * Which endings a durable engine may retry: a transient transport fault, a refused credential, a closed client and
 * a detached handle (the retry follows the same task); never a task's own ending, a protocol violation or a non-transient fault.
 */
import { describe, expect, it } from "vitest";
import {
  AuthError,
  OutputSchemaError,
  ProtocolError,
  TaskCancelledError,
  TaskEndedError,
  TaskFailedError,
  TransportError,
} from "mcp-tasks";
import { endingOf } from "../../../src/engines/endings.js";

const ID = "786512e2-9e0d-44bd-8f29-789f320fe840";

describe("endingOf", () => {
  it.each([
    ["a transient transport fault", new TransportError("fetch failed", { transient: true }), true],
    ["a closed client", new TaskEndedError("closed", ID), true],
    ["a detached handle", new TaskEndedError("detached", ID), true],
    [
      "a non-transient transport fault",
      new TransportError("HTTP 400", { status: 400, transient: false }),
      false,
    ],
    [
      "a refused credential",
      new AuthError({ method: "tasks/get", reason: "unauthorized", taskId: ID }),
      true,
    ],
    ["a failed task", new TaskFailedError(ID, { code: -32000, message: "disk full" }), false],
    ["a task the server cancelled", new TaskCancelledError(ID, true), false],
    ["a task the server forgot", new TaskEndedError("not_found", ID, { rpcMessage: "unknown task" }), false],
    ["an expired task", new TaskEndedError("expired", ID, { expiredAt: new Date(0) }), false],
    ["a caller's deadline", new TaskEndedError("deadline_exceeded", ID, { deadline: new Date(0) }), false],
    ["a protocol violation", new ProtocolError("bad frame", "tasks/get", {}), false],
    [
      "a result that breaks its schema",
      new OutputSchemaError("no match", "tasks/get", "forecast", ID, { content: [] }, []),
      false,
    ],
    ["a bug", new TypeError("x is not a function"), false],
  ])("%s: retryable %s", (_what, error, retryable) => {
    expect(endingOf(error).retryable).toBe(retryable);
  });

  it("names the error's class and carries a failed task's JSON-RPC error as plain JSON", () => {
    const ending = endingOf(
      new TaskFailedError(ID, { code: -32000, message: "disk full", data: { free: 0 } }),
    );
    expect(ending.type).toBe("TaskFailedError");
    expect(ending.details).toEqual({ taskId: ID, code: -32000, rpcMessage: "disk full", data: { free: 0 } });
  });

  it("takes the task id from the outcome for errors that do not carry one", () => {
    const ending = endingOf(new TransportError("fetch failed", { transient: true }), ID);
    expect(ending).toMatchObject({ type: "TransportError", retryable: true, details: { taskId: ID } });
  });
});
