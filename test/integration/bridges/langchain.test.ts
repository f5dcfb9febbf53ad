/**
 * `mcp-tasks/langchain` in a LangChain.js agent loop built from `@langchain/core` runnables: a scripted chat
 * model (a `BaseChatModel` that emits tool calls) and the bridged tools, invoked with tool calls so they answer
 * with `ToolMessage`s, against the reference server over Streamable HTTP on 127.0.0.1. `streamEvents` on the
 * loop shows the task's status as custom events.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { TaskClient } from "mcp-tasks";
import { STATUS_EVENT, handedOff, langchainTools, type LangchainStatusEvent } from "mcp-tasks/langchain";
import type { HttpTaskServer } from "mcp-tasks/testing";
import { FORECAST, REPORT, REPORT_STEPS, bridgeServer, connect, taskIds } from "./harness.js";
import { calledTools, hostOfTwoForBlock } from "./host-harness.js";

type Call = { name: string; args: Record<string, unknown> };

/** A chat model that makes the planned tool calls, one turn each (a function may wait first), then stops. */
class ScriptedChatModel extends BaseChatModel {
  readonly seen: BaseMessage[][] = [];
  constructor(private readonly calls: Array<Call | (() => Promise<Call>)>) {
    super({});
  }
  _llmType(): string {
    return "scripted";
  }
  override bindTools(_tools: unknown[]): this {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.seen.push([...messages]);
    const turn = this.seen.length - 1;
    const planned = this.calls[turn];
    const call = typeof planned === "function" ? await planned() : planned;
    const message =
      call === undefined
        ? new AIMessage("done")
        : new AIMessage({
            content: "",
            tool_calls: [{ id: `call-${turn}`, name: call.name, args: call.args, type: "tool_call" }],
          });
    return { generations: [{ text: "", message }] };
  }
}

/** The loop: the model's tool calls go to the tools, their ToolMessages back to the model, until it stops. */
function agentLoop(model: ScriptedChatModel, tools: DynamicStructuredTool[]) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return RunnableLambda.from(async (prompt: string, config?: RunnableConfig) => {
    const messages: BaseMessage[] = [new HumanMessage(prompt)];
    for (let step = 0; step < 5; step++) {
      const reply = await model.bindTools(tools).invoke(messages, config);
      messages.push(reply);
      if (!reply.tool_calls?.length) return messages;
      for (const call of reply.tool_calls)
        messages.push(
          (await byName.get(call.name)!.invoke({ ...call, type: "tool_call" }, config)) as ToolMessage,
        );
    }
    throw new Error("the loop did not end");
  });
}

