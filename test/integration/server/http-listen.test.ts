import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HttpTaskServer } from "../../../src/testing/index.js";
import { defineTool, startTaskServer, step, textResult } from "../../../src/testing/index.js";
import type { ListenStream } from "./rawRpc.js";
import { call, isStream, listen, TASKS } from "./rawRpc.js";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

let server: HttpTaskServer;
const streams: ListenStream[] = [];
beforeEach(async () => {
  server = await startTaskServer({
    tools: [
      defineTool({ name: "watched", steps: [step.working("step 1"), step.complete(textResult("all done"))] }),
    ],
    // These tests poll to move the task and watch the notifications; acknowledge every known id.
    listen: { acknowledge: (taskIds) => taskIds },
  });
});
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await server.close();
});

async function createTask(): Promise<string> {
  return (await call(server.url, "tools/call", { name: "watched" }))["taskId"] as string;
}

async function openStream(taskIds: unknown, id: string): Promise<ListenStream> {
  const opened = await listen(server.url, taskIds, { id });
  if (!isStream(opened)) throw new Error(`listen was refused: ${JSON.stringify(opened)}`);
  streams.push(opened);
  return opened;
}

/** What tasks/get returned, minus the fields a notification does not carry. */
function asNotified(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _resultType, _meta, ...task } = result;
  return task;
}

describe("subscriptions/listen with taskIds", () => {
  it("acknowledges only the task ids the server knows, and notifies nothing about other tasks", async () => {
    const watched = await createTask();
    const other = await createTask();
    const stream = await openStream([watched, "no-such-task"], "listen-1");
    expect(stream.status).toBe(200);
    expect(await stream.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: [watched] }, _meta: { [SUBSCRIPTION_ID]: "listen-1" } },
    });

    await call(server.url, "tasks/get", { taskId: other }); // changes the task this stream did not ask for
    const polled = await call(server.url, "tasks/get", { taskId: watched });
    const notification = await stream.next(); // the first change on the stream is the watched task's
    expect(notification["method"]).toBe("notifications/tasks");
    const params = notification["params"] as Record<string, unknown>;
    expect(params["_meta"]).toEqual({ [SUBSCRIPTION_ID]: "listen-1" });
    expect(asNotified(params)).toEqual(asNotified(polled));
    expect(params).toMatchObject({ taskId: watched, status: "working", statusMessage: "step 1" });
  });

  it("pushes the full detailed task for every change, through to the terminal result", async () => {
    const taskId = await createTask();
    const stream = await openStream([taskId], "listen-2");
    await stream.next();
    await call(server.url, "tasks/get", { taskId });
    await call(server.url, "tasks/get", { taskId });
    expect((await stream.next())["params"]).toMatchObject({ status: "working" });
    expect((await stream.next())["params"]).toMatchObject({
      taskId,
      status: "completed",
      result: { content: [{ type: "text", text: "all done" }] },
      _meta: { [SUBSCRIPTION_ID]: "listen-2" },
    });
  });

  it("records what it writes in server.notifications, in order, a scripted duplicate twice", async () => {
    const duplicating = await startTaskServer({
      tools: [defineTool({ name: "watched", steps: [step.working("step 1"), step.stall()] })],
      listen: { acknowledge: (taskIds) => taskIds, duplicate: true },
    });
    try {
      const taskId = (await call(duplicating.url, "tools/call", { name: "watched" }))["taskId"] as string;
      const opened = await listen(duplicating.url, [taskId], { id: "listen-log" });
      if (!isStream(opened)) throw new Error(`listen was refused: ${JSON.stringify(opened)}`);
      streams.push(opened);
      const delivered = [await opened.next()];
      await call(duplicating.url, "tasks/get", { taskId });
      delivered.push(await opened.next(), await opened.next());

      const logged = duplicating.notifications.all();
      expect(logged.map(({ listenId, method }) => [listenId, method])).toEqual([
        ["listen-log", "notifications/subscriptions/acknowledged"],
        ["listen-log", "notifications/tasks"],
        ["listen-log", "notifications/tasks"],
      ]);
      // The log holds exactly what went over the wire.
      expect(logged.map((entry) => entry.params)).toEqual(delivered.map((message) => message["params"]));
      expect(logged[1]?.params).toMatchObject({ taskId, status: "working", statusMessage: "step 1" });
      expect(logged[2]?.sentAt).toBeGreaterThanOrEqual(logged[0]?.sentAt as number);
      expect(duplicating.notifications.forMethod("notifications/tasks")).toHaveLength(2);
    } finally {
      await duplicating.close();
    }
  });

  it("pushes a cancellation", async () => {
    const taskId = await createTask();
    const stream = await openStream([taskId], "listen-3");
    await stream.next();
    await call(server.url, "tasks/cancel", { taskId });
    expect((await stream.next())["params"]).toMatchObject({ taskId, status: "cancelled" });
  });

  it("ends open streams with the empty subscriptions/listen result when the server closes", async () => {
    const taskId = await createTask();
    const stream = await openStream([taskId], "listen-4");
    await stream.next();
    await server.close();
    expect(await stream.next()).toEqual({
      jsonrpc: "2.0",
      id: "listen-4",
      result: { resultType: "complete", _meta: { [SUBSCRIPTION_ID]: "listen-4" } },
    });
  });

  it("answers -32021 to a listen for task ids that does not declare the extension", async () => {
    const taskId = await createTask();
    const reply = await listen(server.url, [taskId], { tasks: false });
    expect(isStream(reply)).toBe(false);
    expect(reply).toMatchObject({
      status: 400,
      error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } },
    });
  });

  it("answers -32602 when taskIds is not a list of strings", async () => {
    expect(await listen(server.url, "not-a-list")).toMatchObject({ status: 400, error: { code: -32602 } });
  });

  it("leaves a listen without taskIds to the SDK's own listen router", async () => {
    const stream = await openStream(undefined, "sdk-listen"); // taskIds: undefined is dropped from the JSON body
    const acknowledgement = await stream.next();
    expect(acknowledgement).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: {} },
    });
    expect((acknowledgement["params"] as { notifications: object }).notifications).not.toHaveProperty(
      "taskIds",
    );
  });

  it("rejects a listen whose Mcp-Method header disagrees with the body with -32020", async () => {
    const reply = await listen(server.url, [], { headers: { "mcp-method": "tasks/get" } });
    expect(reply).toMatchObject({ status: 400, error: { code: -32020 } });
  });
});

