import { afterEach, describe, expect, it } from "vitest";
import {
  McpTasksError,
  ProtocolError,
  TaskCancelledError,
  TaskFailedError,
  TaskEndedError,
} from "../../../src/protocol/errors.js";
import type { CallToolResult } from "../../../src/schema/index.js";
import type { TaskOutcome } from "../../../src/task/types.js";
import { TASK_ID, flush, newTask, snap, toolResult } from "./helpers.js";

/** Every way a handle can end other than with a result, as the driver reports them. */
function failingOutcomes(): TaskOutcome<CallToolResult>[] {
  return [
    {
      kind: "failed",
      taskId: TASK_ID,
      error: new TaskFailedError(TASK_ID, { code: -32000, message: "boom" }),
    },
    { kind: "cancelled", taskId: TASK_ID, error: new TaskCancelledError(TASK_ID, true) },
    {
      kind: "not_found",
      taskId: TASK_ID,
      error: new TaskEndedError("not_found", TASK_ID, { rpcMessage: "unknown task" }),
    },
    {
      kind: "expired",
      taskId: TASK_ID,
      error: new TaskEndedError("expired", TASK_ID, { expiredAt: new Date(0) }),
    },
    {
      kind: "deadline_exceeded",
      taskId: TASK_ID,
      error: new TaskEndedError("deadline_exceeded", TASK_ID, { deadline: new Date(0) }),
    },
    { kind: "detached", taskId: TASK_ID, error: new TaskEndedError("detached", TASK_ID) },
    { kind: "closed", taskId: TASK_ID, error: new TaskEndedError("closed", TASK_ID) },
    { kind: "error", taskId: TASK_ID, error: new ProtocolError("bad frame", "tasks/get", {}) },
  ];
}

describe("awaiting a task handle", () => {
  it("resolves with the tool result of a completed task", async () => {
    const { handle, sink } = newTask();
    sink.accept(snap.working({ at: 1 }));
    sink.accept(snap.completed(toolResult("42"), { at: 2 }));
    await expect(handle).resolves.toEqual(toolResult("42"));
  });

  it("resolves with a tool result that has isError: true, because the task itself completed", async () => {
    const { handle, sink } = newTask();
    sink.accept(snap.completed(toolResult("city not found", true), { at: 2 }));
    const result = await handle;
    expect(result.isError).toBe(true);
    expect((await handle.outcome()).kind).toBe("completed");
  });

  it("resolves with an immediate result when the server answered without a task", async () => {
    const { handle, sink } = newTask();
    sink.completeImmediately(toolResult("fast"));
    await expect(handle).resolves.toEqual(toolResult("fast"));
    expect(handle.taskId).toBeUndefined();
  });

  it("rejects with the JSON-RPC code, message and data of a failed task", async () => {
    const { handle, sink } = newTask();
    sink.accept(snap.failed({ code: -32050, message: "quota exceeded", data: { retryIn: 60 } }, { at: 3 }));
    const error = await handle.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error).toMatchObject({
      code: -32050,
      rpcMessage: "quota exceeded",
      data: { retryIn: 60 },
      taskId: TASK_ID,
    });
  });

  it("rejects with a confirmed cancellation error when the server reports the task cancelled", async () => {
    const { handle, sink } = newTask();
    sink.accept(snap.cancelled({ at: 4 }));
    await expect(handle).rejects.toBeInstanceOf(TaskCancelledError);
    await expect(handle).rejects.toMatchObject({ confirmed: true, taskId: TASK_ID });
  });

  it.each(["detached", "closed", "not_found", "expired", "deadline_exceeded"] as const)(
    "rejects with the outcome's error, a TaskEndedError of the same kind, when the handle ends %s",
    async (kind) => {
      const { handle, sink } = newTask();
      sink.setTaskId(TASK_ID);
      const outcome = failingOutcomes().find((candidate) => candidate.kind === kind);
      sink.settle(outcome!);
      await expect(handle).rejects.toBeInstanceOf(TaskEndedError);
      await expect(handle).rejects.toMatchObject({ kind, taskId: TASK_ID });
    },
  );

  it("treats a completed snapshot without a result as a protocol error", async () => {
    const { handle, sink } = newTask();
    sink.accept({ ...snap.working({ at: 1 }), status: "completed" } as never);
    await expect(handle).rejects.toBeInstanceOf(ProtocolError);
  });

  it("ends with kind error when the driver's mapping of the final state throws", async () => {
    const { handle, sink } = newTask();
    sink.accept(snap.completed(toolResult("x"), { at: 1 }), () => {
      throw new TypeError("structuredContent does not match outputSchema");
    });
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("error");
    expect(outcome.kind === "error" && outcome.error.cause).toBeInstanceOf(TypeError);
  });

  it("supports catch and finally like a promise", async () => {
    const { handle, sink } = newTask();
    sink.settle(failingOutcomes()[0]!);
    let finallyRan = false;
    const caught = await handle
      .finally(() => {
        finallyRan = true;
      })
      .catch((error: unknown) => error);
    expect(caught).toBeInstanceOf(TaskFailedError);
    expect(finallyRan).toBe(true);
  });

  it("keeps the first ending when the driver settles twice", async () => {
    const { handle, sink } = newTask();
    expect(sink.completeImmediately(toolResult("first"))).toBe(true);
    expect(sink.settle(failingOutcomes()[0]!)).toBe(false);
    expect(sink.accept(snap.cancelled())).toBe(false);
    await expect(handle).resolves.toEqual(toolResult("first"));
  });
});

