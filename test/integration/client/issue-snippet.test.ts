/**
 * The usage the issue promises, written the way a user would write it, against the reference server with its
 * default client settings: connect, await a tool result, stream a cancellable task's updates, cancel, close.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { TaskCancelledError, TaskClient } from "mcp-tasks";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";

let server: HttpTaskServer;
beforeAll(async () => {
  server = await startTaskServer({ tools: fixtureTools({ timeScale: 0.01 }) });
});
afterAll(async () => {
  await server.close();
});

it("the issue's snippet works as written", async () => {
  const lines: string[] = [];
  const log = (...parts: unknown[]) => lines.push(parts.filter((part) => part !== undefined).join(" "));

  // --- the snippet ---------------------------------------------------------------------------------------
  const client = await TaskClient.connect(server.url);

  const result = await client.callTool("slow_compute", { seconds: 1 });
  log(result.content[0]?.type === "text" ? result.content[0].text : "");

  const signal = AbortSignal.timeout(200);
  const handle = client.callTool("slow_compute", { seconds: 600 }, { signal });
  for await (const update of handle) log(update.status, update.statusMessage);
  await handle.cancel();

  await client.close();
  // --------------------------------------------------------------------------------------------------------

  // The task is shown working until the abort (unless the abort beat the server's answer), then cancelled.
  expect(lines[0]).toBe('Computed "result" in 1s');
  expect(lines.slice(1, -1).every((line) => line === "working")).toBe(true);
  expect(lines.at(-1)).toBe("cancelled Cancelled at the client's request");
  await expect(handle).rejects.toBeInstanceOf(TaskCancelledError);
  await expect(handle.outcome()).resolves.toMatchObject({ kind: "cancelled", error: { confirmed: true } });
  // The abort sent one tasks/cancel; the cancel() after the server's final word sent nothing more.
  const cancels = server.requests.forMethod("tasks/cancel");
  expect(cancels).toHaveLength(1);
  expect(cancels[0]?.headers["mcp-name"]).toBe(handle.taskId);
  expect(server.requests.forMethod("notifications/cancelled")).toEqual([]);
  expect(server.tasks.get(handle.taskId as string)?.status).toBe("cancelled");
});
