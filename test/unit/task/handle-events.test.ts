import { afterEach, describe, expect, it, vi } from "vitest";
import type { InputRequest } from "../../../src/schema/index.js";
import { McpTasksError } from "../../../src/protocol/errors.js";
import { TASK_ID, collect, newTask, snap, toolResult } from "./helpers.js";
import { endedAs } from "../../fixtures/errors.js";

const ask: InputRequest = { method: "roots/list", params: {} };

describe("task handle events", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("fire in order: task, then updates with input and retry among them, then settled", () => {
    const { handle, sink } = newTask();
    const order: string[] = [];
    handle
      .on("task", (taskId) => order.push(`task ${taskId}`))
      .on("update", (update) => order.push(`update ${update.status}`))
      .on("input", (event) => order.push(`input ${event.key}`))
      .on("retry", (event) => order.push(`retry ${event.method} #${event.attempt}`))
      .on("settled", (outcome) => order.push(`settled ${outcome.kind}`));
    sink.setTaskId(TASK_ID);
    sink.accept(snap.working({ at: 1 }));
    sink.emitRetry({ method: "tasks/get", error: new Error("503"), attempt: 1 });
    sink.accept(snap.inputRequired({ roots: ask }, { at: 2 }));
    sink.emitInput({ taskId: TASK_ID, key: "roots", request: ask });
    sink.accept(snap.completed(toolResult("done"), { at: 3 }));
    expect(order).toEqual([
      `task ${TASK_ID}`,
      "update working",
      "retry tasks/get #1",
      "update input_required",
      "input roots",
      "update completed",
      "settled completed",
    ]);
  });

  it("fire once for the task id even when the first snapshot also carries it", () => {
    const { handle, sink } = newTask();
    const tasks = vi.fn();
    handle.on("task", tasks);
    sink.setTaskId(TASK_ID);
    sink.accept(snap.working({ at: 1 }));
    expect(tasks).toHaveBeenCalledTimes(1);
  });

  it("for an immediate result are one update and settled, with no task event", () => {
    const { handle, sink } = newTask();
    const order: string[] = [];
    handle.on("task", () => order.push("task"));
    handle.on("update", (update) => order.push(`update ${update.status} terminal=${update.terminal}`));
    handle.on("settled", (outcome) => order.push(`settled ${outcome.kind}`));
    sink.completeImmediately(toolResult("now"));
    expect(order).toEqual(["update completed terminal=true", "settled completed"]);
  });

  it("pass the same update objects to listeners and iterators", async () => {
    const { handle, sink } = newTask();
    const heard: unknown[] = [];
    handle.on("update", (update) => heard.push(update));
    const iterated = collect(handle);
    sink.accept(snap.completed(toolResult("same"), { at: 1 }));
    expect(await iterated).toEqual(heard);
    expect((await iterated)[0]).toBe(heard[0]);
  });

  it("stop reaching a listener after off, and never fire for listeners added after the end", () => {
    const { handle, sink } = newTask();
    const removed = vi.fn();
    const onceOnly = vi.fn();
    handle.on("update", removed).once("update", onceOnly);
    sink.accept(snap.working({ at: 1 }));
    handle.off("update", removed);
    sink.accept(snap.working({ at: 2, statusMessage: "more" }));
    sink.accept(snap.cancelled({ at: 3 }));
    const late = vi.fn();
    handle.on("settled", late);
    expect(removed).toHaveBeenCalledTimes(1);
    expect(onceOnly).toHaveBeenCalledTimes(1);
    expect(late).not.toHaveBeenCalled();
  });

  it("reach the listeners present when an update is emitted, in the order they were added", () => {
    const { handle, sink } = newTask();
    const heard: string[] = [];
    const added = () => heard.push("added");
    const twice = () => heard.push("twice");
    const removedMeanwhile = () => heard.push("removed meanwhile");
    handle
      .on("update", () => {
        heard.push("first");
        handle.on("update", added).off("update", removedMeanwhile);
      })
      .on("update", twice)
      .on("update", removedMeanwhile)
      .once("update", twice);
    sink.accept(snap.working({ at: 1 }));
    expect(heard).toEqual(["first", "twice", "removed meanwhile", "twice"]);
    heard.length = 0;
    handle.off("update", twice); // every registration of it
    sink.accept(snap.working({ at: 2, statusMessage: "more" }));
    expect(heard).toEqual(["first", "added"]);
    heard.length = 0;
    handle.off("update"); // every listener of the event
    sink.accept(snap.working({ at: 3, statusMessage: "again" }));
    expect(heard).toEqual([]);
    expect(() => handle.on("update", "not a function" as never)).toThrow(TypeError);
  });

  it("report a listener that throws without breaking the handle or other consumers", async () => {
    const reportError = vi.fn();
    vi.stubGlobal("reportError", reportError);
    const { handle, sink } = newTask();
    const failure = new Error("listener bug");
    handle.on("update", () => {
      throw failure;
    });
    const iterated = collect(handle);
    expect(sink.accept(snap.completed(toolResult("fine"), { at: 1 }))).toBe(true);
    expect(reportError).toHaveBeenCalledWith(failure);
    await expect(handle).resolves.toEqual(toolResult("fine"));
    expect(await iterated).toHaveLength(1);
  });
});

