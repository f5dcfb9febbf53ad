import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HttpTaskServer } from "../../../src/testing/index.js";
import {
  acceptedContent,
  defineTool,
  elicitForm,
  elicitUrl,
  listRoots,
  sampleText,
  startTaskServer,
  step,
  textResult,
} from "../../../src/testing/index.js";
import { call, callError } from "./rawRpc.js";

const ALL_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

const tools = [
  defineTool({
    name: "two_questions",
    task: "required",
    steps: [
      step.input({
        name: elicitForm("Name?", { name: { type: "string" } }, ["name"]),
        ok: elicitForm("Go?", { ok: { type: "boolean" } }),
      }),
      step.complete((call) =>
        textResult(
          `${String(acceptedContent(call, "name")?.["name"])}:${String(acceptedContent(call, "ok")?.["ok"])}`,
        ),
      ),
    ],
  }),
  defineTool({
    name: "every_kind",
    task: "required",
    steps: [
      step.input({
        form: elicitForm("Form?", { a: { type: "string" } }),
        link: elicitUrl("Sign in", "https://example.com/auth"),
        model: sampleText("Summarise", 64),
        roots: listRoots(),
      }),
      step.complete(textResult("all answered")),
    ],
  }),
  defineTool({
    name: "mrtr_then_task",
    task: "optional",
    beforeTask: [step.input({ who: elicitForm("Who?", { who: { type: "string" } }, ["who"]) })],
    steps: [step.complete((call) => textResult(`hello ${String(acceptedContent(call, "who")?.["who"])}`))],
  }),
];

let server: HttpTaskServer;
beforeEach(async () => {
  server = await startTaskServer({ tools });
});
afterEach(async () => {
  await server.close();
});

async function startTask(name: string): Promise<string> {
  return (await call(server.url, "tools/call", { name }, { capabilities: ALL_CAPABILITIES }))[
    "taskId"
  ] as string;
}

