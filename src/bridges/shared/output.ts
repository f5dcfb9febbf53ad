/**
 * What the model is shown: a tool result as text and media parts, and every other ending as an error message
 * that names the tool and the task (its id redacted, as in every message this library writes).
 */
import type { CallToolResult, TaskOutcome } from "mcp-tasks";

/** One part of what the model sees; each bridge maps these to its framework's multi-part form. */
export type ModelPart = { type: "text"; text: string } | { type: "image"; data: string; mediaType: string };

type Block = Record<string, unknown>;
const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** A block the model cannot take as media, described in one line of text. */
function describe(block: Block): string {
  const resource = (block.resource ?? {}) as Block;
  switch (block.type) {
    case "audio":
      return `[audio (${text(block.mimeType) || "unknown type"})]`;
    case "resource_link":
      return `[resource link: ${text(block.name) || text(block.uri)} ${text(block.uri)}]`.replace(
        / \]$/,
        "]",
      );
    case "resource":
      return `[resource: ${text(resource.uri)}${resource.mimeType ? ` (${text(resource.mimeType)})` : ""}]`;
    default:
      return `[${typeof block.type === "string" ? block.type : "unknown"} content]`;
  }
}

/** The result's content as model parts: text as text, images as images, anything else described in text. */
export function modelParts(result: CallToolResult): ModelPart[] {
  const parts: ModelPart[] = [];
  for (const raw of (result.content ?? []) as unknown as Block[]) {
    if (raw.type === "text") parts.push({ type: "text", text: text(raw.text) });
    else if (raw.type === "image" && typeof raw.data === "string")
      parts.push({ type: "image", data: raw.data, mediaType: text(raw.mimeType) || "image/png" });
    else if (raw.type === "resource" && typeof (raw.resource as Block | undefined)?.text === "string")
      parts.push({ type: "text", text: text((raw.resource as Block).text) });
    else parts.push({ type: "text", text: describe(raw) });
  }
  // A result with structured content only: the model gets that as JSON.
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  return parts;
}

/** The result as one text: text parts joined by newlines, media described. */
export function resultText(result: CallToolResult): string {
  return modelParts(result)
    .map((part) => (part.type === "text" ? part.text : `[image (${part.mediaType})]`))
    .join("\n");
}

/** Whether the tool reported an error in its result. */
export function isToolError(result: CallToolResult): boolean {
  return result.isError === true;
}

/** The model's message for a call that did not complete: failed, cancelled, expired, gone, timed out, … */
export function endingText(toolName: string, outcome: Exclude<TaskOutcome, { kind: "completed" }>): string {
  return `Tool "${toolName}" did not complete (${outcome.kind.replace("_", " ")}): ${outcome.error.message}`;
}
