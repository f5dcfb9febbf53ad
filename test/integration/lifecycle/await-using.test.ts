/**
 * `await using` on the real thing, a TaskClient against the reference server over HTTP: leaving a scope that holds
 * a handle cancels its unfinished task on the server (one `tasks/cancel`, and the handle ends with the server's
 * answer); leaving a scope that holds the client closes it (its open handles end `closed`, and their tasks keep
 * running on the server, uncancelled).
 */
import { describe, expect, it } from "vitest";
import { TaskClient, type TaskHandle } from "../../../src/index.js";
import { defineTool, startTaskServer, step, textResult } from "../../../src/testing/index.js";
import { FAST, closesAfterEach } from "./helpers.js";
import { endedAs } from "../../fixtures/errors.js";

const track = closesAfterEach();

const tools = [
  defineTool({ name: "stalls", task: "required", pollIntervalMs: 10, steps: [step.stall()] }),
  defineTool({
    name: "finishes",
    task: "required",
    pollIntervalMs: 10,
    steps: [step.complete(textResult("done"))],
  }),
];

async function setUp() {
  return track(await startTaskServer({ tools }));
}

/** The `taskId` of every `tasks/cancel` the server received. */
function cancelledIds(server: Awaited<ReturnType<typeof setUp>>): unknown[] {
  return server.requests
    .forMethod("tasks/cancel")
    .map((entry) => (entry.body as { params: { taskId?: unknown } }).params.taskId);
}

describe("await using a TaskHandle", () => {
  it("cancels the task on the server when the scope ends before the task did", async () => {
    const server = await setUp();
    const client = track(await TaskClient.connect(server.url, FAST));
    let handle: TaskHandle | undefined;
    let taskId: string | undefined;
    {
      await using scoped = client.callTool("stalls");
      handle = scoped;
      taskId = await scoped.created;
      expect(cancelledIds(server)).toEqual([]);
    }
    // Leaving the scope waited for the handle to end with the server's answer.
    expect(handle.isSettled).toBe(true);
    await expect(handle.outcome()).resolves.toMatchObject({
      kind: "cancelled",
      taskId,
      error: { confirmed: true },
    });
    expect(cancelledIds(server)).toEqual([taskId]);
    expect(server.tasks.get(taskId as string)?.status).toBe("cancelled");
  });

  it("leaves a task that ended in the scope alone", async () => {
    const server = await setUp();
    const client = track(await TaskClient.connect(server.url, FAST));
    {
      await using scoped = client.callTool("finishes");
      await expect(scoped).resolves.toMatchObject({ content: [{ type: "text", text: "done" }] });
    }
    expect(server.requests.forMethod("tasks/get").length).toBeGreaterThan(0);
    expect(cancelledIds(server)).toEqual([]);
  });
});

describe("await using a TaskClient", () => {
  it("closes the client when the scope ends: open handles end closed, their tasks keep running", async () => {
    const server = await setUp();
    let client: TaskClient | undefined;
    let handle: TaskHandle | undefined;
    {
      await using scoped = await TaskClient.connect(server.url, FAST);
      client = track(scoped); // closed again after the test, in case disposal did not

      handle = scoped.callTool("stalls");
      await handle.created;
    }
    expect(handle.isSettled).toBe(true); // close() ends open handles at once
    const outcome = await handle.outcome();
    expect(outcome).toMatchObject({ kind: "closed", taskId: expect.any(String) });
    expect((outcome as { error: unknown }).error).toSatisfy(endedAs("closed"));
    expect(client.tasks()).toEqual([]);
    expect(() => client.callTool("finishes")).toThrow("TaskClient is closed");
    // Closing is not cancelling: the task is still running on the server.
    expect(cancelledIds(server)).toEqual([]);
    expect(server.tasks.get(outcome.taskId as string)?.status).toBe("working");
  });

  it("with both in one scope, cancels the handle's task first, then closes the client", async () => {
    const server = await setUp();
    let client: TaskClient | undefined;
    let handle: TaskHandle | undefined;
    {
      await using scopedClient = await TaskClient.connect(server.url, FAST);
      await using scopedHandle = scopedClient.callTool("stalls");
      client = track(scopedClient);
      handle = scopedHandle;
      await scopedHandle.created;
    }
    // Disposed in reverse order: the handle's cancel went out while the client was still open.
    const outcome = await handle.outcome();
    expect(outcome).toMatchObject({ kind: "cancelled", error: { confirmed: true } });
    expect(cancelledIds(server)).toEqual([outcome.taskId]);
    expect(() => client.callTool("finishes")).toThrow("TaskClient is closed");
  });
});
