/**
 * Owns what a bridge calls tools on: one `TaskClient`, or a host of many servers (a `TaskHost` from
 * `mcp-tasks/host`) read by its shape only, so that no bridge entry loads the host's code. Both become one
 * `ToolSource`: tools under the name their `callTool` takes (a host's qualified name, `server__tool`), calls,
 * and the handles the source follows.
 */
import type { CallToolOptions, CallToolResult, TaskClient, TaskHandle, ToolInfo } from "mcp-tasks";

/** A tool of one of a host's servers: its `server` and the `qualifiedName` the host routes. */
export interface BridgeHostTool extends ToolInfo {
  server: string;
  qualifiedName: string;
}

/**
 * A host of many MCP servers, as the bridges use one: what `TaskHost` (`mcp-tasks/host`) offers. Typed by shape,
 * so any object with these methods will do.
 */
export interface BridgeHost {
  listTools(): Promise<BridgeHostTool[]>;
  callTool(
    qualifiedName: string,
    args?: Record<string, unknown>,
    options?: CallToolOptions,
  ): TaskHandle<CallToolResult>;
  tasks(): Array<{ server: string; handle: TaskHandle<CallToolResult> }>;
}

/** What every bridge takes: one server's client, or a host of many. */
export type BridgeTarget = TaskClient | BridgeHost;

/** A tool as a bridge offers it. */
export interface SourceTool {
  tool: ToolInfo;
  /** The name the source's `callTool` takes: the tool's own name on a client, its qualified name on a host. */
  callName: string;
  /** The server's name in the host; undefined on a client. */
  server: string | undefined;
}

/** A client or a host, seen alike. */
export interface ToolSource {
  /** The object the user passed: the key of its book of handed-off tasks. */
  target: BridgeTarget;
  listTools(): Promise<SourceTool[]>;
  callTool(
    callName: string,
    args: Record<string, unknown>,
    options: CallToolOptions,
  ): TaskHandle<CallToolResult>;
  /** Every handle the source follows. */
  tasks(): TaskHandle<CallToolResult>[];
  /** The handles of tasks its store holds (an empty list where there is no `resume()`). */
  resume(): Promise<TaskHandle<CallToolResult>[]>;
}

/** Whether `target` has what a bridge calls. */
export function isBridgeTarget(target: unknown): target is BridgeTarget {
  const candidate = target as Partial<Record<"listTools" | "callTool" | "tasks", unknown>> | null;
  return (
    typeof candidate?.listTools === "function" &&
    typeof candidate.callTool === "function" &&
    typeof candidate.tasks === "function"
  );
}

/** A host lists `{ server, handle }` pairs where a client lists handles; anything else is not a list. */
function handlesOf(items: unknown): TaskHandle<CallToolResult>[] {
  if (!Array.isArray(items)) return [];
  return items.map((item: unknown) =>
    typeof item === "object" && item !== null && "handle" in item && "server" in item
      ? (item as { handle: TaskHandle<CallToolResult> }).handle
      : (item as TaskHandle<CallToolResult>),
  );
}

/** The client or host behind one interface. */
export function sourceOf(target: BridgeTarget): ToolSource {
  const resume = (target as { resume?: unknown }).resume;
  return {
    target,
    async listTools() {
      const tools: Array<ToolInfo & Partial<BridgeHostTool>> = await target.listTools();
      return tools.map((tool) =>
        typeof tool.qualifiedName === "string"
          ? { tool, callName: tool.qualifiedName, server: tool.server }
          : { tool, callName: tool.name, server: undefined },
      );
    },
    callTool: (callName, args, options) =>
      (target as BridgeHost).callTool(callName, args, options) as TaskHandle<CallToolResult>,
    tasks: () => handlesOf(target.tasks()),
    resume: async () =>
      typeof resume === "function" ? handlesOf(await (resume as () => unknown).call(target)) : [],
  };
}