describe("outcome()", () => {
  it.each(failingOutcomes().map((outcome) => [outcome.kind, outcome] as const))(
    "resolves, never rejects, for a handle that ended %s",
    async (_kind, outcome) => {
      const { handle, sink } = newTask();
      const early = handle.outcome();
      sink.settle(outcome);
      await expect(early).resolves.toBe(outcome);
      await expect(handle.outcome()).resolves.toBe(outcome);
      await expect(sink.settled).resolves.toBe(outcome);
    },
  );
});

describe("the task id", () => {
  it("is available through created once the server made the task", async () => {
    const { handle, sink } = newTask();
    const created = handle.created;
    expect(handle.taskId).toBeUndefined();
    sink.setTaskId(TASK_ID);
    expect(handle.taskId).toBe(TASK_ID);
    await expect(created).resolves.toBe(TASK_ID);
  });

  it("resolves created with undefined for an immediate result", async () => {
    const { handle, sink } = newTask();
    const created = handle.created;
    sink.completeImmediately(toolResult("now"));
    await expect(created).resolves.toBeUndefined();
  });

  it("resolves created with undefined when the handle ends before the server answered", async () => {
    const { handle, sink } = newTask();
    sink.settle({ kind: "closed", taskId: undefined, error: new TaskEndedError("closed", undefined) });
    await expect(handle.created).resolves.toBeUndefined();
  });

  it("tells the driver the id later, never in the middle of the call that set it", async () => {
    const { sink } = newTask();
    const heard: Array<string | undefined> = [];
    sink.onTaskId((taskId) => heard.push(taskId));
    sink.setTaskId(TASK_ID);
    expect(heard).toEqual([]);
    await flush();
    expect(heard).toEqual([TASK_ID]);
  });

  it("does not replace a known id with another", () => {
    const { handle, sink } = newTask();
    sink.setTaskId(TASK_ID);
    expect(sink.setTaskId("other")).toBe(false);
    expect(handle.taskId).toBe(TASK_ID);
  });
});

describe("a handle nobody awaits", () => {
  const unhandled: unknown[] = [];
  const listener = (reason: unknown) => unhandled.push(reason);
  afterEach(() => {
    process.off("unhandledRejection", listener);
    unhandled.length = 0;
  });

  it("produces no unhandled rejection, whatever way it ends", async () => {
    process.on("unhandledRejection", listener);
    for (const outcome of failingOutcomes()) {
      const { handle, sink } = newTask();
      sink.setTaskId(TASK_ID);
      void handle.created;
      sink.settle(outcome);
    }
    const iterated = newTask();
    const loop = (async () => {
      for await (const update of iterated.handle) void update;
    })();
    iterated.sink.accept(snap.failed({ code: -32000, message: "boom" }, { at: 1 }));
    await loop;
    const watched = newTask();
    void watched.handle.outcome();
    watched.sink.accept(snap.cancelled());
    await flush();
    await flush();
    expect(unhandled).toEqual([]);
  });

  it("is an McpTasksError when rejected, so callers can branch on the library's errors", async () => {
    const { handle, sink } = newTask();
    sink.settle(failingOutcomes()[2]!);
    await expect(handle).rejects.toBeInstanceOf(McpTasksError);
  });
});
