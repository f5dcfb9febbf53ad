/**
 * Advisory fields never end a task (design decision 13): a reference server that writes `pollIntervalMs` as a
 * string, in its CreateTaskResult and in its tasks/get answers, still gets its task followed to the result.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { TaskClient } from "mcp-tasks";
import { defineTool, startTaskServer, step, textResult, type HttpTaskServer } from "mcp-tasks/testing";

// The reference server sends these values as written: exactly the misbehaviour under test.
const STRING_INTERVAL = "100" as unknown as number;

let server: HttpTaskServer;
let client: TaskClient;
beforeAll(async () => {
  const job = defineTool({
    name: "stringly_job",
    task: "required",
    pollIntervalMs: STRING_INTERVAL,
    steps: [
      step.working("warming up"),
      step.pollInterval("20" as unknown as number),
      step.working("nearly"),
      step.complete(textResult("done")),
    ],
  });
  server = await startTaskServer({ tools: [job] });
  client = await TaskClient.connect(server.url, { cancelGraceMs: 50 });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

it("follows a task whose CreateTaskResult and tasks/get write pollIntervalMs as a string to its result", async () => {
  const handle = client.callTool("stringly_job");
  await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "done" }] });
  expect(server.requests.forMethod("tasks/get").length).toBeGreaterThanOrEqual(3);
  // Nothing was cancelled: the task was never taken for an orphan.
  expect(server.requests.forMethod("tasks/cancel")).toHaveLength(0);
});
