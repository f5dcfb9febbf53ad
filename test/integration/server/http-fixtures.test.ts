import { afterEach, describe, expect, it, vi } from "vitest";
import type { HttpTaskServer } from "../../../src/testing/index.js";
import { startTaskServer } from "../../../src/testing/index.js";
import { call, callError } from "./rawRpc.js";

const ELICITATION = { elicitation: {} };

let server: HttpTaskServer;
afterEach(async () => {
  await server.close();
  vi.useRealTimers();
});

async function start(): Promise<string> {
  server = await startTaskServer();
  return server.url;
}

async function task(url: string, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const created = await call(url, "tools/call", { name, arguments: args }, { capabilities: ELICITATION });
  expect(created["resultType"]).toBe("task");
  return created["taskId"] as string;
}

describe("the default fixture tools (what the conformance suite calls)", () => {
  it("are all listed", async () => {
    const url = await start();
    const { tools } = (await call(url, "tools/list")) as { tools: { name: string }[] };
    expect(tools.map((tool) => tool.name)).toEqual([
      "greet",
      "slow_compute",
      "failing_job",
      "protocol_error_job",
      "confirm_delete",
      "multi_input",
      "test_tool_with_task",
    ]);
  });

  it("greet answers at once, never as a task", async () => {
    const url = await start();
    expect(await call(url, "tools/call", { name: "greet", arguments: { name: "World" } })).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "Hello, World!" }],
    });
  });

  it("slow_compute completes after its seconds, and is cancelled promptly", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const url = await start();
    const done = await task(url, "slow_compute", { seconds: 2, label: "sum" });
    const cancelled = await task(url, "slow_compute", { seconds: 60, label: "long" });
    vi.advanceTimersByTime(1999);
    expect((await call(url, "tasks/get", { taskId: done }))["status"]).toBe("working");
    vi.advanceTimersByTime(1);
    expect(await call(url, "tasks/get", { taskId: done })).toMatchObject({
      status: "completed",
      result: { content: [{ text: 'Computed "sum" in 2s' }] },
    });
    await call(url, "tasks/cancel", { taskId: cancelled });
    expect((await call(url, "tasks/get", { taskId: cancelled }))["status"]).toBe("cancelled");
  });

  it("failing_job completes with isError after a second, and needs the extension", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const url = await start();
    const taskId = await task(url, "failing_job");
    vi.advanceTimersByTime(1000);
    expect(await call(url, "tasks/get", { taskId })).toMatchObject({
      status: "completed",
      result: { isError: true },
    });
    expect(await callError(url, "tools/call", { name: "failing_job" }, { tasks: false })).toMatchObject({
      code: -32021,
    });
  });

  it("protocol_error_job fails with a JSON-RPC error", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const url = await start();
    const taskId = await task(url, "protocol_error_job");
    vi.advanceTimersByTime(500);
    const failed = await call(url, "tasks/get", { taskId });
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603 } });
    expect(failed).not.toHaveProperty("result");
  });

  it("confirm_delete asks one form question and completes once it is answered", async () => {
    const url = await start();
    const taskId = await task(url, "confirm_delete", { filename: "a.txt" });
    const asking = await call(url, "tasks/get", { taskId });
    expect(asking).toMatchObject({
      status: "input_required",
      inputRequests: { confirm: { method: "elicitation/create" } },
    });
    await call(url, "tasks/update", {
      taskId,
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    });
    expect(await call(url, "tasks/get", { taskId })).toMatchObject({
      status: "completed",
      result: { content: [{ text: "Deleted a.txt" }] },
    });
  });

  it("multi_input asks two questions at once and waits for both", async () => {
    const url = await start();
    const taskId = await task(url, "multi_input");
    expect(Object.keys((await call(url, "tasks/get", { taskId }))["inputRequests"] as object)).toEqual([
      "name",
      "confirm",
    ]);
    await call(url, "tasks/update", {
      taskId,
      inputResponses: { name: { action: "accept", content: { name: "Ann" } } },
    });
    expect(Object.keys((await call(url, "tasks/get", { taskId }))["inputRequests"] as object)).toEqual([
      "confirm",
    ]);
    await call(url, "tasks/update", {
      taskId,
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    });
    expect(await call(url, "tasks/get", { taskId })).toMatchObject({
      status: "completed",
      result: { content: [{ text: "Received name=Ann, confirm=true" }] },
    });
  });

  it("test_tool_with_task asks for a name over MRTR, then creates a task that greets it", async () => {
    const url = await start();
    const first = await call(
      url,
      "tools/call",
      { name: "test_tool_with_task" },
      { capabilities: ELICITATION },
    );
    expect(first).toMatchObject({
      resultType: "input_required",
      inputRequests: { user_name: { method: "elicitation/create" } },
    });
    const second = await call(
      url,
      "tools/call",
      {
        name: "test_tool_with_task",
        inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } },
        requestState: first["requestState"],
      },
      { capabilities: ELICITATION },
    );
    expect(second).toMatchObject({ resultType: "task" });
    expect(await call(url, "tasks/get", { taskId: second["taskId"] })).toMatchObject({
      status: "completed",
      result: { content: [{ text: "Hello, Alice!" }] },
    });
  });
});
