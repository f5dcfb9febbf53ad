/**
 * Decision 9: `tools/call` is a lifecycle event, not a timed request. A `CreateTaskResult` that
 * takes longer than `requestTimeoutMs` is still followed; a call whose deadline passes before the answer ends
 * with `deadline_exceeded` at the deadline, and the task the server then creates is cancelled as an orphan and
 * announced, id and all, by the client's `orphan` event (the id never lives only in a request).
 */
import { describe, expect, it } from "vitest";
import { TaskClient, type TaskHandle } from "../../../src/index.js";
import { startTaskServer } from "../../../src/testing/index.js";
import { closesAfterEach, slowToCreate } from "./helpers.js";

const track = closesAfterEach();

function taskIdsOf(server: Awaited<ReturnType<typeof startTaskServer>>, method: string): unknown[] {
  return server.requests
    .forMethod(method)
    .map((entry) => (entry.body as { params?: { taskId?: unknown } }).params?.taskId);
}

/** Connecting is not under test: on a loaded machine its probe can outlast a short request timeout. */
async function connect(url: string, requestTimeoutMs?: number): Promise<TaskClient> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await TaskClient.connect(url, requestTimeoutMs === undefined ? {} : { requestTimeoutMs });
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

describe("tools/call is bounded by the handle's limits, not by requestTimeoutMs", () => {
  it("follows a task whose CreateTaskResult arrives after requestTimeoutMs", async () => {
    const server = track(await startTaskServer({ tools: [slowToCreate(1600)] }));
    const client = track(await connect(server.url, 1000));
    const started = performance.now();
    const handle = client.callTool("slow_to_create");
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("completed");
    expect(outcome.taskId).toEqual(expect.any(String));
    expect(performance.now() - started).toBeGreaterThanOrEqual(1600);
    expect(taskIdsOf(server, "tasks/get")).toContain(outcome.taskId);
    expect(taskIdsOf(server, "tasks/cancel")).toEqual([]);
  });

  it("a deadline shorter than the answer ends the handle at the deadline; the late task is cancelled and announced", async () => {
    const server = track(await startTaskServer({ tools: [slowToCreate(400)] }));
    const client = track(await connect(server.url));
    const orphans: Array<{ taskId: string; handle: TaskHandle }> = [];
    client.on("orphan", (taskId, handle) => void orphans.push({ taskId, handle }));

    const started = performance.now();
    const handle = client.callTool("slow_to_create", {}, { timeoutMs: 100 });
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("deadline_exceeded");
    // The server had made no task when the deadline passed: there is no id to report yet.
    expect(outcome.taskId).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(400);

    await expect.poll(() => orphans.length, { timeout: 3_000 }).toBe(1);
    const [{ taskId, handle: of }] = orphans as [{ taskId: string; handle: TaskHandle }];
    expect(of).toBe(handle);
    // The id the event carries is the task the server made, and the one the client asked it to cancel.
    const created = server.tasks.ids();
    expect(created).toEqual([taskId]);
    await expect.poll(() => taskIdsOf(server, "tasks/cancel")).toEqual([taskId]);
    expect(taskIdsOf(server, "tasks/get")).toEqual([]);
  });
});
