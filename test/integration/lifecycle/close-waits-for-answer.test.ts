/**
 * `close()` while a `tools/call` is on its way (the lifecycle property under load could lose the task id: the
 * server made the task and the closed client never read the answer). A real `TaskClient` against the reference
 * server over HTTP, its tool scripted to answer the call only after a while: `close()` waits for the answer, so
 * the id reaches the handle, the client's `task` event and the store. The timing cases (the bound, the warning)
 * are on a fake clock in test/unit/run/close-waits-for-answer.test.ts.
 */
import { describe, expect, it } from "vitest";
import { TaskClient } from "../../../src/index.js";
import { memoryStore } from "../../../src/store/index.js";
import { startTaskServer } from "../../../src/testing/index.js";
import { closesAfterEach, slowToCreate } from "./helpers.js";

const track = closesAfterEach();

describe("close() while a tools/call is unanswered", () => {
  it("waits for the answer: the task the server made is on the handle, the client's task event and the store", async () => {
    const server = track(await startTaskServer({ tools: [slowToCreate(500)] }));
    const store = memoryStore();
    const client = track(await TaskClient.connect(server.url, { store, notifications: "off" }));
    const announced: string[] = [];
    client.on("task", (_handle, taskId) => announced.push(taskId));
    const handle = client.callTool("slow_to_create");
    await expect.poll(() => server.requests.forMethod("tools/call").length).toBe(1);
    expect(server.tasks.ids()).toEqual([]); // not made yet

    await client.close();
    const [made] = server.tasks.ids();
    expect(made).toEqual(expect.any(String));
    expect(await handle.outcome()).toMatchObject({ kind: "closed", taskId: made });
    expect(await handle.created).toBe(made);
    expect(announced).toEqual([made]);
    expect((await store.list()).map((ref) => ref.taskId)).toEqual([made]);
  });
});
