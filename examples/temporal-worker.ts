/**
 * A Temporal worker for `temporal-workflows.ts`, and a client that starts one workflow:
 * `npx tsx examples/temporal-worker.ts <mcp-server-url>`, with a Temporal server on localhost:7233
 * (`temporal server start-dev`) and an MCP task server at the URL (`npx mcp-tasks-server --port 3000`). Kill the
 * worker while the task runs and start it again: the activity's retry follows the same task, and the MCP server
 * sees one `tools/call`.
 */
import { fileURLToPath } from "node:url";
import { Client, Connection } from "@temporalio/client";
import { NativeConnection, Worker } from "@temporalio/worker";
import { TaskClient } from "mcp-tasks";
import { createActivities } from "./temporal-activities.js";

const mcpUrl = process.argv[2] ?? "http://127.0.0.1:3000/mcp";
const client = await TaskClient.connect(mcpUrl);
const worker = await Worker.create({
  connection: await NativeConnection.connect({ address: "localhost:7233" }),
  taskQueue: "mcp-tasks",
  workflowsPath: fileURLToPath(new URL("./temporal-workflows.ts", import.meta.url)),
  activities: createActivities(client),
});
const running = worker.run();

const temporal = new Client({ connection: await Connection.connect({ address: "localhost:7233" }) });
const report = await temporal.workflow.execute("computeReport", {
  taskQueue: "mcp-tasks",
  workflowId: "quarterly-report",
  // Started again after a crash, this joins the workflow still running instead of starting a second one.
  workflowIdConflictPolicy: "USE_EXISTING",
  args: ["quarterly numbers"],
});
console.log(report); // Computed "quarterly numbers" in 120s

worker.shutdown();
await running;
await client.close();
