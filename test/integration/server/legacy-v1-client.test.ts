/**
 * The kit's 2025-11-25 mode (`startTaskServer({ era: "2025-11-25" })`, `startStdioTaskServer`) driven by
 * the v1 SDK `Client` and its experimental tasks API, over Streamable HTTP and over stdio: every fixture
 * tool, cancellation, input through the `tasks/result` stream, TTL expiry, unknown ids, `tasks/list`
 * pages, status notifications, and what the request log shows.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  TaskStatusNotificationSchema,
  type ElicitRequest,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import {
  defineTool,
  fixtureTools,
  listRoots,
  sampleText,
  step,
  systemClock,
  textResult,
  type Clock,
  type ToolDefinition,
} from "mcp-tasks/testing";
import { connectLegacy, type LegacyConnection, type LegacyTransportKind } from "./legacyV1Client.js";

const RELATED_TASK = "io.modelcontextprotocol/related-task";
const KINDS: LegacyTransportKind[] = ["http", "stdio"];

/** A task-only tool that never moves on its own: it waits to be cancelled or to expire. */
const hang = defineTool({ name: "hang", task: "required", steps: [step.stall()] });

/** Create a task through a task-augmented `tools/call`; resolves with the 2025 `Task`. */
async function createTask(client: Client, name: string, args: Record<string, unknown> = {}, ttl?: number) {
  const created = await client.request(
    { method: "tools/call", params: { name, arguments: args, task: ttl === undefined ? {} : { ttl } } },
    CreateTaskResultSchema,
  );
  return created.task;
}

/** Run `name` as a task through `callToolStream`; resolves with every message it yielded. */
async function streamTask(client: Client, name: string, args: Record<string, unknown> = {}) {
  const messages = [];
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
    task: {},
  });
  for await (const message of stream) messages.push(message);
  return messages;
}

function textOf(result: unknown): string {
  return ((result as { content?: Array<{ text?: string }> }).content?.[0]?.text ?? "") as string;
}

/** Answers the fixtures' elicitations: the name is Ada, and everything is confirmed. */
function answerElicitation(request: ElicitRequest) {
  const properties = (request.params as { requestedSchema?: { properties?: Record<string, unknown> } })
    .requestedSchema?.properties;
  return properties !== undefined && "name" in properties
    ? { action: "accept" as const, content: { name: "Ada" } }
    : { action: "accept" as const, content: { confirm: true } };
}

/** One connection per test, closed when the test ends. */
async function connection(
  kind: LegacyTransportKind,
  options: Parameters<typeof connectLegacy>[1],
  prepare?: Parameters<typeof connectLegacy>[2],
) {
  const opened = await connectLegacy(kind, options, prepare);
  onTestFinished(() => opened.close());
  return opened;
}