describe("controlling a task through its handle", () => {
  it("asks the controller to cancel, with the reason, and resolves once the handle has ended", async () => {
    const { handle, sink, controller } = newTask();
    sink.setTaskId(TASK_ID);
    const cancelling = handle.cancel("user pressed stop");
    expect(controller.cancel).toHaveBeenCalledWith("user pressed stop");
    await expect(cancelling).resolves.toMatchObject({ outcome: { kind: "cancelled", taskId: TASK_ID } });
  });

  it("passes a cancel on after the handle ended: the controller decides whether anything is sent", async () => {
    const { handle, sink, controller } = newTask();
    sink.setTaskId(TASK_ID);
    handle.detach();
    await handle.cancel();
    expect(controller.cancel).toHaveBeenCalledTimes(1);
  });

  it("detaches through the controller and ends the handle as detached", async () => {
    const { handle, sink, controller } = newTask();
    sink.setTaskId(TASK_ID);
    handle.detach();
    handle.detach();
    expect(controller.detach).toHaveBeenCalledTimes(1);
    expect(controller.cancel).not.toHaveBeenCalled();
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "detached", taskId: TASK_ID });
    await expect(handle).rejects.toSatisfy(endedAs("detached"));
  });

  it("passes an out-of-band answer to the controller", async () => {
    const { handle, sink, controller } = newTask();
    sink.accept(snap.inputRequired({ roots: ask }, { at: 1 }));
    const answer = { roots: [{ uri: "file:///work" }] };
    await handle.respond("roots", answer);
    expect(controller.respond).toHaveBeenCalledWith("roots", answer);
  });

  it("refuses an answer once the task has ended, or one without a key", async () => {
    const { handle, sink, controller } = newTask();
    await expect(handle.respond("", { roots: [] })).rejects.toBeInstanceOf(McpTasksError);
    sink.accept(snap.completed(toolResult("done"), { at: 1 }));
    await expect(handle.respond("roots", { roots: [] })).rejects.toThrow(/has ended/);
    expect(controller.respond).not.toHaveBeenCalled();
  });
});

describe("leaving an await using scope", () => {
  it("cancels a task that has not ended", async () => {
    const { handle, sink, controller } = newTask();
    sink.accept(snap.working({ at: 1 }));
    {
      await using scoped = handle;
      expect(scoped.status).toBe("working");
    }
    expect(controller.cancel).toHaveBeenCalledTimes(1);
  });

  it("leaves a finished task alone", async () => {
    const { handle, sink, controller } = newTask();
    {
      await using scoped = handle;
      sink.accept(snap.completed(toolResult("done"), { at: 1 }));
      await scoped;
    }
    expect(controller.cancel).not.toHaveBeenCalled();
  });

  it("leaves a detached task running", async () => {
    const { handle, sink, controller } = newTask();
    sink.setTaskId(TASK_ID);
    {
      await using scoped = handle;
      scoped.detach();
    }
    expect(controller.cancel).not.toHaveBeenCalled();
  });
});
