/**
 * The client's events as users reach them: `on`, `once` and `off`, typed by `TaskClientEvents`, against the real
 * reference server over Streamable HTTP. Emitting is the client's own business: it has no public `emit`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type CallToolResult, type TaskHandle, type TaskOutcome } from "mcp-tasks";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { TIME_SCALE, fastClient } from "./fixture-calls.js";

let server: HttpTaskServer;
let client: TaskClient;
beforeAll(async () => {
  server = await startTaskServer({ tools: fixtureTools({ timeScale: TIME_SCALE }) });
  client = await TaskClient.connect(server.url, fastClient);
});
afterAll(async () => {
  await client.close();
  await server.close();
});

describe("TaskClient events", () => {
  it("has no public emit: callers listen, only the client emits", () => {
    // @ts-expect-error `emit` is not part of TaskClient's type
    expect(client.emit).toBeUndefined();
    expect("emit" in client).toBe(false);
    // @ts-expect-error nor are the rest of EventEmitter's members
    expect(client.removeAllListeners).toBeUndefined();
  });

  it("on, once and off deliver the documented payloads, and off stops a listener", async () => {
    const tasks: Array<[TaskHandle<CallToolResult>, string]> = [];
    const firstSettled: Array<TaskOutcome<CallToolResult>> = [];
    const removed: string[] = [];
    const onRemoved = (_handle: TaskHandle<CallToolResult>, taskId: string) => void removed.push(taskId);
    expect(
      client
        .on("task", (handle, taskId) => void tasks.push([handle, taskId]))
        .once("settled", (_handle, outcome) => void firstSettled.push(outcome))
        .on("task", onRemoved)
        .off("task", onRemoved),
    ).toBe(client);

    const first = client.callTool("slow_compute", { seconds: 1 });
    await first;
    const second = client.callTool("slow_compute", { seconds: 1 });
    await second;

    expect(tasks).toEqual([
      [first, first.taskId],
      [second, second.taskId],
    ]);
    expect(typeof first.taskId).toBe("string");
    expect(firstSettled).toHaveLength(1);
    expect(firstSettled[0]).toMatchObject({ kind: "completed", taskId: first.taskId });
    expect(removed).toEqual([]);
    client.off("task").off("settled");
  });

  it("announces the end of the connection with `closed`", async () => {
    const other = await TaskClient.connect(server.url, fastClient);
    let closed = 0;
    other.on("closed", () => closed++);
    await other.close();
    expect(closed).toBe(1);
  });
});