describe.each(KINDS)("the 2025-11-25 kit over %s, driven by the v1 SDK Client", (kind) => {
  let conn: LegacyConnection;
  const elicitations: ElicitRequest["params"][] = [];
  const statuses: Task[] = [];

  beforeAll(async () => {
    conn = await connectLegacy(kind, { tools: fixtureTools({ timeScale: 0.01 }) }, (client) => {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        elicitations.push(request.params);
        return answerElicitation(request);
      });
      client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
        statuses.push(notification.params as Task);
      });
    });
  });
  afterAll(async () => {
    await conn?.close();
  });

  it("negotiates 2025-11-25 tasks: tasks/list, tasks/cancel and task-augmented tools/call", () => {
    expect(conn.client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    expect(conn.server.requests.forMethod("initialize")[0]?.body).toMatchObject({
      params: { protocolVersion: "2025-11-25" },
    });
  });

  it("lists each fixture with its execution.taskSupport", async () => {
    const { tools } = await conn.client.listTools();
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.execution?.taskSupport]))).toEqual({
      greet: "forbidden",
      slow_compute: "optional",
      failing_job: "required",
      protocol_error_job: "optional",
      confirm_delete: "required",
      multi_input: "required",
      test_tool_with_task: "required",
    });
  });

  it("greet answers a plain call and refuses a task with -32601", async () => {
    expect(textOf(await conn.client.callTool({ name: "greet", arguments: { name: "Ada" } }))).toBe(
      "Hello, Ada!",
    );
    await expect(createTask(conn.client, "greet", { name: "Ada" })).rejects.toMatchObject({
      code: -32601,
      message: expect.stringContaining("taskSupport: forbidden"),
    });
  });

  it("failing_job refuses a plain call with -32601: it requires task augmentation", async () => {
    const plain = conn.client.request(
      { method: "tools/call", params: { name: "failing_job", arguments: {} } },
      CallToolResultSchema,
    );
    await expect(plain).rejects.toMatchObject({
      code: -32601,
      message: expect.stringContaining("requires task"),
    });
  });

  it("slow_compute as a task completes with its result, pushing status notifications on the way", async () => {
    const messages = await streamTask(conn.client, "slow_compute", { seconds: 1, label: "sum" });
    const created = messages[0];
    expect(created).toMatchObject({
      type: "taskCreated",
      task: { status: "working", ttl: 300_000, pollInterval: 200 },
    });
    const taskId = (created as { task: Task }).task.taskId;
    const last = messages.at(-1) as { type: string; result: Record<string, unknown> };
    expect(last.type).toBe("result");
    expect(textOf(last.result)).toBe('Computed "sum" in 1s');
    expect(last.result["_meta"]).toEqual({ [RELATED_TASK]: { taskId } });
    await vi.waitFor(() =>
      expect(statuses).toContainEqual(expect.objectContaining({ taskId, status: "completed" })),
    );
  });

  it("slow_compute without a task answers the call itself", async () => {
    const result = await conn.client.callTool({ name: "slow_compute", arguments: { seconds: 1 } });
    expect(textOf(result)).toBe('Computed "result" in 1s');
  });

  it("failing_job ends failed, and tasks/result returns its isError result", async () => {
    const messages = await streamTask(conn.client, "failing_job");
    const taskId = (messages[0] as { task: Task }).task.taskId;
    expect(messages.at(-1)).toMatchObject({ type: "error" });
    expect(await conn.client.experimental.tasks.getTask(taskId)).toMatchObject({ status: "failed" });
    const result = await conn.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result).toMatchObject({
      isError: true,
      content: [{ text: "The job failed: simulated tool error" }],
    });
  });

  it("protocol_error_job ends failed, and tasks/result answers with its JSON-RPC error", async () => {
    const { taskId } = await createTask(conn.client, "protocol_error_job");
    const result = conn.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    await expect(result).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("Simulated internal error in protocol_error_job"),
    });
    expect(await conn.client.experimental.tasks.getTask(taskId)).toMatchObject({
      status: "failed",
      statusMessage: "Tool execution failed: Simulated internal error in protocol_error_job",
    });
  });

  it("cancels a running task once; a second cancel and tasks/result are refused", async () => {
    const { taskId } = await createTask(conn.client, "slow_compute", { seconds: 60 });
    expect(await conn.client.experimental.tasks.cancelTask(taskId)).toMatchObject({
      taskId,
      status: "cancelled",
    });
    expect(await conn.client.experimental.tasks.getTask(taskId)).toMatchObject({ status: "cancelled" });
    await expect(conn.client.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({ code: -32602 });
    await expect(
      conn.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
    ).rejects.toMatchObject({ code: -32603, message: expect.stringContaining("cancelled") });
    expect(conn.server.tasks.inspect(taskId)?.cancelRequested).toBe(true);
  });

  it("confirm_delete asks through elicitation/create on the tasks/result stream, then completes", async () => {
    const messages = await streamTask(conn.client, "confirm_delete", { filename: "a.txt" });
    const taskId = (messages[0] as { task: Task }).task.taskId;
    expect(messages).toContainEqual(
      expect.objectContaining({
        type: "taskStatus",
        task: expect.objectContaining({ status: "input_required" }),
      }),
    );
    expect(textOf((messages.at(-1) as { result: unknown }).result)).toBe("Deleted a.txt");
    const asked = elicitations.filter(
      (params) => (params._meta?.[RELATED_TASK] as { taskId?: string } | undefined)?.taskId === taskId,
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: "form", message: "Delete a.txt?" });
    expect(conn.server.tasks.inspect(taskId)?.responses).toEqual({
      confirm: { action: "accept", content: { confirm: true } },
    });
  });

  it("multi_input asks both questions and completes with both answers", async () => {
    const messages = await streamTask(conn.client, "multi_input");
    expect(textOf((messages.at(-1) as { result: unknown }).result)).toBe("Received name=Ada, confirm=true");
  });

  it("test_tool_with_task asks on the tools/call stream before the task, then greets from the task", async () => {
    const before = elicitations.length;
    const messages = await streamTask(conn.client, "test_tool_with_task");
    expect(textOf((messages.at(-1) as { result: unknown }).result)).toBe("Hello, Ada!");
    expect(elicitations.slice(before)).toEqual([
      expect.objectContaining({ message: "What is your name?", _meta: {} }),
    ]);
  });

  it("answers -32602 to tasks/get, tasks/result and tasks/cancel for an unknown task id", async () => {
    const tasks = conn.client.experimental.tasks;
    for (const attempt of [
      tasks.getTask("nope"),
      tasks.getTaskResult("nope", CallToolResultSchema),
      tasks.cancelTask("nope"),
    ]) {
      await expect(attempt).rejects.toMatchObject({ code: -32602 });
    }
  });
});

