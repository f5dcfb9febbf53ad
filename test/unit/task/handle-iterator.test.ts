import { describe, expect, it } from "vitest";
import type { InputRequest } from "../../../src/schema/index.js";
import { MAX_QUEUED } from "../../../src/task/cursor.js";
import type { TaskUpdate } from "../../../src/task/types.js";
import { collect, flush, newTask, snap, toolResult } from "./helpers.js";

const ask: InputRequest = {
  method: "elicitation/create",
  params: { message: "Which city?", requestedSchema: { type: "object", properties: {} } },
};
const label = (update: TaskUpdate<unknown>) => `${update.status}${update.terminal ? "!" : ""}`;

describe("iterating a task handle", () => {
  it("gives two concurrent consumers every status change and exactly one terminal update each", async () => {
    const { handle, sink } = newTask();
    const first = collect(handle);
    const second = collect(handle);
    const snapshots = [
      snap.working({ at: 1, statusMessage: "queued" }),
      snap.working({ at: 2, statusMessage: "running" }),
      snap.inputRequired({ city: ask }, { at: 3 }),
      snap.working({ at: 4 }),
      snap.completed(toolResult("sunny"), { at: 5 }),
    ];
    for (const snapshot of snapshots) {
      sink.accept(snapshot);
      await flush();
    }
    const expected = ["working", "working", "input_required", "working", "completed!"];
    const [a, b] = await Promise.all([first, second]);
    expect(a.map(label)).toEqual(expected);
    expect(b.map(label)).toEqual(expected);
    expect(a.at(-1)?.result).toEqual(toolResult("sunny"));
    expect(a[2]?.inputRequests).toEqual({ city: ask });
  });

  it("starts a consumer that joins mid-flight with the current state", async () => {
    const { handle, sink } = newTask();
    sink.accept(snap.working({ at: 1, statusMessage: "halfway" }));
    const late = collect(handle);
    await flush();
    sink.accept(snap.completed(toolResult("done"), { at: 2 }));
    expect((await late).map((update) => update.statusMessage ?? update.status)).toEqual([
      "halfway",
      "completed",
    ]);
  });

  it("gives a consumer that starts after the end the terminal update, then finishes", async () => {
    const { handle, sink } = newTask();
    sink.accept(snap.working({ at: 1 }));
    sink.accept(snap.failed({ code: -32000, message: "boom" }, { at: 2 }));
    const seen = await collect(handle);
    expect(seen.map(label)).toEqual(["failed!"]);
  });

  it("yields exactly one terminal update for an immediate result, to early and late consumers", async () => {
    const { handle, sink } = newTask();
    const early = collect(handle);
    sink.completeImmediately(toolResult("instant"));
    const late = collect(handle);
    for (const seen of [await early, await late]) {
      expect(seen).toEqual([
        expect.objectContaining({
          status: "completed",
          terminal: true,
          result: toolResult("instant"),
          taskId: undefined,
        }),
      ]);
    }
  });

  it("finishes consumers after what they hold when the handle is detached without a terminal status", async () => {
    const { handle, sink } = newTask();
    const during = collect(handle);
    sink.accept(snap.working({ at: 1 }));
    await flush();
    handle.detach();
    expect((await during).map(label)).toEqual(["working"]);
    expect(await collect(handle)).toEqual([]);
  });

  it("releases a consumer that breaks out of its loop, without cancelling the task", async () => {
    const { handle, sink, controller } = newTask();
    sink.accept(snap.working({ at: 1 }));
    const staying = collect(handle);
    for await (const update of handle) {
      expect(update.status).toBe("working");
      break;
    }
    expect(sink.iteratorCount).toBe(1);
    sink.accept(snap.completed(toolResult("ok"), { at: 2 }));
    expect((await staying).map(label)).toEqual(["working", "completed!"]);
    expect(controller.cancel).not.toHaveBeenCalled();
  });

  it("releases a consumer whose loop body throws", async () => {
    const { handle, sink } = newTask();
    sink.accept(snap.working({ at: 1 }));
    await expect(
      (async () => {
        for await (const update of handle) throw new Error(`consumer gave up at ${update.status}`);
      })(),
    ).rejects.toThrow("consumer gave up at working");
    expect(sink.iteratorCount).toBe(0);
  });

  it("keeps a slow consumer bounded and still hands it the terminal update, without holding up a fast one", async () => {
    const { handle, sink } = newTask();
    const slow = handle[Symbol.asyncIterator]();
    const fast = collect(handle);
    for (let i = 1; i <= 200; i++) {
      sink.accept(
        i % 2 === 0
          ? snap.inputRequired({ [`q${i}`]: ask }, { at: i })
          : snap.working({ at: i, statusMessage: `step ${i}` }),
      );
      await flush();
    }
    sink.accept(snap.completed(toolResult("end"), { at: 201 }));
    expect(await fast).toHaveLength(201);
    const drained: TaskUpdate<unknown>[] = [];
    for (let next = await slow.next(); !next.done; next = await slow.next()) drained.push(next.value);
    expect(drained.length).toBeLessThanOrEqual(MAX_QUEUED);
    expect(drained.filter((update) => update.terminal)).toHaveLength(1);
    expect(drained.at(-1)?.status).toBe("completed");
    expect(drained.at(-2)?.inputRequests).toEqual({ q200: ask });
  });

  it("coalesces queued updates of the same status for a consumer that is not reading", async () => {
    const { handle, sink } = newTask();
    const reader = handle[Symbol.asyncIterator]();
    for (let i = 1; i <= 5; i++) sink.accept(snap.working({ at: i, statusMessage: `step ${i}` }));
    sink.accept(snap.completed(toolResult("end"), { at: 6 }));
    const first = await reader.next();
    const second = await reader.next();
    expect(first.value?.statusMessage).toBe("step 5");
    expect(second.value?.terminal).toBe(true);
    expect((await reader.next()).done).toBe(true);
  });

  it("answers overlapping next() calls in order", async () => {
    const { handle, sink } = newTask();
    const reader = handle[Symbol.asyncIterator]();
    const pending = [reader.next(), reader.next(), reader.next()];
    sink.accept(snap.working({ at: 1 }));
    sink.accept(snap.completed(toolResult("end"), { at: 2 }));
    const results = await Promise.all(pending);
    expect(results.map((result) => (result.done ? "done" : label(result.value)))).toEqual([
      "working",
      "completed!",
      "done",
    ]);
  });
});
