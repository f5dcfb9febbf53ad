/**
 * `mcp-tasks/ai-sdk` in real AI SDK loops (`generateText`, `streamText` of `ai` 6) with the SDK's own mock
 * language model (`ai/test`), against the reference server over Streamable HTTP on 127.0.0.1. The mock model
 * is scripted per step: it calls a tool, then answers with what it read in the tool result, so the test sees
 * exactly what reached the model.
 */
import { generateText, stepCountIs, streamText } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { TaskClient } from "mcp-tasks";
import type { TaskHost } from "mcp-tasks/host";
import { aiSdkTools, handedOff, type AiSdkToolOutput } from "mcp-tasks/ai-sdk";
import type { HttpTaskServer } from "mcp-tasks/testing";
import { FORECAST, REPORT, REPORT_STEPS, bridgeServer, connect, taskIds } from "./harness.js";
import { calledTools, hearStatus, hostOfTwoForBlock } from "./host-harness.js";

/** The major version of `ai` under test: 6, or 7 under `npm run test:ai-sdk-v7`. */
const AI_MAJOR = process.env["MCP_TASKS_AI_MAJOR"] ?? "6";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

type Prompt = Array<{ role: string; content: unknown }>;
interface ToolResultSeen {
  toolName: string;
  output: { type: string; value?: unknown };
}

/** The tool results in the prompt the model was given, in order. */
function toolResults(prompt: Prompt): ToolResultSeen[] {
  return prompt
    .filter((message) => message.role === "tool")
    .flatMap((message) => message.content as Array<ToolResultSeen & { type: string }>)
    .filter((part) => part.type === "tool-result");
}

type Call = { name: string; input: Record<string, unknown> };

/**
 * A mock model that makes the given tool calls, one step each (`async` calls may wait first), then answers
 * with a JSON text of every tool result it read.
 */
function scriptedModel(calls: Array<Call | (() => Promise<Call>)>) {
  const prompts: Prompt[] = [];
  const next = async (prompt: Prompt) => {
    prompts.push(prompt);
    const step = prompts.length - 1;
    const planned = calls[step];
    if (planned === undefined) return { done: true as const, text: JSON.stringify(toolResults(prompt)) };
    const call = typeof planned === "function" ? await planned() : planned;
    return { done: false as const, id: `call-${step}`, call };
  };
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const turn = await next(prompt as Prompt);
      if (turn.done)
        return {
          content: [{ type: "text", text: turn.text }],
          finishReason: { unified: "stop", raw: undefined },
          usage,
          warnings: [],
        };
      return {
        content: [
          {
            type: "tool-call",
            toolCallId: turn.id,
            toolName: turn.call.name,
            input: JSON.stringify(turn.call.input),
          },
        ],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    },
    doStream: async ({ prompt }) => {
      const turn = await next(prompt as Prompt);
      const parts = turn.done
        ? [
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: turn.text },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
          ]
        : [
            {
              type: "tool-call",
              toolCallId: turn.id,
              toolName: turn.call.name,
              input: JSON.stringify(turn.call.input),
            },
            { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
          ];
      return {
        stream: convertArrayToReadableStream([{ type: "stream-start", warnings: [] }, ...parts] as never[]),
      };
    },
  });
  return { model, prompts };
}

/**
 * Runs `tool` in `generateText` with a run signal aborted at the task's first `working` update: the run rejects
 * with the abort, and the handle ends once the server confirms (by then every request it made is in the log).
 */
async function abortAtWorking(target: TaskClient | TaskHost, tool: string): Promise<void> {
  const controller = new AbortController();
  const tools = await aiSdkTools(target, {
    include: [tool],
    onUpdate: ({ update }) => {
      if (update.status === "working") controller.abort();
    },
  });
  const { model } = scriptedModel([{ name: tool, input: {} }]);
  await expect(
    generateText({ model, tools, prompt: "Work", abortSignal: controller.signal, stopWhen: stepCountIs(3) }),
  ).rejects.toMatchObject({ name: "AbortError" });
  await vi.waitFor(() => expect(target.tasks()).toHaveLength(0));
}

let server: HttpTaskServer;
let client: TaskClient;
const clientAsked: string[] = [];

