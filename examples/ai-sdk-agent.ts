/**
 * An AI SDK agent (`streamText`) whose model calls a task tool: the task's status streams in as preliminary tool
 * results, and the model answers from the result. A scripted model from `ai/test` stands in for yours (swap in
 * e.g. `openai("gpt-5")`); everything else is the real loop against a real task server.
 */
import { stepCountIs, streamText } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { TaskClient } from "mcp-tasks";
import { aiSdkTools, type AiSdkToolOutput } from "mcp-tasks/ai-sdk";
import { runIfMain } from "./run-example.js";

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};

/** Step 1: call slow_compute. Step 2: answer with the text of the tool result it was given. */
const model = new MockLanguageModelV3({
  doStream: async ({ prompt }) => {
    const toolResult = prompt
      .flatMap((m) => (m.role === "tool" ? m.content : []))
      .find((p) => p.type === "tool-result");
    const parts = toolResult
      ? [
          { type: "text-start", id: "answer" },
          { type: "text-delta", id: "answer", delta: `The tool says: ${JSON.stringify(toolResult.output)}` },
          { type: "text-end", id: "answer" },
          { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
        ]
      : [
          {
            type: "tool-call",
            toolCallId: "call-1",
            toolName: "slow_compute",
            input: '{"seconds":2,"label":"Q3"}',
          },
          { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
        ];
    return {
      stream: convertArrayToReadableStream([{ type: "stream-start", warnings: [] }, ...parts] as never[]),
    };
  },
});

export async function aiSdkAgent(
  serverUrl: string,
  log: (line: string) => void = console.log,
): Promise<void> {
  await using client = await TaskClient.connect(serverUrl);
  const tools = await aiSdkTools(client, { include: ["slow_compute"] });

  const stream = streamText({ model, tools, prompt: "Compute Q3", stopWhen: stepCountIs(3) });
  for await (const part of stream.fullStream) {
    if (part.type !== "tool-result") continue;
    const output = part.output as AiSdkToolOutput;
    // Preliminary results carry the task's status; the last one is the final output.
    if (part.preliminary && output.type === "status") log(`${part.toolName}: ${output.status}`);
    if (!part.preliminary) log(`${part.toolName}: ${output.type}`);
  }
  log(await stream.text);
}

await runIfMain(import.meta.url, (url) => aiSdkAgent(url));
