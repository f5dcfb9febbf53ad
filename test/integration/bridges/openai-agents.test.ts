/**
 * `mcp-tasks/openai-agents` in the OpenAI Agents SDK's own run loop (`Runner.run`) with a scripted `Model`
 * implementation, against the reference server over Streamable HTTP on 127.0.0.1. The model records the input
 * items it was given, so the test sees exactly which function call results reached it.
 */
import { Agent, Runner, Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { TaskClient } from "mcp-tasks";
import { handedOff, openaiAgentsTools } from "mcp-tasks/openai-agents";
import type { HttpTaskServer } from "mcp-tasks/testing";
import { FORECAST, REPORT, REPORT_STEPS, bridgeServer, connect, taskIds } from "./harness.js";
import { calledTools, hearStatus, hostOfTwoForBlock } from "./host-harness.js";

type Call = { name: string; args: Record<string, unknown> };
interface ResultItem {
  type: "function_call_result";
  callId: string;
  name: string;
  output: unknown;
}

/** A model that makes the planned function calls, one turn each (a function may wait first), then answers "done". */
class ScriptedModel implements Model {
  readonly seen: unknown[][] = [];
  constructor(private readonly calls: Array<Call | (() => Promise<Call>)>) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.seen.push(Array.isArray(request.input) ? [...request.input] : [request.input]);
    const turn = this.seen.length - 1;
    const planned = this.calls[turn];
    const call = typeof planned === "function" ? await planned() : planned;
    const output =
      call === undefined
        ? [
            {
              type: "message" as const,
              role: "assistant" as const,
              status: "completed" as const,
              content: [{ type: "output_text" as const, text: "done" }],
            },
          ]
        : [
            {
              type: "function_call" as const,
              callId: `call-${turn}`,
              name: call.name,
              arguments: JSON.stringify(call.args),
              status: "completed" as const,
            },
          ];
    return { usage: new Usage(), output };
  }

  // eslint-disable-next-line require-yield -- the runs here do not stream
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used");
  }

  /** The function call results the model was shown (the last input holds them all). */
  results(): ResultItem[] {
    return ((this.seen.at(-1) ?? []) as ResultItem[]).filter((item) => item.type === "function_call_result");
  }
}

const runner = new Runner({ tracingDisabled: true });

async function runAgent(
  model: ScriptedModel,
  tools: Awaited<ReturnType<typeof openaiAgentsTools>>,
  signal?: AbortSignal,
) {
  const agent = new Agent({ name: "assistant", instructions: "Use the tools.", model, tools });
  return runner.run(agent, "Go", { maxTurns: 5, ...(signal && { signal }) });
}

