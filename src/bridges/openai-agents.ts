/**
 * `mcp-tasks/openai-agents`: the server's tools as OpenAI Agents SDK function tools (`@openai/agents`). The SDK
 * has no channel for a tool's progress, so a task's status updates go to the `onUpdate` option. Results come
 * back as text (or text and image outputs); a call that did not succeed returns an `Error: …` text.
 *
 * @module mcp-tasks/openai-agents
 */
import { tool, type FunctionTool, type ToolOutputImage, type ToolOutputText } from "@openai/agents";
import type { CallToolResult } from "mcp-tasks";
import type { FinalStep } from "./shared/index.js";
import type { BridgeOptions, BridgeTarget } from "./shared/index.js";
import { isToolError, modelParts, resultText } from "./shared/index.js";
import { bridgedTools } from "./shared/index.js";

export { handedOff, type HandedOff, type HandedOffTask } from "./shared/index.js";
export type {
  BridgeHost,
  BridgeHostTool,
  BridgeTarget,
  BridgeInputContext,
  BridgeInputHandlers,
  BridgeOptions,
  BridgeUpdateEvent,
} from "./shared/index.js";

/** What a bridged tool returns to the agent: text, or text and image outputs. */
export type OpenAIAgentsToolOutput = string | Array<ToolOutputText | ToolOutputImage>;

/**
 * Lists the tools of a `TaskClient`, or of every server of a `TaskHost` under their qualified names
 * (`server__tool`), and returns them as function tools (not strict: the server's JSON Schema is passed as it
 * is). Calls go through its `callTool`: the run's `signal` cancels the task (one `tasks/cancel`).
 */
export async function openaiAgentsTools(
  target: BridgeTarget,
  options?: BridgeOptions,
): Promise<FunctionTool<unknown, never, OpenAIAgentsToolOutput>[]> {
  const tools = await bridgedTools("openaiAgentsTools", target, options);
  return tools.map(
    (bridged) =>
      tool({
        name: bridged.name,
        description: bridged.description,
        // The SDK wants an object schema with `properties`; everything else goes through as the server gave it.
        parameters: { properties: {}, ...bridged.inputSchema, type: "object" } as never,
        strict: false,
        execute: async (input: unknown, _context, details): Promise<OpenAIAgentsToolOutput> => {
          let final: FinalStep | undefined;
          const site = { signal: details?.signal, toolCallId: details?.toolCall?.callId };
          for await (const step of bridged.run(input, site)) if (step.type !== "status") final = step;
          return toolOutput(final!);
        },
      }) as unknown as FunctionTool<unknown, never, OpenAIAgentsToolOutput>,
  );
}

function toolOutput(final: FinalStep): OpenAIAgentsToolOutput {
  if (final.type === "error") return `Error: ${final.message}`;
  if (final.type === "note") return final.message;
  return resultOutput(final.result);
}

function resultOutput(result: CallToolResult): OpenAIAgentsToolOutput {
  if (isToolError(result)) return `Error: ${resultText(result)}`;
  const parts = modelParts(result);
  if (parts.every((part) => part.type === "text")) return resultText(result);
  return parts.map((part) =>
    part.type === "text"
      ? { type: "text", text: part.text }
      : { type: "image", image: { data: part.data, mediaType: part.mediaType } },
  );
}
