/**
 * An OpenAI Agents SDK agent whose model calls a task tool: `onUpdate` reports the task's status, and the model
 * answers from the result. A scripted `Model` stands in for yours (leave `model` out, or name one, to use
 * OpenAI's); everything else is the SDK's real run loop against a real task server.
 */
import { Agent, Runner, Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { TaskClient } from "mcp-tasks";
import { openaiAgentsTools } from "mcp-tasks/openai-agents";
import { runIfMain } from "./run-example.js";

/** First turn: call slow_compute. Then: answer with the output of the function call it was given. */
const model: Model = {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const items = Array.isArray(request.input) ? request.input : [];
    const result = items.find((item) => item.type === "function_call_result");
    const output = result
      ? [
          {
            type: "message" as const,
            role: "assistant" as const,
            status: "completed" as const,
            content: [
              { type: "output_text" as const, text: `The tool says: ${JSON.stringify(result.output)}` },
            ],
          },
        ]
      : [
          {
            type: "function_call" as const,
            callId: "call-1",
            name: "slow_compute",
            arguments: '{"seconds":2,"label":"Q3"}',
            status: "completed" as const,
          },
        ];
    return { usage: new Usage(), output };
  },
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error("this example does not stream");
  },
};

export async function openaiAgentsAgent(
  serverUrl: string,
  log: (line: string) => void = console.log,
): Promise<void> {
  await using client = await TaskClient.connect(serverUrl);
  const tools = await openaiAgentsTools(client, {
    include: ["slow_compute"],
    onUpdate: ({ toolName, update }) => log(`${toolName}: ${update.status}`),
  });
  const agent = new Agent({ name: "Analyst", instructions: "Use the tools.", model, tools });

  const result = await new Runner({ tracingDisabled: true }).run(agent, "Compute Q3");
  log(String(result.finalOutput));
}

await runIfMain(import.meta.url, (url) => openaiAgentsAgent(url));
