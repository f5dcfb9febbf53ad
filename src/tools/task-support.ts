/**
 * A tool's `execution.taskSupport` (2025-11-25): whether calls may (`optional`) or must (`required`) be
 * task-augmented. Absent or unknown reads as `forbidden`, a plain call, which is what the spec says for absent.
 */
import type { ToolInfo } from "./catalog.js";

export type TaskSupport = "required" | "optional" | "forbidden";

export function taskSupportOf(tool: ToolInfo | undefined): TaskSupport {
  const execution = tool?.execution;
  if (typeof execution !== "object" || execution === null) return "forbidden";
  const value = (execution as { taskSupport?: unknown }).taskSupport;
  return value === "required" || value === "optional" ? value : "forbidden";
}
