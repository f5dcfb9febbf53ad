import { request } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HttpTaskServer } from "../../../src/testing/index.js";
import { defineTool, startTaskServer, step, textResult } from "../../../src/testing/index.js";
import { call, callError, TASKS } from "./rawRpc.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const tools = [
  defineTool({ name: "quick", task: "never", steps: [step.complete(textResult("quick answer"))] }),
  defineTool({
    name: "job",
    task: "optional",
    steps: [step.working("busy"), step.complete(textResult("job done"))],
  }),
  defineTool({ name: "task_only", task: "required", steps: [step.complete(textResult("done"))] }),
  defineTool({
    name: "broken",
    task: "optional",
    steps: [step.fail({ code: -32603, message: "disk on fire", data: { disk: 1 } })],
  }),
  defineTool({
    name: "tool_error",
    task: "optional",
    steps: [step.complete(textResult("bad input", { isError: true }))],
  }),
];

let server: HttpTaskServer;
beforeEach(async () => {
  server = await startTaskServer({ tools });
});
afterEach(async () => {
  await server.close();
});

describe("the reference server over HTTP", () => {
  it("advertises the tasks extension in server/discover", async () => {
    const result = await call(server.url, "server/discover");
    expect(result["capabilities"]).toMatchObject({ extensions: { [TASKS]: {} } });
    expect(result["supportedVersions"]).toEqual(["2026-07-28"]);
  });

  it("answers a declaring request to a task tool with a flat CreateTaskResult whose task already exists", async () => {
    const created = await call(server.url, "tools/call", { name: "job", arguments: {} });
    expect(created).toMatchObject({
      resultType: "task",
      status: "working",
      ttlMs: 300_000,
      pollIntervalMs: 100,
    });
    expect(Object.keys(created)).not.toContain("content");
    expect(Object.keys(created)).not.toContain("result");
    expect(created["taskId"]).toMatch(UUID);
    expect(server.tasks.get(created["taskId"] as string)?.status).toBe("working");
    const polled = await call(server.url, "tasks/get", { taskId: created["taskId"] });
    expect(polled).toMatchObject({
      resultType: "complete",
      taskId: created["taskId"],
      status: "working",
      statusMessage: "busy",
    });
  });

  it("gives every task a different random UUID", async () => {
    const ids = new Set<unknown>();
    for (let i = 0; i < 5; i++) ids.add((await call(server.url, "tools/call", { name: "job" }))["taskId"]);
    expect(ids.size).toBe(5);
    expect(server.tasks.size).toBe(5);
  });

  it("never returns a CreateTaskResult to a request that did not declare the extension", async () => {
    const result = await call(server.url, "tools/call", { name: "job", arguments: {} }, { tasks: false });
    expect(result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "job done" }] });
    expect(result["taskId"]).toBeUndefined();
    expect(server.tasks.size).toBe(0);
  });

  it("answers a tool that never runs as a task synchronously even when the extension is declared", async () => {
    const result = await call(server.url, "tools/call", { name: "quick" });
    expect(result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "quick answer" }],
    });
  });

  it("answers -32021 with data.requiredCapabilities when a task-only tool is called without the declaration", async () => {
    const error = await callError(server.url, "tools/call", { name: "task_only" }, { tasks: false });
    expect(error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    expect(server.tasks.size).toBe(0);
  });

  it("answers -32021 to tasks/get, tasks/update and tasks/cancel that do not declare the extension", async () => {
    const { taskId } = (await call(server.url, "tools/call", { name: "job" })) as { taskId: string };
    for (const [method, extra] of [
      ["tasks/get", {}],
      ["tasks/update", { inputResponses: {} }],
      ["tasks/cancel", {}],
    ] as const) {
      const error = await callError(server.url, method, { taskId, ...extra }, { tasks: false });
      expect(error, method).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
      });
    }
    expect(server.tasks.get(taskId)?.status).toBe("working");
  });

  it("answers -32602 for a task it does not know", async () => {
    for (const method of ["tasks/get", "tasks/cancel"]) {
      expect(await callError(server.url, method, { taskId: "no-such-task" }), method).toMatchObject({
        code: -32602,
        message: "Failed to retrieve task: Task not found",
      });
    }
    expect(
      await callError(server.url, "tasks/update", { taskId: "no-such-task", inputResponses: {} }),
    ).toMatchObject({ code: -32602 });
  });

  it("rejects tasks/* whose Mcp-Name header is missing or names another task with -32020 and HTTP 400", async () => {
    const { taskId } = (await call(server.url, "tools/call", { name: "job" })) as { taskId: string };
    const missing = await callError(server.url, "tasks/get", { taskId }, { headers: { "mcp-name": null } });
    expect(missing).toMatchObject({ code: -32020, status: 400 });
    const other = await callError(
      server.url,
      "tasks/cancel",
      { taskId },
      { headers: { "mcp-name": "some-other-task" } },
    );
    expect(other).toMatchObject({ code: -32020, status: 400 });
    expect(server.tasks.inspect(taskId)).toMatchObject({ polls: 0, cancelRequested: false });
  });

  it("ends a task failed with the JSON-RPC error, and no result, when execution raises one", async () => {
    const { taskId } = (await call(server.url, "tools/call", { name: "broken" })) as { taskId: string };
    const task = await call(server.url, "tasks/get", { taskId });
    expect(task).toMatchObject({
      status: "failed",
      error: { code: -32603, message: "disk on fire", data: { disk: 1 } },
      statusMessage: "Tool execution failed: disk on fire",
    });
    expect(task["result"]).toBeUndefined();
  });

  it("answers the JSON-RPC error itself when the failing tool runs without a task", async () => {
    const error = await callError(server.url, "tools/call", { name: "broken" }, { tasks: false });
    expect(error).toMatchObject({ code: -32603, message: "disk on fire" });
  });

  it("ends a task completed when the tool result has isError: true", async () => {
    const { taskId } = (await call(server.url, "tools/call", { name: "tool_error" })) as { taskId: string };
    const task = await call(server.url, "tasks/get", { taskId });
    expect(task).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "bad input" }], isError: true },
    });
    expect(task["error"]).toBeUndefined();
  });

  it("acknowledges tasks/cancel with an empty result and reports the task cancelled", async () => {
    const { taskId } = (await call(server.url, "tools/call", { name: "job" })) as { taskId: string };
    expect(await call(server.url, "tasks/cancel", { taskId })).toEqual({
      resultType: "complete",
      _meta: {
        "io.modelcontextprotocol/serverInfo": { name: "mcp-tasks-reference-server", version: "0.1.0" },
      },
    });
    expect(await call(server.url, "tasks/get", { taskId })).toMatchObject({ status: "cancelled" });
    expect(await call(server.url, "tasks/cancel", { taskId })).toMatchObject({ resultType: "complete" });
  });

  it("refuses a request addressed to a non-loopback Host (DNS rebinding) with HTTP 403", async () => {
    const { port } = new URL(server.url);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path: "/mcp",
          method: "POST",
          headers: { host: "attacker.example", "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(status).toBe(403);
  });

  it("answers -32601 to the removed tasks/result and tasks/list", async () => {
    expect(await callError(server.url, "tasks/result", { taskId: "x" })).toMatchObject({ code: -32601 });
    expect(await callError(server.url, "tasks/list")).toMatchObject({ code: -32601 });
  });
});
