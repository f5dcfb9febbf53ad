/**
 * A LangChain.js agent loop whose model calls a task tool: the task's status shows in `streamEvents` as custom
 * events, and the model gets a `ToolMessage` with the result. A scripted chat model stands in for yours (swap in
 * e.g. `new ChatOpenAI({ model: "gpt-5" })`); everything else is the real loop against a real task server.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { TaskClient } from "mcp-tasks";
import { STATUS_EVENT, langchainTools, type LangchainStatusEvent } from "mcp-tasks/langchain";
import { runIfMain } from "./run-example.js";

/** First turn: call slow_compute. Then: answer with the content of the tool message it was given. */
class ScriptedChatModel extends BaseChatModel {
  _llmType(): string {
    return "scripted";
  }
  override bindTools(_tools: unknown[]): this {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const toolMessage = messages.find((message) => message instanceof ToolMessage);
    const message = toolMessage
      ? new AIMessage(`The tool says: ${String(toolMessage.content)}`)
      : new AIMessage({
          content: "",
          tool_calls: [
            { id: "call-1", name: "slow_compute", args: { seconds: 2, label: "Q3" }, type: "tool_call" },
          ],
        });
    return { generations: [{ text: "", message }] };
  }
}

export async function langchainAgent(
  serverUrl: string,
  log: (line: string) => void = console.log,
): Promise<void> {
  await using client = await TaskClient.connect(serverUrl);
  const tools = await langchainTools(client, { include: ["slow_compute"] });
  const model = new ScriptedChatModel({});

  // The loop hands its `config` on, so the tools' status events reach the run's callbacks (`streamEvents`).
  const agent = RunnableLambda.from(async (prompt: string, config?: RunnableConfig) => {
    const messages: BaseMessage[] = [new HumanMessage(prompt)];
    for (;;) {
      const reply = await model.bindTools(tools).invoke(messages, config);
      messages.push(reply);
      if (!reply.tool_calls?.length) return String(reply.content);
      for (const call of reply.tool_calls) {
        const tool = tools.find((candidate) => candidate.name === call.name)!;
        messages.push((await tool.invoke({ ...call, type: "tool_call" }, config)) as ToolMessage);
      }
    }
  });

  for await (const event of agent.streamEvents("Compute Q3", { version: "v2" })) {
    if (event.event === "on_custom_event" && event.name === STATUS_EVENT) {
      const status = event.data as LangchainStatusEvent;
      log(`${status.tool}: ${status.status}`);
    }
    if (event.event === "on_chain_end" && event.name === "RunnableLambda") log(String(event.data.output));
  }
}

await runIfMain(import.meta.url, (url) => langchainAgent(url));
