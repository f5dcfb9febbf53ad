/**
 * The 2025-11-25 tasks generation behind the same handle, against the v1 SDK's experimental tasks over
 * Streamable HTTP on 127.0.0.1 (and a stdio round trip): the client asks for tasks where tools say so, follows
 * them with `tasks/get` + `tasks/result`, cancels and lists them, and refuses what the server cannot do.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  TaskClient,
  TaskFailedError,
  UnsupportedError,
  type CallToolResult,
  type TaskStatus,
} from "../../../src/index.js";
import { FAST, closesAfterEach } from "../lifecycle/helpers.js";
import { startV1TasksHttp, type RunningV1Server } from "./fixtures/v1-tasks-server.js";

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

const track = closesAfterEach();
let server: RunningV1Server;
let bare: RunningV1Server;

beforeAll(async () => {
  server = await startV1TasksHttp();
  bare = await startV1TasksHttp({ tasks: false });
});
afterAll(async () => {
  await server.close();
  await bare.close();
});

const fixture = fileURLToPath(new URL("./fixtures/v1-tasks-stdio.ts", import.meta.url));
const root = fileURLToPath(new URL("../../../", import.meta.url));
const stdioServer = (pollIntervalMs?: number) => ({
  command: process.execPath,
  args: ["--import", "tsx", fixture, ...(pollIntervalMs === undefined ? [] : [String(pollIntervalMs)])],
  cwd: root,
});

const connect = (options = {}) => TaskClient.connect(server.url, { ...FAST, ...options }).then(track);

describe("a 2025-11-25 server with v1 SDK experimental tasks", () => {
  it("runs a `required` tool as a task and presents its tasks/result as the result", async () => {
    const client = await connect();
    // It serves tasks in its generation (capabilities.tasks): supportsTasks says so.
    expect(client.server).toMatchObject({
      era: "legacy",
      protocolVersion: "2025-11-25",
      supportsTasks: true,
    });
    const handle = client.callTool("report", { ms: 300, text: "x" });
    const statuses: { status: TaskStatus; message?: string }[] = [];
    for await (const snapshot of handle)
      statuses.push({ status: snapshot.status, message: snapshot.statusMessage });
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("completed");
    expect(outcome.taskId).toEqual(expect.any(String));
    expect(textOf(await handle)).toBe("report: x");
    expect(statuses.at(-1)?.status).toBe("completed");
    expect(statuses.some((s) => s.status === "working")).toBe(true);
    expect(await handle.ref).toMatchObject({ v: 1, era: "legacy", toolName: "report" });
  });

  it("reports a task that failed with an isError result as the 2026 path would: completed, isError", async () => {
    const client = await connect();
    const result = await client.callTool("broken", { ms: 50 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("boom");
  });

  it("fails a task whose tasks/result is a JSON-RPC error with TaskFailedError", async () => {
    const client = await connect();
    const outcome = await client.callTool("crash", { ms: 50 }).outcome();
    expect(outcome.kind).toBe("failed");
    expect("error" in outcome && outcome.error).toBeInstanceOf(TaskFailedError);
    expect(outcome.taskId).toEqual(expect.any(String));
  });

  it("cancels with the 2025 tasks/cancel and reports the server's cancelled state", async () => {
    const client = await connect();
    const handle = client.callTool("forever", {});
    await handle.ref;
    const { ack, outcome } = await handle.cancel("enough");
    expect(ack).toMatchObject({ status: "cancelled" });
    expect(outcome).toMatchObject({ kind: "cancelled", error: { confirmed: true } });
  });

  it("asks for the caller's ttl and ends the handle when the task's lifetime is over", async () => {
    const client = await connect({ ttlGraceMs: 0 });
    const handle = client.callTool("forever", {}, { taskTtlMs: 300 });
    const outcome = await handle.outcome();
    expect(["expired", "not_found"]).toContain(outcome.kind);
    expect((await handle.ref)?.ttlMs).toBe(300);
  });

  it("ends a handle for an unknown task id with not_found at once, without retrying", async () => {
    const client = await connect();
    const started = Date.now();
    const outcome = await client.task("no-such-task").outcome();
    expect(outcome.kind).toBe("not_found");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("lists every task over tasks/list pages", async () => {
    const client = await connect();
    const handles = Array.from({ length: 12 }, () => client.callTool("forever", {}));
    const ids = await Promise.all(handles.map(async (h) => (await h.ref)?.taskId));
    const listed = await client.listTasks();
    expect(listed.map((t) => t.taskId)).toEqual(expect.arrayContaining(ids));
    expect(listed.length).toBeGreaterThan(10); // the v1 store pages by 10
    expect(listed[0]).toMatchObject({ status: "working", ttlMs: expect.any(Number) });
  });

  it('augments an `optional` tool by default and not with legacyTasks: "never"', async () => {
    const client = await connect();
    const tasked = client.callTool("maybe", { ms: 50 });
    expect(textOf(await tasked)).toBe("maybe done");
    expect((await tasked.outcome()).taskId).toEqual(expect.any(String));

    const plain = client.callTool("maybe", { ms: 50 }, { legacyTasks: "never" });
    expect(textOf(await plain)).toBe("maybe done");
    expect((await plain.outcome()).taskId).toBeUndefined();

    const never = await connect({ legacyTasks: "never" });
    expect((await never.callTool("maybe", { ms: 50 }).outcome()).taskId).toBeUndefined();
  });

  it("calls a tool without taskSupport plainly", async () => {
    const client = await connect();
    const handle = client.callTool("echo", { text: "hi" });
    expect(textOf(await handle)).toBe("hi");
    expect((await handle.outcome()).taskId).toBeUndefined();
  });

  it("follows the task a placeholder result names instead of reporting the placeholder as completed", async () => {
    const client = await connect();
    const handle = client.callTool("placeholder", {});
    expect(textOf(await handle)).toBe("the real result");
    expect((await handle.outcome()).taskId).toEqual(expect.any(String));
  });

  it("lists the tools with their execution.taskSupport, unknown fields kept", async () => {
    const client = await connect();
    const tools = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("report")?.execution).toEqual({ taskSupport: "required" });
    expect(byName.get("maybe")?.execution).toEqual({ taskSupport: "optional" });
    expect(byName.get("echo")?.inputSchema).toMatchObject({ type: "object" });
  });

  it("over stdio too: a required tool completes through the task", async () => {
    const client = track(await TaskClient.connect(stdioServer(), FAST));
    expect(client.server.era).toBe("legacy");
    const handle = client.callTool("report", { ms: 100, text: "stdio" });
    expect(textOf(await handle)).toBe("report: stdio");
    expect((await handle.outcome()).taskId).toEqual(expect.any(String));
  });
});

describe("input while a 2025 task runs", () => {
  it("a related-task elicitation reaches the handler once, with the task id, and the handle emits input", async () => {
    const contexts: (string | undefined)[] = [];
    const client = await connect({
      inputHandlers: {
        elicitation: async (_params: unknown, context: { taskId?: string }) => {
          contexts.push(context.taskId);
          return { action: "accept" as const, content: { ok: true } };
        },
      },
    });
    const handle = client.callTool("ask", {});
    const inputs: unknown[] = [];
    handle.on("input", (event) => inputs.push(event));
    expect(textOf(await handle)).toBe('answer: {"ok":true}');
    const taskId = (await handle.outcome()).taskId;
    expect(contexts).toEqual([taskId]);
    expect(inputs).toHaveLength(1);
  });
});

describe("notifications/tasks/status", () => {
  it("moves a handle on between polls: with a 60 s poll interval the task still ends at once", async () => {
    const client = track(
      await TaskClient.connect(stdioServer(60_000), { ...FAST, polling: { maxIntervalMs: 60_000 } }),
    );
    const handle = client.callTool("report", { ms: 200, text: "pushed" });
    const messages: (string | undefined)[] = [];
    handle.on("update", (update) => messages.push(update.statusMessage));
    const started = Date.now();
    expect(textOf(await handle)).toBe("report: pushed");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(messages).toContain("halfway"); // pushed, never polled
  });
});

describe("a 2025-11-25 server without tasks", () => {
  it("refuses task(), cancel() and describe() at once with UnsupportedError naming what is missing", async () => {
    const client = await TaskClient.connect(bare.url, FAST).then(track);
    expect(client.server).toMatchObject({ era: "legacy", supportsTasks: false });
    const started = Date.now();
    expect(() => client.task("some-task")).toThrow(UnsupportedError);
    expect(() => client.task("some-task")).toThrow(/capabilities\.tasks/);
    await expect(client.cancel("some-task")).rejects.toBeInstanceOf(UnsupportedError);
    const handle = client.callTool("echo", { text: "plain" });
    expect(textOf(await handle)).toBe("plain");
    await expect(handle.describe()).rejects.toBeInstanceOf(UnsupportedError);
    await expect(client.listTasks()).rejects.toBeInstanceOf(UnsupportedError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