/** The tool messages the model was shown (the last prompt holds them all). */
function toolMessages(model: ScriptedChatModel): ToolMessage[] {
  return (model.seen.at(-1) ?? []).filter(
    (message): message is ToolMessage => message instanceof ToolMessage,
  );
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

describe("langchainTools", () => {
  it("offers the selected tools with the server's JSON Schema, under the prefix", async () => {
    const tools = await langchainTools(client, { include: ["build_report"], prefix: "acme_" });
    expect(tools.map((tool) => tool.name)).toEqual(["acme_build_report"]);
    expect(tools[0]?.description).toBe("Builds the quarterly report.");
    expect(tools[0]?.schema).toEqual({
      type: "object",
      properties: { quarter: { type: "string" } },
      required: ["quarter"],
    });
  });

  it("runs a task tool in the loop: the model reads the result, the artifact is the CallToolResult", async () => {
    const tools = await langchainTools(client, { include: ["build_report"] });
    const model = new ScriptedChatModel([{ name: "build_report", args: { quarter: "Q3" } }]);
    await agentLoop(model, tools).invoke("Build the Q3 report");
    const [message] = toolMessages(model);
    expect(message).toMatchObject({
      content: REPORT,
      status: "success",
      tool_call_id: "call-0",
      artifact: { content: [{ type: "text", text: REPORT }] },
    });
    expect(server.requests.forMethod("tasks/get").length).toBeGreaterThanOrEqual(REPORT_STEPS.length);
  });

  it("dispatches the task's status as custom events that streamEvents shows", async () => {
    const tools = await langchainTools(client, { include: ["build_report"] });
    const model = new ScriptedChatModel([{ name: "build_report", args: { quarter: "Q3" } }]);
    const statuses: LangchainStatusEvent[] = [];
    for await (const event of agentLoop(model, tools).streamEvents("Build the Q3 report", {
      version: "v2",
    })) {
      if (event.event === "on_custom_event" && event.name === STATUS_EVENT)
        statuses.push(event.data as LangchainStatusEvent);
    }
    expect(statuses.filter((status) => status.statusMessage !== undefined)).toEqual(
      REPORT_STEPS.map((statusMessage) => ({
        tool: "build_report",
        toolCallId: "call-0",
        status: "working",
        statusMessage,
      })),
    );
    expect(toolMessages(model)[0]?.content).toBe(REPORT);
  });

  it("gives the model an isError result and a failed task as error ToolMessages, and the loop goes on", async () => {
    const tools = await langchainTools(client, { include: ["failing_job", "protocol_error_job"] });
    const model = new ScriptedChatModel([
      { name: "failing_job", args: {} },
      { name: "protocol_error_job", args: {} },
    ]);
    const messages = await agentLoop(model, tools).invoke("Run both");
    expect(messages.at(-1)?.content).toBe("done");
    const [isError, failed] = toolMessages(model);
    expect(isError).toMatchObject({
      status: "error",
      content: "The job failed: simulated tool error",
      artifact: { isError: true },
    });
    expect(failed?.status).toBe("error");
    expect(failed?.content).toMatch(
      /^Tool "protocol_error_job" did not complete \(failed\): task \S{4}…\S{2}: failed with JSON-RPC error -32603: Simulated internal error in protocol_error_job$/,
    );
    for (const id of taskIds(server)) expect(JSON.stringify(model.seen)).not.toContain(id);
  });

  it("hands on a typed tool's checked structuredContent in the artifact; a result that breaks its outputSchema is an error", async () => {
    const tools = await langchainTools(client, { include: ["forecast", "broken_forecast"] });
    const model = new ScriptedChatModel([
      { name: "forecast", args: {} },
      { name: "broken_forecast", args: {} },
    ]);
    await agentLoop(model, tools).invoke("Forecast");
    const [forecast, broken] = toolMessages(model);
    expect(forecast).toMatchObject({ status: "success", artifact: { structuredContent: FORECAST } });
    expect(broken?.status).toBe("error");
    expect(broken?.content).toMatch(
      /^Tool "broken_forecast" did not complete \(error\): .*\/city: Instance type/,
    );
  });

  it("gives content blocks for a multi-part result", async () => {
    const tools = await langchainTools(client, { include: ["chart"] });
    const model = new ScriptedChatModel([{ name: "chart", args: {} }]);
    await agentLoop(model, tools).invoke("Chart it");
    expect(toolMessages(model)[0]?.content).toEqual([
      { type: "text", text: "Revenue by quarter" },
      { type: "image", source_type: "base64", data: "iVBORw0KGgo=", mime_type: "image/png" },
    ]);
  });

  it("aborting the run mid-task sends exactly one tasks/cancel, and the run rejects with the abort", async () => {
    const controller = new AbortController();
    const tools = await langchainTools(client, {
      include: ["endless_job"],
      onUpdate: ({ update }) => {
        if (update.status === "working") controller.abort();
      },
    });
    const model = new ScriptedChatModel([{ name: "endless_job", args: {} }]);
    await expect(agentLoop(model, tools).invoke("Work", { signal: controller.signal })).rejects.toThrow(
      /abort/i,
    );
    await vi.waitFor(() => expect(client.tasks()).toHaveLength(0));
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect(server.requests.forMethod("notifications/cancelled")).toEqual([]);
    expect(taskIds(server).some((id) => server.tasks.get(id)?.status === "cancelled")).toBe(true);
  });

  it("routes a task's elicitation to the bridge's inputHandlers, not the client's", async () => {
    clientAsked.length = 0;
    const contexts: Array<{ toolCallId: string | undefined; toolName: string | undefined }> = [];
    const tools = await langchainTools(client, {
      include: ["confirm_delete"],
      inputHandlers: {
        elicitation: async (_params, { toolCallId, toolName }) => {
          contexts.push({ toolCallId, toolName });
          return { action: "accept", content: { confirm: true } };
        },
      },
    });
    const model = new ScriptedChatModel([{ name: "confirm_delete", args: { filename: "notes.txt" } }]);
    await agentLoop(model, tools).invoke("Delete notes.txt");
    expect(toolMessages(model)[0]?.content).toBe("Deleted notes.txt");
    expect(contexts).toEqual([{ toolCallId: "call-0", toolName: "confirm_delete" }]);
    expect(clientAsked).toEqual([]);
  });

  it("hands off a task that outlasts afterMs, and a later task_status returns its result", async () => {
    const tools = await langchainTools(client, { include: ["slow_compute"], handoff: { afterMs: 30 } });
    expect(tools.map((tool) => tool.name)).toEqual(["slow_compute", "task_status", "task_cancel"]);
    let ref = "";
    const model = new ScriptedChatModel([
      { name: "slow_compute", args: { seconds: 30, label: "forecast" } },
      async () => {
        ref = /task (task_[0-9a-f]{16})/.exec(String(toolMessages(model)[0]?.content))?.[1] ?? "";
        expect((await handedOff(client).wait(ref))?.kind).toBe("completed");
        return { name: "task_status", args: { ref } };
      },
    ]);
    await agentLoop(model, tools).invoke("Forecast");
    const [note, status] = toolMessages(model);
    expect(note?.content).toBe(
      `Started "slow_compute"; it is still running as task ${ref}. ` +
        `Call task_status with {"ref": "${ref}"} to check on it later, or task_cancel to stop it.`,
    );
    expect(status).toMatchObject({ content: 'Computed "forecast" in 30s', status: "success" });
    handedOff(client).forget(ref);
  });
});

describe("langchainTools over a TaskHost", () => {
  const hosted = hostOfTwoForBlock();

  it("runs every server's tools under qualified names in the loop, each on its server, with status events", async () => {
    const two = hosted();
    const tools = await langchainTools(two.host, { include: ["sales__build_report", "weather__forecast"] });
    expect(tools.map((tool) => tool.name)).toEqual(["sales__build_report", "weather__forecast"]);
    const model = new ScriptedChatModel([
      { name: "weather__forecast", args: {} },
      { name: "sales__build_report", args: { quarter: "Q3" } },
    ]);
    const statuses: LangchainStatusEvent[] = [];
    for await (const event of agentLoop(model, tools).streamEvents("Forecast, then report", {
      version: "v2",
    })) {
      if (event.event === "on_custom_event" && event.name === STATUS_EVENT)
        statuses.push(event.data as LangchainStatusEvent);
    }
    expect(toolMessages(model).map((message) => [message.name, message.content])).toEqual([
      ["weather__forecast", JSON.stringify(FORECAST)],
      ["sales__build_report", REPORT],
    ]);
    expect(statuses.filter((status) => status.statusMessage !== undefined)).toEqual(
      REPORT_STEPS.map((statusMessage) => ({
        tool: "sales__build_report",
        toolCallId: "call-1",
        status: "working",
        statusMessage,
      })),
    );
    expect(calledTools(two.weather)).toEqual(["forecast"]);
    expect(calledTools(two.sales)).toEqual(["build_report"]);
  });

  it("hands off a task of one server; task_status and task_cancel reach it there, handedOff(host) sees it", async () => {
    const two = hosted();
    const byName = Object.fromEntries(
      (await langchainTools(two.host, { include: ["sales__endless_job"], handoff: { afterMs: 20 } })).map(
        (tool) => [tool.name, tool],
      ),
    );
    expect(Object.keys(byName)).toEqual(["sales__endless_job", "task_status", "task_cancel"]);
    const note = String(await byName["sales__endless_job"]!.invoke({}));
    const ref = /task (task_[0-9a-f]{16})/.exec(note)?.[1] ?? "";
    expect(note).toBe(
      `Started "sales__endless_job"; it is still running as task ${ref}. ` +
        `Call task_status with {"ref": "${ref}"} to check on it later, or task_cancel to stop it.`,
    );
    expect(
      handedOff(two.host)
        .list()
        .map((task) => task.ref),
    ).toEqual([ref]);
    expect(await byName["task_status"]!.invoke({ ref })).toMatch(
      new RegExp(`^Task ${ref} \\("sales__endless_job"\\) is still running \\(working(: Working)?\\)\\.$`),
    );
    expect(await byName["task_cancel"]!.invoke({ ref })).toBe(
      `Task ${ref} ("sales__endless_job") was cancelled.`,
    );
    expect((await handedOff(two.host).wait(ref))?.kind).toBe("cancelled");
    expect(two.sales.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect(two.weather.requests.all()).toEqual([]);
    handedOff(two.host).forget(ref);
  });
});
