/**
 * `mcp-tasks/ai-sdk`: the server's tools as a Vercel AI SDK `ToolSet` (`ai` 6 or 7), for `generateText`, `streamText`
 * and agents. Each tool's `execute` is an async generator: the task's status updates arrive as preliminary tool
 * results, the last output is the final one, and `toModelOutput` turns it into what the model reads.
 *
 * @module mcp-tasks/ai-sdk
 */
import { dynamicTool, jsonSchema, type Tool, type ToolResultPart } from "ai";
import type { CallToolResult } from "mcp-tasks";
import type { FinalStep, StatusStep } from "./shared/index.js";
import type { BridgeOptions, BridgeTarget } from "./shared/index.js";
import { isToolError, modelParts, resultText } from "./shared/index.js";
import { bridgedTools } from "./shared/index.js";

export { handedOff, type HandedOff, type HandedOffTask } from "./shared/index.js";
export type { FinalStep, StatusStep } from "./shared/index.js";
export type {
  BridgeHost,
  BridgeHostTool,
  BridgeTarget,
  BridgeInputContext,
  BridgeInputHandlers,
  BridgeOptions,
  BridgeUpdateEvent,
} from "./shared/index.js";

/**
 * What a bridged tool outputs: `status` steps (preliminary results, while the task runs), then one of
 * `result` (the tool's `CallToolResult`), `error` (the call did not complete) or `note` (a task handed off).
 */
export type AiSdkToolOutput = StatusStep | FinalStep;

/** What `toModelOutput` returns: the output part of a tool result message. */
export type ToolResultOutput = ToolResultPart["output"];

/** A `ToolSet` of the server's tools (and `task_status` / `task_cancel` in hand-off mode). */
export type AiSdkToolSet = Record<string, Tool<unknown, AiSdkToolOutput>>;

/**
 * Lists the tools of a `TaskClient`, or of every server of a `TaskHost` under their qualified names
 * (`server__tool`), and returns them as AI SDK tools, keyed by name (with `prefix`). Calls go through its
 * `callTool`: the run's `abortSignal` cancels the task (one `tasks/cancel`).
 */
export async function aiSdkTools(target: BridgeTarget, options?: BridgeOptions): Promise<AiSdkToolSet> {
  const tools = await bridgedTools("aiSdkTools", target, options);
  const set: AiSdkToolSet = {};
  for (const bridged of tools) {
    set[bridged.name] = dynamicTool({
      description: bridged.description,
      inputSchema: jsonSchema(bridged.inputSchema),
      execute: (input, { abortSignal, toolCallId }) =>
        bridged.run(input, { signal: abortSignal, toolCallId }),
      toModelOutput: ({ output }) => toModelOutput(output as AiSdkToolOutput),
    }) as AiSdkToolSet[string];
  }
  return set;
}

/** What the model reads: text, multi-part content with images, or an error text it can react to. */
export function toModelOutput(output: AiSdkToolOutput): ToolResultOutput {
  switch (output.type) {
    case "result":
      return resultOutput(output.result);
    case "error":
      return { type: "error-text", value: output.message };
    case "note":
      return { type: "text", value: output.message };
    case "status":
      return { type: "text", value: `still ${output.status}` };
  }
}

function resultOutput(result: CallToolResult): ToolResultOutput {
  if (isToolError(result)) return { type: "error-text", value: resultText(result) };
  const parts = modelParts(result);
  if (parts.every((part) => part.type === "text")) return { type: "text", value: resultText(result) };
  return {
    type: "content",
    value: parts.map((part) =>
      part.type === "text"
        ? { type: "text" as const, text: part.text }
        : { type: "image-data" as const, data: part.data, mediaType: part.mediaType },
    ),
  };
}
