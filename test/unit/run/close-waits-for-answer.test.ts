/**
 * A task id once received is never dropped (src/run/ref-life.ts, "`close()`"): `close()` while a `tools/call` is
 * unanswered waits for the answer, at most `closeTimeoutMs`, so the task the server makes meanwhile is kept: the
 * handle ends `closed` with its id, the client's `task` event names it, and with a store its ref is stored (and
 * handed back); a call whose handle ended already (a deadline) is waited for too, and its task announced
 * (`orphan`). An answer later than that is not waited for: the handle ends without an id, with a warning. On a
 * fake clock against the scripted server; the same against the reference server over HTTP is in
 * test/integration/lifecycle/close-waits-for-answer.test.ts.
 */
import { describe, expect, it, vi } from "vitest";
import type { TaskEndedError } from "../../../src/index.js";
import { endedAs } from "../../fixtures/errors.js";
import { memoryStore } from "../../../src/store/index.js";
import { ScriptedServer, TASK_ID, connect, frame, settledFlag, useFakeTime } from "./scripted-server.js";

useFakeTime();

/** A server that answers `tools/call` with a new task only after `ms` (fake time). */
function slowToCreate(ms: number): ScriptedServer {
  return new ScriptedServer({
    "tools/call": () => ({ afterMs: ms, reply: frame.created({ pollIntervalMs: 100 }) }),
    "tasks/get": () => frame.working({ pollIntervalMs: 100 }),
  });
}

describe("close() while a tools/call is unanswered", () => {
  it("waits for the answer and ends the handle closed with the task id the server gave", async () => {
    const server = slowToCreate(300);
    const warn = vi.fn();
    const client = await connect(server, { logger: { warn } });
    const announced: string[] = [];
    client.on("task", (_handle, taskId) => announced.push(taskId));
    const handle = client.callTool("t");
    await vi.advanceTimersByTimeAsync(0);
    expect(server.sent("tools/call")).toHaveLength(1);

    const closed = settledFlag(client.close());
    await vi.advanceTimersByTimeAsync(299);
    expect(closed()).toBe(false); // the server may be making a task: its id is waited for
    expect(handle.isSettled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(closed()).toBe(true);

    const outcome = await handle.outcome();
    expect(outcome).toMatchObject({ kind: "closed", taskId: TASK_ID });
    expect((outcome as { error: unknown }).error).toSatisfy(endedAs("closed"));
    expect((outcome as { error: TaskEndedError }).error.taskId).toBe(TASK_ID);
    expect(await handle.created).toBe(TASK_ID);
    expect(announced).toEqual([TASK_ID]);
    expect(server.sent("tasks/get")).toEqual([]); // a closing client follows nothing
    expect(warn).not.toHaveBeenCalled();
  });

  it("with a store: the ref is stored before close() resolves, and stays there for resume() or adoption", async () => {
    const server = slowToCreate(300);
    const store = memoryStore();
    const client = await connect(server, { store });
    const handle = client.callTool("t");
    await vi.advanceTimersByTimeAsync(0);
    const closed = settledFlag(client.close());
    await vi.advanceTimersByTimeAsync(300);
    expect(closed()).toBe(true);
    expect((await handle.outcome()).taskId).toBe(TASK_ID);
    expect((await store.list()).map((ref) => ref.taskId)).toEqual([TASK_ID]);
  });

  it("waits for the answer of a call whose handle ended already (a deadline): its task is announced", async () => {
    const server = slowToCreate(300);
    const client = await connect(server);
    const orphans: string[] = [];
    client.on("orphan", (taskId) => orphans.push(taskId));
    const handle = client.callTool("t", {}, { timeoutMs: 100 });
    await vi.advanceTimersByTimeAsync(100);
    expect(await handle.outcome()).toMatchObject({ kind: "deadline_exceeded", taskId: undefined });
    const closed = settledFlag(client.close());
    await vi.advanceTimersByTimeAsync(199);
    expect(closed()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(closed()).toBe(true);
    expect(orphans).toEqual([TASK_ID]);
  });

  it("an answer later than closeTimeoutMs is not waited for: the handle ends without an id, with a warning", async () => {
    const server = slowToCreate(10_000);
    const warn = vi.fn();
    const client = await connect(server, { logger: { warn }, closeTimeoutMs: 200 });
    const handle = client.callTool("t");
    await vi.advanceTimersByTimeAsync(0);
    const closed = settledFlag(client.close());
    await vi.advanceTimersByTimeAsync(199);
    expect(closed()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(closed()).toBe(true);
    expect(await handle.outcome()).toMatchObject({ kind: "closed", taskId: undefined });
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/closeTimeoutMs.*followed by nobody/));
    await vi.advanceTimersByTimeAsync(10_000); // the late answer reaches a closed client: nothing happens
    expect(server.sent("tasks/get")).toEqual([]);
    expect(server.sent("tasks/cancel")).toEqual([]);
  });
});