describe("input_required tasks over HTTP", () => {
  it("surfaces each kind of input request verbatim on tasks/get", async () => {
    const taskId = await startTask("every_kind");
    const task = await call(server.url, "tasks/get", { taskId });
    expect(task["status"]).toBe("input_required");
    expect(task["inputRequests"]).toEqual({
      form: elicitForm("Form?", { a: { type: "string" } }),
      link: {
        method: "elicitation/create",
        params: { mode: "url", message: "Sign in", url: "https://example.com/auth" },
      },
      model: {
        method: "sampling/createMessage",
        params: { messages: [{ role: "user", content: { type: "text", text: "Summarise" } }], maxTokens: 64 },
      },
      roots: { method: "roots/list" },
    });
  });

  it("accepts partial answers and keeps only the unanswered keys outstanding", async () => {
    const taskId = await startTask("two_questions");
    await call(server.url, "tasks/get", { taskId });
    const ack = await call(server.url, "tasks/update", {
      taskId,
      inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
    });
    expect(ack).toMatchObject({ resultType: "complete" });
    expect(Object.keys(ack)).toEqual(["resultType", "_meta"]);
    const waiting = await call(server.url, "tasks/get", { taskId });
    expect(waiting["status"]).toBe("input_required");
    expect(Object.keys(waiting["inputRequests"] as object)).toEqual(["ok"]);

    await call(server.url, "tasks/update", {
      taskId,
      inputResponses: { ok: { action: "accept", content: { ok: true } } },
    });
    expect(server.tasks.get(taskId)?.status).toBe("working");
    expect(await call(server.url, "tasks/get", { taskId })).toMatchObject({
      status: "completed",
      result: { content: [{ text: "Ada:true" }] },
    });
  });

  it("ignores answers for keys that are not outstanding", async () => {
    const taskId = await startTask("two_questions");
    await call(server.url, "tasks/get", { taskId });
    await call(server.url, "tasks/update", {
      taskId,
      inputResponses: {
        never_asked: { action: "accept", content: { x: 1 } },
        name: { action: "accept", content: { name: "Bo" } },
      },
    });
    // "name" is no longer outstanding: a second answer for it changes nothing.
    await call(server.url, "tasks/update", {
      taskId,
      inputResponses: { name: { action: "accept", content: { name: "Cy" } } },
    });
    expect(server.tasks.inspect(taskId)?.responses).toEqual({
      name: { action: "accept", content: { name: "Bo" } },
    });
    expect(server.tasks.get(taskId)).toMatchObject({ status: "input_required", inputRequests: { ok: {} } });
    expect(Object.keys((server.tasks.get(taskId) as { inputRequests: object }).inputRequests)).toEqual([
      "ok",
    ]);
  });

  it("rejects a malformed answer for an outstanding key with -32602 and keeps the request outstanding", async () => {
    const taskId = await startTask("two_questions");
    await call(server.url, "tasks/get", { taskId });
    const error = await callError(server.url, "tasks/update", {
      taskId,
      inputResponses: { name: { action: "maybe" } },
    });
    expect(error.code).toBe(-32602);
    const wrongType = await callError(server.url, "tasks/update", {
      taskId,
      inputResponses: { name: "Ada" },
    });
    expect(wrongType.code).toBe(-32602);
    expect(server.tasks.inspect(taskId)?.responses).toEqual({});
  });

  it("rejects tasks/update without inputResponses with -32602", async () => {
    const taskId = await startTask("two_questions");
    expect(await callError(server.url, "tasks/update", { taskId })).toMatchObject({ code: -32602 });
  });

  it("resolves MRTR rounds on the call before creating the task, carrying the answer into it", async () => {
    const first = await call(
      server.url,
      "tools/call",
      { name: "mrtr_then_task" },
      { capabilities: ALL_CAPABILITIES },
    );
    expect(first).toMatchObject({
      resultType: "input_required",
      inputRequests: { who: elicitForm("Who?", { who: { type: "string" } }, ["who"]) },
    });
    expect(first["taskId"]).toBeUndefined();
    expect(server.tasks.size).toBe(0);

    const retry = await call(
      server.url,
      "tools/call",
      {
        name: "mrtr_then_task",
        inputResponses: { who: { action: "accept", content: { who: "Lin" } } },
        requestState: first["requestState"],
      },
      { capabilities: ALL_CAPABILITIES },
    );
    expect(retry).toMatchObject({ resultType: "task", status: "working" });
    expect(Object.keys(retry)).not.toContain("requestState");
    const done = await call(server.url, "tasks/get", { taskId: retry["taskId"] });
    expect(done).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "hello Lin" }] },
    });
  });

  it("runs the whole script as MRTR rounds when the request did not declare the extension", async () => {
    const first = await call(
      server.url,
      "tools/call",
      { name: "mrtr_then_task" },
      { tasks: false, capabilities: ALL_CAPABILITIES },
    );
    const retry = await call(
      server.url,
      "tools/call",
      {
        name: "mrtr_then_task",
        inputResponses: { who: { action: "accept", content: { who: "Mo" } } },
        requestState: first["requestState"],
      },
      { tasks: false, capabilities: ALL_CAPABILITIES },
    );
    expect(retry).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "hello Mo" }] });
  });

  it("asks again for an MRTR answer that the retry left out", async () => {
    const first = await call(
      server.url,
      "tools/call",
      { name: "mrtr_then_task" },
      { capabilities: ALL_CAPABILITIES },
    );
    const retry = await call(
      server.url,
      "tools/call",
      { name: "mrtr_then_task", inputResponses: {}, requestState: first["requestState"] },
      { capabilities: ALL_CAPABILITIES },
    );
    expect(retry).toMatchObject({ resultType: "input_required", inputRequests: { who: {} } });
  });

  it("rejects a requestState whose content was changed with -32602", async () => {
    const first = await call(
      server.url,
      "tools/call",
      { name: "mrtr_then_task" },
      { capabilities: ALL_CAPABILITIES },
    );
    const [body, signature] = (first["requestState"] as string).split(".") as [string, string];
    const state = JSON.parse(Buffer.from(body, "base64url").toString()) as Record<string, unknown>;
    const forged = Buffer.from(
      JSON.stringify({
        ...state,
        responses: { who: { action: "accept", content: { who: "Eve" } } },
        index: 1,
      }),
    );
    const tampered = `${forged.toString("base64url")}.${signature}`;
    const error = await callError(
      server.url,
      "tools/call",
      {
        name: "mrtr_then_task",
        inputResponses: { who: { action: "accept", content: { who: "Eve" } } },
        requestState: tampered,
      },
      { capabilities: ALL_CAPABILITIES },
    );
    expect(error.code).toBe(-32602);
  });

  it("refuses an MRTR round the request's capabilities cannot answer with -32021", async () => {
    const error = await callError(server.url, "tools/call", { name: "mrtr_then_task" });
    expect(error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });
});
