import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TASKS } from "./rawRpc.js";
import { StdioSession } from "./stdioRpc.js";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const ELICITATION = { elicitation: {} };

let session: StdioSession;
beforeAll(() => {
  session = StdioSession.start();
});
afterAll(async () => {
  await session.close();
});

async function confirmDeleteTask(): Promise<string> {
  const reply = await session.request(
    "tools/call",
    { name: "confirm_delete", arguments: { filename: "x" } },
    { capabilities: ELICITATION },
  );
  expect(reply.result).toMatchObject({ resultType: "task", status: "working" });
  return reply.result?.["taskId"] as string;
}

describe("the mcp-tasks-server bin over stdio", () => {
  it("advertises the tasks extension in server/discover", async () => {
    const reply = await session.request("server/discover");
    expect(reply.result?.["capabilities"]).toMatchObject({ extensions: { [TASKS]: {} } });
  });

  it("runs a task through input_required to completed with tasks/get and tasks/update", async () => {
    const taskId = await confirmDeleteTask();
    expect((await session.request("tasks/get", { taskId })).result).toMatchObject({
      resultType: "complete",
      status: "input_required",
    });
    const ack = await session.request("tasks/update", {
      taskId,
      inputResponses: { confirm: { action: "accept", content: { confirm: false } } },
    });
    expect(ack.result).toMatchObject({ resultType: "complete" });
    expect((await session.request("tasks/get", { taskId })).result).toMatchObject({
      status: "completed",
      result: { content: [{ text: "Kept x" }] },
    });
  });

  it("answers -32021 to an undeclared task-only call and to undeclared tasks/* requests", async () => {
    const taskId = await confirmDeleteTask();
    expect(
      (await session.request("tools/call", { name: "failing_job" }, { tasks: false })).error,
    ).toMatchObject({ code: -32021 });
    expect((await session.request("tasks/get", { taskId }, { tasks: false })).error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  });

  it("answers -32602 for an unknown task", async () => {
    expect((await session.request("tasks/get", { taskId: "missing" })).error).toMatchObject({ code: -32602 });
  });

  it("serves a listen stream, acknowledging only tasks that move on their own (poll-advanced ones stay polled)", async () => {
    const taskId = await confirmDeleteTask(); // advances per tasks/get: pushing it would stall it
    session.send({
      jsonrpc: "2.0",
      id: "stdio-listen",
      method: "subscriptions/listen",
      params: {
        notifications: { taskIds: [taskId, "unknown"] },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
        },
      },
    });
    expect(await session.nextNotification()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: [] }, _meta: { [SUBSCRIPTION_ID]: "stdio-listen" } },
    });
    await session.request("tasks/get", { taskId });
    expect(session.pendingNotifications()).toEqual([]);
    session.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "stdio-listen" },
    });
    await session.request("tasks/cancel", { taskId });
    expect(session.pendingNotifications()).toEqual([]);
  });

  it("exits when stdin ends", async () => {
    const short = StdioSession.start();
    await short.request("server/discover");
    expect(await short.close()).toBe(0);
  });
});