describe.each(KINDS)("scripted 2025-11-25 behaviour over %s", (kind) => {
  it("a task expires after the ttl the client asked for", async () => {
    let offset = 0;
    const clock: Clock = { ...systemClock, now: () => Date.now() + offset };
    const { client } = await connection(kind, { tools: [hang], clock });
    const task = await createTask(client, "hang", {}, 1_000);
    expect(task).toMatchObject({ status: "working", ttl: 1_000 });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "working" });
    offset = 1_001;
    await expect(client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("expired"),
    });
    await expect(
      client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("tasks/list pages through every task with the configured page size", async () => {
    const { client } = await connection(kind, { tools: [hang], taskListPageSize: 2 });
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await createTask(client, "hang")).taskId);
    const pages: string[][] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const listed = await client.experimental.tasks.listTasks(cursor);
      pages.push(listed.tasks.map((task) => task.taskId));
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    expect(pages.map((ids) => ids.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(created);
    await expect(client.experimental.tasks.listTasks("not-a-cursor")).rejects.toMatchObject({ code: -32602 });
  });

  it("the request log shows a poll-advanced task polled once, and a cancel received once", async () => {
    const once = defineTool({ name: "once", task: "required", steps: [step.complete(textResult("done"))] });
    const { client, server } = await connection(kind, { tools: [once, hang] });
    const messages = await streamTask(client, "once");
    expect(textOf((messages.at(-1) as { result: unknown }).result)).toBe("done");
    expect(server.requests.forMethod("tasks/get")).toHaveLength(1);
    expect(server.requests.forMethod("tasks/result")).toHaveLength(1);

    const { taskId } = await createTask(client, "hang");
    await client.experimental.tasks.cancelTask(taskId);
    expect(server.requests.forMethod("tasks/cancel").map((entry) => entry.body)).toEqual([
      expect.objectContaining({ params: { taskId } }),
    ]);
  });

  it("scripted status messages and poll intervals show on tasks/get, and a poll error answers once", async () => {
    const scripted: ToolDefinition = defineTool({
      name: "scripted",
      task: "required",
      steps: [
        step.working("Building"),
        step.pollInterval(50),
        step.pollErrors(1),
        step.complete(textResult("built")),
      ],
    });
    const { client } = await connection(kind, { tools: [scripted] });
    const { taskId } = await createTask(client, "scripted");
    const tasks = client.experimental.tasks;
    expect(await tasks.getTask(taskId)).toMatchObject({
      status: "working",
      statusMessage: "Building",
      pollInterval: 100,
    });
    expect(await tasks.getTask(taskId)).toMatchObject({ pollInterval: 50 });
    await expect(tasks.getTask(taskId)).rejects.toMatchObject({ code: -32603 });
    expect(await tasks.getTask(taskId)).toMatchObject({ status: "completed" });
  });

  it("sampling and roots requests reach the client's handlers, and an unanswerable request fails the task", async () => {
    const ask = defineTool({
      name: "ask",
      task: "required",
      steps: [
        step.input({ summary: sampleText("Summarise"), roots: listRoots() }),
        step.complete((call) => {
          const summary = call.responses["summary"] as { content?: { text?: string } };
          const roots = call.responses["roots"] as { roots?: Array<{ uri: string }> };
          return textResult(`${summary.content?.text} from ${roots.roots?.[0]?.uri}`);
        }),
      ],
    });
    const sampled: unknown[] = [];
    const { client } = await connection(kind, { tools: [ask] }, (v1) => {
      v1.setRequestHandler(CreateMessageRequestSchema, (request) => {
        sampled.push(request.params._meta);
        return { role: "assistant", model: "test", content: { type: "text", text: "short" } };
      });
      v1.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: "file:///repo" }] }));
    });
    const messages = await streamTask(client, "ask");
    const taskId = (messages[0] as { task: Task }).task.taskId;
    expect(textOf((messages.at(-1) as { result: unknown }).result)).toBe("short from file:///repo");
    expect(sampled).toEqual([{ [RELATED_TASK]: { taskId } }]);

    const { client: bare } = await connection(kind, { tools: [ask] });
    const failed = await streamTask(bare, "ask");
    const failedId = (failed[0] as { task: Task }).task.taskId;
    expect(await bare.experimental.tasks.getTask(failedId)).toMatchObject({
      status: "failed",
      statusMessage: expect.stringContaining("Method not found"),
    });
  });
});