beforeAll(async () => {
  server = await bridgeServer();
  client = await connect(server, {
    inputHandlers: {
      elicitation: async (params) => {
        clientAsked.push(params.message);
        return { action: "accept", content: { confirm: false } };
      },
    },
  });
});
afterAll(async () => {
  await client.close();
  await server.close();
});
afterEach(() => server.requests.clear());

describe("aiSdkTools", () => {
  it("runs on the ai major version this run asks for (6 on Node 20; 7 on Node 22 with npm run test:ai-sdk-v7)", async () => {
    // ai 7's test kit has the V4 mock models; ai 6's has none.
    expect("MockLanguageModelV4" in (await import("ai/test"))).toBe(AI_MAJOR === "7");
    if (AI_MAJOR === "7") expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(22);
  });

  it("offers the selected tools with the server's JSON Schema, under the prefix", async () => {
    const tools = await aiSdkTools(client, { include: ["build_report", "greet"], prefix: "acme_" });
    expect(Object.keys(tools)).toEqual(["greet", "build_report"].map((name) => `acme_${name}`));
    expect(tools["acme_build_report"]?.description).toBe("Builds the quarterly report.");
    const schema = await (tools["acme_build_report"]?.inputSchema as { jsonSchema: unknown }).jsonSchema;
    expect(schema).toEqual({
      type: "object",
      properties: { quarter: { type: "string" } },
      required: ["quarter"],
    });
    const byPredicate = await aiSdkTools(client, { include: (tool) => tool.name.startsWith("slow") });
    expect(Object.keys(byPredicate)).toEqual(["slow_compute"]);
  });

  it("refuses an include list that names a tool the server does not have", async () => {
    await expect(aiSdkTools(client, { include: ["build_reprot"] })).rejects.toThrow(
      'aiSdkTools: the server has no tool "build_reprot"',
    );
  });

  it("runs a task tool in generateText: the model reads the result", async () => {
    const updates: string[] = [];
    const tools = await aiSdkTools(client, {
      include: ["build_report"],
      onUpdate: ({ toolName, toolCallId, update }) =>
        updates.push(`${toolName} ${toolCallId} ${update.statusMessage ?? ""}`),
    });
    const { model, prompts } = scriptedModel([{ name: "build_report", input: { quarter: "Q3" } }]);
    const result = await generateText({
      model,
      tools,
      prompt: "Build the Q3 report",
      stopWhen: stepCountIs(3),
    });
    expect(JSON.parse(result.text)).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-0",
        toolName: "build_report",
        output: { type: "text", value: REPORT },
      },
    ]);
    expect(updates.filter((line) => REPORT_STEPS.some((step) => line.endsWith(step)))).toEqual(
      REPORT_STEPS.map((step) => `build_report call-0 ${step}`),
    );
    expect(server.requests.forMethod("tasks/get").length).toBeGreaterThanOrEqual(REPORT_STEPS.length);
    expect(prompts).toHaveLength(2);
  });

  it("streams the task's status as preliminary tool results, then the final output", async () => {
    const tools = await aiSdkTools(client, { include: ["build_report"] });
    const { model } = scriptedModel([{ name: "build_report", input: { quarter: "Q3" } }]);
    const stream = streamText({ model, tools, prompt: "Build the Q3 report", stopWhen: stepCountIs(3) });
    const seen: Array<{ preliminary: boolean; output: AiSdkToolOutput }> = [];
    for await (const part of stream.fullStream) {
      if (part.type === "tool-result")
        seen.push({ preliminary: part.preliminary === true, output: part.output as AiSdkToolOutput });
    }
    const preliminary = seen.filter((part) => part.preliminary && part.output.type === "status");
    expect(preliminary.map((part) => part.output).filter((output) => "statusMessage" in output)).toEqual(
      REPORT_STEPS.map((statusMessage) => ({ type: "status", status: "working", statusMessage })),
    );
    const final = seen.filter((part) => !part.preliminary);
    expect(final).toEqual([
      {
        preliminary: false,
        output: { type: "result", result: { content: [{ type: "text", text: REPORT }] } },
      },
    ]);
    expect(JSON.parse(await stream.text)).toEqual([
      expect.objectContaining({ output: { type: "text", value: REPORT } }),
    ]);
  });

  it("gives the model an isError result and a failed task as error outputs, and the loop goes on", async () => {
    const tools = await aiSdkTools(client, { include: ["failing_job", "protocol_error_job"] });
    const { model, prompts } = scriptedModel([
      { name: "failing_job", input: {} },
      { name: "protocol_error_job", input: {} },
    ]);
    const result = await generateText({ model, tools, prompt: "Run both", stopWhen: stepCountIs(4) });
    expect(prompts).toHaveLength(3); // two tool steps, then the answer
    const [isError, failed] = JSON.parse(result.text) as ToolResultSeen[];
    expect(isError?.output).toEqual({ type: "error-text", value: "The job failed: simulated tool error" });
    expect(failed?.output.type).toBe("error-text");
    expect(failed?.output.value).toMatch(
      /^Tool "protocol_error_job" did not complete \(failed\): task \S{4}…\S{2}: failed with JSON-RPC error -32603: Simulated internal error in protocol_error_job$/,
    );
    // The model never sees a task id whole.
    for (const id of taskIds(server)) expect(JSON.stringify(prompts)).not.toContain(id);
  });

  it("hands on a typed tool's checked structuredContent; a result that breaks its outputSchema is an error output", async () => {
    const tools = await aiSdkTools(client, { include: ["forecast", "broken_forecast"] });
    const { model } = scriptedModel([
      { name: "forecast", input: {} },
      { name: "broken_forecast", input: {} },
    ]);
    const result = await generateText({ model, tools, prompt: "Forecast", stopWhen: stepCountIs(4) });
    const outputs = result.steps.flatMap((each) =>
      each.toolResults.map((part) => part.output as AiSdkToolOutput),
    );
    expect(outputs[0]).toMatchObject({ type: "result", result: { structuredContent: FORECAST } });
    const [forecast, broken] = JSON.parse(result.text) as ToolResultSeen[];
    expect(forecast?.output).toEqual({ type: "text", value: JSON.stringify(FORECAST) });
    expect(broken?.output).toEqual({
      type: "error-text",
      value:
        'Tool "broken_forecast" did not complete (error): tools/call: the result of "broken_forecast" does not ' +
        'match its outputSchema: /city: Instance type "number" is invalid. Expected "string". (2 problems in all)',
    });
  });

  it("shows the model text and an image from a multi-part result (toModelOutput)", async () => {
    const tools = await aiSdkTools(client, { include: ["chart"] });
    const { model } = scriptedModel([{ name: "chart", input: {} }]);
    const result = await generateText({ model, tools, prompt: "Chart it", stopWhen: stepCountIs(3) });
    expect((JSON.parse(result.text) as ToolResultSeen[])[0]?.output).toEqual({
      type: "content",
      value: [
        { type: "text", text: "Revenue by quarter" },
        // ai 7 hands the bridge's image-data part to a V3 model as file-data.
        { type: AI_MAJOR === "7" ? "file-data" : "image-data", data: "iVBORw0KGgo=", mediaType: "image/png" },
      ],
    });
  });

  it("aborting the run mid-task sends exactly one tasks/cancel, and generateText rejects with the abort", async () => {
    await abortAtWorking(client, "endless_job");
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect(server.requests.forMethod("notifications/cancelled")).toEqual([]);
    const [taskId] = taskIds(server).filter((id) => server.tasks.get(id)?.status === "cancelled");
    expect(taskId).toBeDefined();
  });

  it("routes a task's elicitation to the bridge's inputHandlers, not the client's", async () => {
    clientAsked.length = 0;
    const asked: Array<{ message: string; toolCallId: string | undefined; toolName: string | undefined }> =
      [];
    const tools = await aiSdkTools(client, {
      include: ["confirm_delete"],
      inputHandlers: {
        elicitation: async (params, context) => {
          asked.push({ message: params.message, toolCallId: context.toolCallId, toolName: context.toolName });
          return { action: "accept", content: { confirm: true } };
        },
      },
    });
    const { model } = scriptedModel([{ name: "confirm_delete", input: { filename: "notes.txt" } }]);
    const result = await generateText({ model, tools, prompt: "Delete notes.txt", stopWhen: stepCountIs(3) });
    expect((JSON.parse(result.text) as ToolResultSeen[])[0]?.output).toEqual({
      type: "text",
      value: "Deleted notes.txt",
    });
    expect(asked).toEqual([
      { message: "Delete notes.txt?", toolCallId: "call-0", toolName: "confirm_delete" },
    ]);
    expect(clientAsked).toEqual([]);
  });

  it("hands off a task that outlasts afterMs, and a later task_status returns its result", async () => {
    const tools = await aiSdkTools(client, { include: ["slow_compute"], handoff: { afterMs: 30 } });
    expect(Object.keys(tools)).toEqual(["slow_compute", "task_status", "task_cancel"]);
    let ref = "";
    const { model, prompts } = scriptedModel([
      { name: "slow_compute", input: { seconds: 30, label: "forecast" } }, // 300 ms at this time scale
      async () => {
        // The model read the note; the host waits for the handed-off work before the model checks back.
        const note = toolResults(prompts[1]!)[0]?.output.value as string;
        ref = /task (task_[0-9a-f]{16})/.exec(note)?.[1] ?? "";
        expect(
          handedOff(client)
            .list()
            .map((task) => task.ref),
        ).toContain(ref);
        expect((await handedOff(client).wait(ref))?.kind).toBe("completed");
        return { name: "task_status", input: { ref } };
      },
    ]);
    const result = await generateText({ model, tools, prompt: "Forecast", stopWhen: stepCountIs(4) });
    const [note, status] = JSON.parse(result.text) as ToolResultSeen[];
    expect(note?.output).toEqual({
      type: "text",
      value:
        `Started "slow_compute"; it is still running as task ${ref}. ` +
        `Call task_status with {"ref": "${ref}"} to check on it later, or task_cancel to stop it.`,
    });
    expect(status?.output).toEqual({ type: "text", value: 'Computed "forecast" in 30s' });
    handedOff(client).forget(ref);
  });
});

