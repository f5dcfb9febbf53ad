/**
 * `mcp-tasks/langchain`: the server's tools as LangChain.js structured tools (`@langchain/core` 1.x). A task's
 * status updates are dispatched as custom callback events named `mcp_tasks_status` (visible in `streamEvents`
 * as `on_custom_event`); the result comes back as a `ToolMessage` whose content is the MCP content as blocks,
 * whose `artifact` is the whole `CallToolResult`, and whose `status` is `"error"` when the call did not succeed.
 *
 * @module mcp-tasks/langchain
 */
import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch/web";
import { ToolMessage } from "@langchain/core/messages";
import { tool, type DynamicStructuredTool } from "@langchain/core/tools";
import type { CallToolResult, TaskStatus } from "mcp-tasks";
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

/** The name of the custom callback event that carries a task's status. */
export const STATUS_EVENT = "mcp_tasks_status";

/** The data of a `mcp_tasks_status` event. */
export interface LangchainStatusEvent {
  /** The tool's name as the model sees it. */
  tool: string;
  toolCallId: string | undefined;
  status: TaskStatus;
  /** Untrusted server text. */
  statusMessage?: string;
}

type ContentBlock =
  { type: "text"; text: string } | { type: "image"; source_type: "base64"; data: string; mime_type: string };

/**
 * Lists the tools of a `TaskClient`, or of every server of a `TaskHost` under their qualified names
 * (`server__tool`), and returns them as LangChain tools with their JSON Schema. Calls go through its
 * `callTool`: the run's `signal` cancels the task (one `tasks/cancel`).
 */
export async function langchainTools(
  target: BridgeTarget,
  options?: BridgeOptions,
): Promise<DynamicStructuredTool[]> {
  const tools = await bridgedTools("langchainTools", target, options);
  return tools.map(
    (bridged) =>
      tool(
        async (input: unknown, config) => {
          const toolCallId = config.toolCall?.id;
          let final: FinalStep | undefined;
          for await (const step of bridged.run(input, { signal: config.signal, toolCallId })) {
            if (step.type !== "status") final = step;
            else {
              const event: LangchainStatusEvent = { tool: bridged.name, toolCallId, status: step.status };
              if (step.statusMessage !== undefined) event.statusMessage = step.statusMessage;
              await dispatchCustomEvent(STATUS_EVENT, event, config);
            }
          }
          return toolOutput(final!, bridged.name, toolCallId);
        },
        { name: bridged.name, description: bridged.description, schema: bridged.inputSchema },
      ) as DynamicStructuredTool,
  );
}

/** A `ToolMessage` when the framework gave a tool call id (content, artifact, status); bare content otherwise. */
function toolOutput(
  final: FinalStep,
  name: string,
  toolCallId: string | undefined,
): ToolMessage | string | ContentBlock[] {
  const failed = final.type === "error" || (final.type === "result" && isToolError(final.result));
  const content = final.type === "result" ? blocks(final.result) : final.message;
  if (toolCallId === undefined) return failed && typeof content === "string" ? `Error: ${content}` : content;
  return new ToolMessage({
    content,
    tool_call_id: toolCallId,
    name,
    status: failed ? "error" : "success",
    ...(final.type === "result" && { artifact: final.result }),
  });
}

/** Text alone as a string; with images, content blocks. */
function blocks(result: CallToolResult): string | ContentBlock[] {
  const parts = modelParts(result);
  if (parts.every((part) => part.type === "text")) return resultText(result);
  return parts.map((part) =>
    part.type === "text"
      ? { type: "text", text: part.text }
      : { type: "image", source_type: "base64", data: part.data, mime_type: part.mediaType },
  );
}
