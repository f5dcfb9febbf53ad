/**
 * A task id once received is never dropped, even when `close()` gives up on the store (src/run/ref-life.ts,
 * "`close()`"): a handle whose new ref is still being written when the client closes ends `closed` with the task
 * id the server gave (in the outcome and its `TaskEndedError`), although the write that would have reported it
 * never settles and `close()` stops waiting for it after `closeTimeoutMs`.
 */
import { describe, expect, it, vi } from "vitest";
import { type TaskRef, TaskEndedError } from "../../../src/index.js";
import type { TaskStore } from "../../../src/store/index.js";
import { memoryStore } from "../../../src/store/index.js";
import { ScriptedServer, TASK_ID, connect, frame, useFakeTime } from "./scripted-server.js";
import { endedAs } from "../../fixtures/errors.js";

useFakeTime();

const quiet = { warn: () => undefined, error: () => undefined };

/** A store whose `put`s never settle (a frozen disk or database); everything else works. */
function frozenPuts(): TaskStore & { puts: TaskRef[] } {
  const inner = memoryStore();
  const puts: TaskRef[] = [];
  return {
    puts,
    put: (ref) => {
      puts.push(ref);
      return new Promise<void>(() => undefined);
    },
    remove: (ref) => inner.remove(ref),
    list: (server) => inner.list(server),
  };
}

describe("close() while a new task's ref is being stored", () => {
  it("the handle ends closed with the task id, after close() gave up on the write", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 100 }),
      "tasks/get": () => frame.working({ pollIntervalMs: 100 }),
    });
    const store = frozenPuts();
    const client = await connect(server, { store, logger: quiet, closeTimeoutMs: 200 });
    const handle = client.callTool("t");
    const tasks: string[] = [];
    handle.on("task", (taskId) => tasks.push(taskId));
    await vi.advanceTimersByTimeAsync(0);
    // The server made the task; its ref is being written, so the handle does not report it yet.
    expect(store.puts.map((ref) => ref.taskId)).toEqual([TASK_ID]);
    expect(handle.taskId).toBeUndefined();

    let closed = false;
    void client.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(199);
    expect(closed).toBe(false); // still waiting for the write
    await vi.advanceTimersByTimeAsync(1);
    expect(closed).toBe(true); // gave up on it

    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("closed");
    expect(outcome.taskId).toBe(TASK_ID);
    expect((outcome as { error: unknown }).error).toSatisfy(endedAs("closed"));
    expect((outcome as { error: TaskEndedError }).error.taskId).toBe(TASK_ID);
    // Never reported (durable before visible, as for a refused write: no `task` event), yet the handle keeps the
    // id it got: `taskId`, `created` and `ref` give it, as the outcome does.
    expect(tasks).toEqual([]);
    expect(handle.taskId).toBe(TASK_ID);
    expect(await handle.created).toBe(TASK_ID);
    expect((await handle.ref)?.taskId).toBe(TASK_ID);
  });
});
