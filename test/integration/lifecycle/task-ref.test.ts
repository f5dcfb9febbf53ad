/**
 * `TaskRef` and the client's view of its handles: a ref survives JSON and a second client, `client.cancel(ref)`
 * returns the server's ack, a ref for another server is refused, `describe()` answers at once, `client.tasks()`
 * lists live handles, `settled` fires per handle, and the logger hears of a dropped connection.
 */
import { describe, expect, it } from "vitest";
import {
  TaskClient,
  TransportError,
  type CallToolResult,
  type TaskHandle,
  type TaskOutcome,
} from "../../../src/index.js";
// Not exported from the package entry point (src/index.ts): imported from its module.
import { TaskRefError, type TaskRef } from "mcp-tasks";
import { defineTool, startTaskServer, step, textResult } from "../../../src/testing/index.js";
import { FAST, closesAfterEach } from "./helpers.js";

const track = closesAfterEach();

const tools = [
  defineTool({
    name: "three_steps",
    task: "required",
    pollIntervalMs: 10,
    steps: [step.working("one"), step.working("two"), step.complete(textResult("finished"))],
  }),
  defineTool({ name: "stalls", task: "required", pollIntervalMs: 10, steps: [step.stall()] }),
  defineTool({
    name: "stalls_with_message",
    task: "required",
    pollIntervalMs: 10,
    statusMessage: "warming up",
    steps: [step.stall()],
  }),
];

async function setup() {
  const server = track(await startTaskServer({ tools }));
  const client = track(await TaskClient.connect(server.url, FAST));
  return { server, client };
}

/** `await handle.ref`, through JSON as a stored ref would be. */
async function storedRef(handle: TaskHandle): Promise<TaskRef> {
  const ref = await handle.ref;
  expect(ref).toBeDefined();
  return JSON.parse(JSON.stringify(ref)) as TaskRef;
}

describe("TaskRef round trip", () => {
  it("completes the task on a second client given the ref through JSON", async () => {
    const { server, client } = await setup();
    const handle = client.callTool("three_steps");
    const ref = await storedRef(handle);
    handle.detach();
    expect(ref).toMatchObject({
      v: 1,
      method: "tools/call",
      toolName: "three_steps",
      server: { url: server.url },
    });

    const client2 = track(await TaskClient.connect(server.url, FAST));
    const resumed = client2.task(ref);
    expect(resumed.taskId).toBe(ref.taskId);
    const result = await resumed;
    expect(result.content).toEqual([{ type: "text", text: "finished" }]);
  });

  it("cancels the task from a second client with client.cancel(ref), which returns the server's ack", async () => {
    const { server, client } = await setup();
    const handle = client.callTool("stalls");
    const ref = await storedRef(handle);

    const client2 = track(await TaskClient.connect(server.url, FAST));
    const ack = await client2.cancel(ref);
    expect(ack).toBeTypeOf("object");
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
    // The first client's live handle hears the server's final word on its next poll.
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("cancelled");
  });

  it("resumes and cancels by a bare task id on a second client", async () => {
    const { server, client } = await setup();
    const handle = client.callTool("stalls");
    const taskId = (await handle.created) as string;
    handle.detach();

    const client2 = track(await TaskClient.connect(server.url, FAST));
    const resumed = client2.task(taskId);
    expect((await resumed.describe()).status).toBe("working");
    expect(await client2.cancel(taskId)).toBeTypeOf("object");
    const outcome = await resumed.outcome();
    expect(outcome.kind).toBe("cancelled");
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
  });

  it("refuses a ref whose server.url differs with TaskRefError", async () => {
    const { server, client } = await setup();
    const handle = client.callTool("stalls");
    const ref = await storedRef(handle);
    const foreign: TaskRef = { ...ref, server: { ...ref.server, url: "http://127.0.0.1:1/elsewhere" } };

    const client2 = track(await TaskClient.connect(server.url, FAST));
    expect(() => client2.task(foreign)).toThrow(TaskRefError);
    await expect(client2.cancel(foreign)).rejects.toBeInstanceOf(TaskRefError);
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(0);
    expect(client2.activeTasks).toBe(0);
  });
});

describe("the client's view of its handles", () => {
  it("describe() returns the task's current status without waiting for the task to end", async () => {
    const { client } = await setup();
    const handle = client.callTool("stalls_with_message");
    await handle.created;
    const description = await handle.describe();
    expect(description.status).toBe("working");
    expect(description.statusMessage).toBe("warming up");
    expect(description.taskId).toBe(handle.taskId);
    expect(handle.isSettled).toBe(false);
    expect(handle.snapshot?.status).toBe("working");
  });

  it("client.tasks() lists the live handles and drops the ones that ended", async () => {
    const { client } = await setup();
    const stalled = client.callTool("stalls");
    const finishing = client.callTool("three_steps");
    expect(client.tasks()).toEqual([stalled, finishing]);
    await finishing;
    expect(client.tasks()).toEqual([stalled]);
    stalled.detach();
    await stalled.outcome();
    expect(client.tasks()).toEqual([]);
  });

  it("fires the client's settled event once per handle, with its outcome", async () => {
    const { client } = await setup();
    const settled: Array<[TaskHandle<CallToolResult>, TaskOutcome<CallToolResult>]> = [];
    client.on("settled", (handle, outcome) => settled.push([handle, outcome]));
    const a = client.callTool("three_steps");
    const b = client.callTool("stalls");
    await a;
    b.detach();
    await b.outcome();
    expect(settled.map(([handle, outcome]) => [handle, outcome.kind])).toEqual([
      [a, "completed"],
      [b, "detached"],
    ]);
  });

  // The failed polls are the handle's, reported once, by the handle (its retry events and its
  // outcome); the logger hears of each retry at debug level, and no "transport error" warning repeats them.
  it("a connection that drops under a live task ends its handle with the transport's error; the logger hears the retries", async () => {
    const server = track(await startTaskServer({ tools }));
    const debug: string[] = [];
    const warnings: string[] = [];
    const client = track(
      await TaskClient.connect(server.url, {
        ...FAST,
        logger: {
          debug: (message: string) => debug.push(message),
          warn: (message: string) => warnings.push(message),
        },
      }),
    );
    const handle = client.callTool("stalls");
    await handle.created;
    await server.close();
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("error");
    expect((outcome as { error: unknown }).error).toBeInstanceOf(TransportError);
    expect(debug.some((message) => /tasks\/get: retry \d after a transient fault/.test(message))).toBe(true);
    expect(warnings.filter((message) => message.includes("transport error"))).toEqual([]);
  });
});
