/**
 * Durable before visible (DESIGN decision 12): with a store, a new task's ref is written before the handle
 * reports the task or polls it; the ref follows answered input, leaves the store when the server is done, and
 * `client.resume()` picks up what is left.
 */
import { describe, expect, it, vi } from "vitest";
import { TaskStoreError, type TaskRef } from "mcp-tasks";
import type { TaskStore } from "mcp-tasks/store";
import { memoryStore } from "mcp-tasks/store";
import { initialState, transition } from "../../../src/lifecycle/transition.js";
import type { CallState, LifecycleConfig } from "../../../src/lifecycle/types.js";
import type { CreateTaskResult } from "../../../src/schema/index.js";
import { ScriptedServer, TASK_ID, connect, frame, inOrder, settle, useFakeTime } from "./scripted-server.js";

useFakeTime();

const config: LifecycleConfig = { pollRetries: 3, cancelGraceMs: 1000, ttlGraceMs: 1000, durable: true };
const task = {
  resultType: "task",
  taskId: "t1",
  status: "working",
  createdAt: "2026-08-01T10:00:00.000Z",
  lastUpdatedAt: "2026-08-01T10:00:00.000Z",
  ttlMs: 60_000,
  pollIntervalMs: 500,
} as unknown as CreateTaskResult;
const created = { type: "callAnswered", answer: { kind: "task", task } } as const;

function storing(): CallState {
  return transition(initialState(undefined), created, config, 0).state;
}

describe("the lifecycle with a store", () => {
  it("asks to persist a new task instead of reporting or polling it", () => {
    const step = transition(initialState(undefined), created, config, 0);
    expect(step.state).toMatchObject({ phase: "polling", taskId: "t1", storing: true });
    expect(step.effects).toEqual([{ type: "persist", task, taskId: "t1" }]);
  });

  it("reports the task, shows the seed and schedules the poll once stored", () => {
    const step = transition(storing(), { type: "stored", task }, config, 0);
    expect(step.state.storing).toBe(false);
    expect(step.effects.map((effect) => effect.type)).toEqual(["adopt", "show", "schedulePoll"]);
  });

  it("reports the task and polls at once when a cancel came while storing (the cancel already went out)", () => {
    const cancelled = transition(storing(), { type: "cancelRequested", reason: "x" }, config, 0);
    expect(cancelled.effects).toEqual([{ type: "sendCancel", taskId: "t1" }]);
    const step = transition(cancelled.state, { type: "stored", task }, config, 0);
    expect(step.effects).toEqual([
      { type: "adopt", task, taskId: "t1" },
      { type: "schedulePoll", cause: "cancelAnswered" },
    ]);
  });

  it("ignores snapshots observed while storing, and a stored event nobody waits for", () => {
    const snapshot = { ...task, resultType: undefined } as never;
    expect(transition(storing(), { type: "observed", snapshot }, config, 0).effects).toEqual([]);
    expect(transition(initialState(undefined), { type: "stored", task }, config, 0).effects).toEqual([]);
  });

  it("is unchanged without a store", () => {
    const step = transition(initialState(undefined), created, { ...config, durable: false }, 0);
    expect(step.effects.map((effect) => effect.type)).toEqual(["adopt", "show", "schedulePoll"]);
  });
});

/** A store whose writes wait until the test lets them through. */
function heldStore(): TaskStore & { letThrough(): void; puts: TaskRef[] } {
  const inner = memoryStore();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const puts: TaskRef[] = [];
  return {
    puts,
    letThrough: () => open(),
    put: async (ref) => {
      puts.push(ref);
      await gate;
      await inner.put(ref);
    },
    remove: (ref) => inner.remove(ref),
    list: (server) => inner.list(server),
  };
}

describe("a client with a store", () => {
  it("reports the task and polls only after the ref is stored", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 100 }),
      "tasks/get": () => frame.completed("42"),
    });
    const store = heldStore();
    const client = await connect(server, { store });
    const seen: string[] = [];
    client.on("task", () => seen.push("task"));
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(5000);
    expect(store.puts.map((ref) => ref.taskId)).toEqual([TASK_ID]);
    expect(handle.taskId).toBeUndefined();
    expect(seen).toEqual([]);
    expect(server.sent("tasks/get")).toEqual([]);

    store.letThrough();
    await expect(settle(handle.outcome())).resolves.toMatchObject({ kind: "completed" });
    expect(seen).toEqual(["task"]);
    expect(server.sent("tasks/get").length).toBeGreaterThan(0);
    await vi.advanceTimersByTimeAsync(0);
    await expect(store.list()).resolves.toEqual([]); // the server is done: the ref is gone
  });

  it("does not report a task whose ref the store refused: the handle fails with its id, and it is cancelled", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 100 }),
      "tasks/get": () => frame.completed("42"),
    });
    const error = vi.fn();
    const diskFull = new Error("disk full");
    const broken: TaskStore = {
      put: () => Promise.reject(diskFull),
      remove: () => Promise.resolve(),
      list: () => Promise.resolve([]),
    };
    const client = await connect(server, { store: broken, logger: { error } });
    const reported: string[] = [];
    client.on("task", (_handle, taskId) => reported.push(taskId));
    const handle = client.callTool("compute");
    const outcome = await settle(handle.outcome());
    expect(outcome).toMatchObject({ kind: "error", taskId: TASK_ID });
    expect(outcome.kind === "error" && outcome.error).toBeInstanceOf(TaskStoreError);
    expect((outcome as { error: Error }).error.cause).toBe(diskFull);
    expect(reported).toEqual([]); // not reported (no `task` event), yet the handle keeps the id it got
    expect(handle.taskId).toBe(TASK_ID);
    expect(await handle.created).toBe(TASK_ID);
    expect(server.sent("tasks/get")).toEqual([]);
    expect(server.sent("tasks/cancel").map((request) => request.params.taskId)).toEqual([TASK_ID]);
    expect(error).toHaveBeenCalledWith(
      expect.stringContaining("storing a new task's ref failed"),
      expect.anything(),
      diskFull,
    );
  });

  it("keeps the ref of a task that may still run, and resume() follows it to the end", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 100 }),
      "tasks/get": inOrder(frame.working({ pollIntervalMs: 100 }), frame.completed("42")),
    });
    const store = memoryStore();
    const first = await connect(server, { store });
    const handle = first.callTool("compute");
    await settle(handle.ref);
    await first.close();
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "closed" });
    const [kept] = await store.list();
    expect(kept).toMatchObject({ taskId: TASK_ID, toolName: "compute", answeredInputKeys: [] });

    const second = await connect(server, { store });
    const handles = await second.resume();
    expect(handles).toHaveLength(1);
    await expect(settle(Promise.resolve(handles[0]))).resolves.toEqual({
      content: [{ type: "text", text: "42" }],
    });
    expect(await second.resume()).toEqual([]);
  });

  it("refuses resume() without a store, and a store that is not one", async () => {
    const server = new ScriptedServer({});
    const client = await connect(server);
    await expect(client.resume()).rejects.toThrow(/no `store`/);
    await expect(connect(server, { store: {} as TaskStore })).rejects.toThrow(TypeError);
  });
});
