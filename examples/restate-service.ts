/**
 * A Restate service whose handler calls an MCP task tool once, however often Restate retries or replays the
 * invocation: the call is journaled (its value is the task's ref), and the task is followed in journaled waits.
 * `npx tsx examples/restate-service.ts <mcp-server-url>` serves it on port 9080; register it with a running
 * `restate-server` (`npx @restatedev/restate-server`, then `curl localhost:9070/deployments -H
 * 'content-type: application/json' -d '{"uri": "http://localhost:9080"}'`) and invoke it:
 * `curl localhost:8080/Reports/compute -H 'content-type: application/json' -d '{"seconds": 30, "label": "q3"}'`.
 * Kill the service while the task runs and start it again: the invocation completes, and the MCP server saw one
 * `tools/call`. (test/integration/engines/restate.test.ts runs this service under a real restate-server.)
 */
import { pathToFileURL } from "node:url";
import * as restate from "@restatedev/restate-sdk";
import { TaskClient } from "mcp-tasks";
import { callToolInHandler } from "mcp-tasks/restate";

/** The `Reports` service, over one `TaskClient` the process keeps. */
export function reportsService(client: TaskClient) {
  return restate.service({
    name: "Reports",
    handlers: {
      /** Runs `slow_compute` on the MCP server and returns the text it computed. */
      compute: async (ctx: restate.Context, input: { seconds: number; label: string }): Promise<string> => {
        const result = await callToolInHandler(ctx, client, "slow_compute", input);
        return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      },
    },
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const client = await TaskClient.connect(process.argv[2] ?? "http://127.0.0.1:3000/mcp");
  await restate.serve({ services: [reportsService(client)], port: 9080 });
}