/** The text the model read from a function call result. */
function outputText(item: ResultItem | undefined): unknown {
  const output = item?.output as { type?: string; text?: string } | undefined;
  return output?.type === "text" ? output.text : output;
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

describe("openaiAgentsTools", () => {
  it("offers the selected tools as non-strict function tools with the server's JSON Schema", async () => {
    const tools = await openaiAgentsTools(client, { include: ["build_report"], prefix: "acme_" });
    expect(tools.map((tool) => [tool.name, tool.strict])).toEqual([["acme_build_report", false]]);
    expect(tools[0]?.parameters).toEqual({
      type: "object",
      properties: { quarter: { type: "string" } },
      required: ["quarter"],
    });
  });

  it("runs a task tool in the run loop: the model reads the result; onUpdate hears the status", async () => {
    const updates: string[] = [];
    const tools = await openaiAgentsTools(client, {
      include: ["build_report"],
      onUpdate: ({ toolCallId, update }) => {
        if (update.statusMessage !== undefined) updates.push(`${toolCallId} ${update.statusMessage}`);
      },
    });
    const model = new ScriptedModel([{ name: "build_report", args: { quarter: "Q3" } }]);
    const result = await runAgent(model, tools);
    expect(result.finalOutput).toBe("done");
    expect(model.results().map((item) => [item.callId, outputText(item)])).toEqual([["call-0", REPORT]]);
    expect(updates.slice(0, REPORT_STEPS.length)).toEqual(REPORT_STEPS.map((step) => `call-0 ${step}`));
  });

  it("gives the model an isError result and a failed task as Error texts, and the loop goes on", async () => {
    const tools = await openaiAgentsTools(client, { include: ["failing_job", "protocol_error_job"] });
    const model = new ScriptedModel([
      { name: "failing_job", args: {} },
      { name: "protocol_error_job", args: {} },
    ]);
    const result = await runAgent(model, tools);
    expect(result.finalOutput).toBe("done");
    const [isError, failed] = model.results().map(outputText);
    expect(isError).toBe("Error: The job failed: simulated tool error");
    expect(failed).toMatch(
      /^Error: Tool "protocol_error_job" did not complete \(failed\): task \S{4}…\S{2}: failed with JSON-RPC error -32603: Simulated internal error in protocol_error_job$/,
    );
    for (const id of taskIds(server)) expect(JSON.stringify(model.seen)).not.toContain(id);
  });

  it("gives the model a typed tool's checked structure as JSON text; a result that breaks its outputSchema is an Error text", async () => {
    const tools = await openaiAgentsTools(client, { include: ["forecast", "broken_forecast"] });
    const model = new ScriptedModel([
      { name: "forecast", args: {} },
      { name: "broken_forecast", args: {} },
    ]);
    await runAgent(model, tools);
    const [forecast, broken] = model.results().map(outputText);
    expect(forecast).toBe(JSON.stringify(FORECAST));
    expect(broken).toMatch(
      /^Error: Tool "broken_forecast" did not complete \(error\): .*\/city: Instance type/,
    );
  });

  it("gives text and image outputs for a multi-part result", async () => {
    const tools = await openaiAgentsTools(client, { include: ["chart"] });
    const model = new ScriptedModel([{ name: "chart", args: {} }]);
    await runAgent(model, tools);
    expect(model.results()[0]?.output).toEqual([
      { type: "input_text", text: "Revenue by quarter" },
      { type: "input_image", image: "data:image/png;base64,iVBORw0KGgo=" },
    ]);
  });

  it("aborting the run mid-task sends exactly one tasks/cancel, and the run rejects with the abort", async () => {
    const controller = new AbortController();
    const tools = await openaiAgentsTools(client, {
      include: ["endless_job"],
      onUpdate: ({ update }) => {
        if (update.status === "working") controller.abort();
      },
    });
    const model = new ScriptedModel([{ name: "endless_job", args: {} }]);
    await expect(runAgent(model, tools, controller.signal)).rejects.toThrow(/abort/i);
    await vi.waitFor(() => expect(client.tasks()).toHaveLength(0));
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect(server.requests.forMethod("notifications/cancelled")).toEqual([]);
    expect(taskIds(server).some((id) => server.tasks.get(id)?.status === "cancelled")).toBe(true);
  });

  it("routes a task's elicitation to the bridge's inputHandlers, not the client's", async () => {
    clientAsked.length = 0;
    const contexts: Array<{ toolCallId: string | undefined; toolName: string | undefined }> = [];
    const tools = await openaiAgentsTools(client, {
      include: ["confirm_delete"],
      inputHandlers: {
        elicitation: async (_params, { toolCallId, toolName }) => {
          contexts.push({ toolCallId, toolName });
          return { action: "accept", content: { confirm: true } };
        },
      },
    });
    const model = new ScriptedModel([{ name: "confirm_delete", args: { filename: "notes.txt" } }]);
    await runAgent(model, tools);
    expect(model.results().map(outputText)).toEqual(["Deleted notes.txt"]);
    expect(contexts).toEqual([{ toolCallId: "call-0", toolName: "confirm_delete" }]);
    expect(clientAsked).toEqual([]);
  });

  it("hands off a task that outlasts afterMs, and a later task_status returns its result", async () => {
    const tools = await openaiAgentsTools(client, { include: ["slow_compute"], handoff: { afterMs: 30 } });
    expect(tools.map((tool) => tool.name)).toEqual(["slow_compute", "task_status", "task_cancel"]);
    let ref = "";
    const model = new ScriptedModel([
      { name: "slow_compute", args: { seconds: 30, label: "forecast" } },
      async () => {
        ref = /task (task_[0-9a-f]{16})/.exec(String(outputText(model.results()[0])))?.[1] ?? "";
        expect((await handedOff(client).wait(ref))?.kind).toBe("completed");
        return { name: "task_status", args: { ref } };
      },
    ]);
    await runAgent(model, tools);
    expect(model.results().map(outputText)).toEqual([
      `Started "slow_compute"; it is still running as task ${ref}. ` +
        `Call task_status with {"ref": "${ref}"} to check on it later, or task_cancel to stop it.`,
      'Computed "forecast" in 30s',
    ]);
    handedOff(client).forget(ref);
  });
});

describe("openaiAgentsTools over a TaskHost", () => {
  const hosted = hostOfTwoForBlock();

  it("runs every server's tools under qualified names in the run loop, each on its server, status to onUpdate", async () => {
    const two = hosted();
    const heard: string[] = [];
    const tools = await openaiAgentsTools(two.host, {
      include: ["sales__build_report", "weather__forecast"],
      onUpdate: hearStatus(heard),
    });
    expect(tools.map((tool) => tool.name)).toEqual(["sales__build_report", "weather__forecast"]);
    const model = new ScriptedModel([
      { name: "sales__build_report", args: { quarter: "Q3" } },
      { name: "weather__forecast", args: {} },
    ]);
    expect((await runAgent(model, tools)).finalOutput).toBe("done");
    expect(model.results().map((item) => [item.name, outputText(item)])).toEqual([
      ["sales__build_report", REPORT],
      ["weather__forecast", JSON.stringify(FORECAST)],
    ]);
    expect(heard).toEqual(REPORT_STEPS.map((step) => `sales build_report ${step}`));
    expect(calledTools(two.sales)).toEqual(["build_report"]);
    expect(calledTools(two.weather)).toEqual(["forecast"]);
  });

  it("aborting the run cancels the task on its own server only (one tasks/cancel)", async () => {
    const two = hosted();
    const controller = new AbortController();
    const tools = await openaiAgentsTools(two.host, {
      include: ["sales__endless_job"],
      onUpdate: ({ update }) => {
        if (update.status === "working") controller.abort();
      },
    });
    const model = new ScriptedModel([{ name: "sales__endless_job", args: {} }]);
    await expect(runAgent(model, tools, controller.signal)).rejects.toThrow(/abort/i);
    await vi.waitFor(() => expect(two.host.tasks()).toHaveLength(0));
    expect(two.sales.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect(two.weather.requests.all()).toEqual([]);
  });
});
