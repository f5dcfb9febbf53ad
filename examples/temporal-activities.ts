/**
 * A Temporal activity that calls an MCP task tool once, however often Temporal retries it: the first attempt
 * calls the tool and records the task's ref in its heartbeat details; a retry (the worker died, the attempt timed
 * out) follows that task instead of calling the tool again. Register the activities with a worker
 * (`temporal-worker.ts`) and run them from a workflow (`temporal-workflows.ts`).
 */
import type { CallToolResult, TaskClient } from "mcp-tasks";
import { callToolInActivity } from "mcp-tasks/temporal";

/** The activities, over one `TaskClient` the worker keeps for its lifetime. */
export function createActivities(client: TaskClient) {
  return {
    /** Runs `slow_compute` on the MCP server and returns the text it computed. */
    async compute(seconds: number, label: string): Promise<string> {
      const result: CallToolResult = await callToolInActivity(client, "slow_compute", { seconds, label });
      return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    },
  };
}