describe("subscriptions/listen with toolsListChanged", () => {
  it("acknowledges it and sends notifications/tools/list_changed, stamped, each time the tools change", async () => {
    expect((await call(server.url, "server/discover"))["capabilities"]).toMatchObject({
      tools: { listChanged: true },
    });
    const taskId = await createTask();
    const opened = await listen(server.url, [taskId], { id: "tools-1", filter: { toolsListChanged: true } });
    if (!isStream(opened)) throw new Error(`listen was refused: ${JSON.stringify(opened)}`);
    streams.push(opened);
    expect(await opened.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: { taskIds: [taskId], toolsListChanged: true },
        _meta: { [SUBSCRIPTION_ID]: "tools-1" },
      },
    });
    server.setTools([defineTool({ name: "other", steps: [step.complete(textResult("done"))] })]);
    const changed = {
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [SUBSCRIPTION_ID]: "tools-1" } },
    };
    expect(await opened.next()).toEqual(changed);
    expect(
      ((await call(server.url, "tools/list"))["tools"] as { name: string }[]).map((tool) => tool.name),
    ).toEqual(["other"]);
    server.toolsChanged();
    expect(await opened.next()).toEqual(changed);
    expect(
      server.notifications.forMethod("notifications/tools/list_changed").map((entry) => entry.listenId),
    ).toEqual(["tools-1", "tools-1"]);
  });

  it("sends nothing about tools to a listen that did not ask", async () => {
    const taskId = await createTask();
    const stream = await openStream([taskId], "tasks-only");
    expect(((await stream.next())["params"] as { notifications: unknown }).notifications).toEqual({
      taskIds: [taskId],
    });
    server.setTools([]);
    await call(server.url, "tasks/get", { taskId }); // the next message on the stream is this change
    expect((await stream.next())["method"]).toBe("notifications/tasks");
    expect(server.notifications.forMethod("notifications/tools/list_changed")).toEqual([]);
  });

  it("reaches a listen without taskIds too (the SDK serves it)", async () => {
    const opened = await listen(server.url, undefined, {
      id: "tools-only",
      filter: { toolsListChanged: true },
    });
    if (!isStream(opened)) throw new Error(`listen was refused: ${JSON.stringify(opened)}`);
    streams.push(opened);
    expect((await opened.next())["params"]).toMatchObject({ notifications: { toolsListChanged: true } });
    server.setTools([]);
    expect(await opened.next()).toMatchObject({
      method: "notifications/tools/list_changed",
      params: { _meta: { [SUBSCRIPTION_ID]: "tools-only" } },
    });
  });
});