describe("aiSdkTools over a TaskHost", () => {
  const hosted = hostOfTwoForBlock();

  it("refuses an include list with a name no server of the host has", async () => {
    await expect(
      aiSdkTools(hosted().host, { include: ["sales__build_report", "build_report"] }),
    ).rejects.toThrow('aiSdkTools: no server of the host has tool "build_report"');
  });

  it("offers every server's tools under qualified names and runs each on its server, streaming its status", async () => {
    const two = hosted();
    const heard: string[] = [];
    const tools = await aiSdkTools(two.host, {
      include: ["sales__build_report", "weather__forecast"],
      onUpdate: hearStatus(heard),
    });
    expect(Object.keys(tools)).toEqual(["sales__build_report", "weather__forecast"]);
    const { model } = scriptedModel([
      { name: "sales__build_report", input: { quarter: "Q3" } },
      { name: "weather__forecast", input: {} },
    ]);
    const stream = streamText({ model, tools, prompt: "Report and forecast", stopWhen: stepCountIs(4) });
    const seen: Array<{ tool: string; preliminary: boolean; output: AiSdkToolOutput }> = [];
    for await (const part of stream.fullStream) {
      if (part.type === "tool-result")
        seen.push({
          tool: part.toolName,
          preliminary: part.preliminary === true,
          output: part.output as AiSdkToolOutput,
        });
    }
    const statuses = seen.filter((part) => part.preliminary && "statusMessage" in part.output);
    expect(statuses.map((part) => [part.tool, part.output])).toEqual(
      REPORT_STEPS.map((statusMessage) => [
        "sales__build_report",
        { type: "status", status: "working", statusMessage },
      ]),
    );
    expect(seen.filter((part) => !part.preliminary)).toEqual([
      {
        tool: "sales__build_report",
        preliminary: false,
        output: { type: "result", result: { content: [{ type: "text", text: REPORT }] } },
      },
      {
        tool: "weather__forecast",
        preliminary: false,
        output: {
          type: "result",
          result: {
            content: [{ type: "text", text: JSON.stringify(FORECAST) }],
            structuredContent: FORECAST,
          },
        },
      },
    ]);
    expect(heard).toEqual(REPORT_STEPS.map((step) => `sales build_report ${step}`));
    expect(calledTools(two.sales)).toEqual(["build_report"]);
    expect(calledTools(two.weather)).toEqual(["forecast"]);
  });

  it("aborting the run cancels the task on its own server only (one tasks/cancel)", async () => {
    const two = hosted();
    await abortAtWorking(two.host, "weather__endless_job");
    expect(two.weather.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect(two.sales.requests.all()).toEqual([]);
  });
});
