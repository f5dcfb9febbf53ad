/**
 * Agent code should not care which generation of tasks a server speaks. This file is one agent's view of
 * the kit's fixture tools, written once and run unchanged against a 2026-07-28 server and a 2025-11-25
 * server (`startTaskServer({ era })`); both must give the agent the same outcomes, errors and input calls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  TaskCancelledError,
  TaskClient,
  TaskFailedError,
  type CallToolResult,
  type TaskClientOptions,
} from "mcp-tasks";
import type { ElicitResult } from "mcp-tasks/schema";
import { fixtureTools, startTaskServer, type HttpTaskServer, type TaskServerEra } from "mcp-tasks/testing";
import { endedAs } from "../../fixtures/errors.js";

function textOf(result: CallToolResult): string {
  const block = result.content[0] as { type: string; text?: string } | undefined;
  return block?.type === "text" ? (block.text ?? "") : "";
}

/** The agent under test: what a host process does with a tasks server, whichever era it speaks. */
function agentTests(era: TaskServerEra): void {
  let server: HttpTaskServer;
  let client: TaskClient;
  const asked: string[] = [];
  const options: TaskClientOptions = {
    inputHandlers: {
      // Keyed on what the question asks for, not on the input key: a 2025-11-25 request has no key of its own.
      elicitation: async (params): Promise<ElicitResult> => {
        asked.push((params as { message?: string }).message ?? "");
        const schema = (params as { requestedSchema?: { properties?: Record<string, unknown> } })
          .requestedSchema;
        if (schema?.properties?.name !== undefined) return { action: "accept", content: { name: "Ada" } };
        return { action: "accept", content: { confirm: true } };
      },
    },
    polling: { minIntervalMs: 1, defaultIntervalMs: 10, maxIntervalMs: 20, jitter: 0 },
    retry: { minTimeoutMs: 5, maxTimeoutMs: 50 },
  };

  beforeAll(async () => {
    server = await startTaskServer({ era, tools: fixtureTools({ timeScale: 0.01 }) });
    client = await TaskClient.connect(server.url, options);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it("gets a plain tool's answer at once, without a task", async () => {
    const handle = client.callTool("greet", { name: "Ada" });
    expect(textOf(await handle)).toBe("Hello, Ada!");
    expect(handle.taskId).toBeUndefined();
  });

  it("follows a long tool through its task to the result", async () => {
    const handle = client.callTool("slow_compute", { seconds: 1, label: "sum" });
    const statuses: string[] = [];
    for await (const update of handle) statuses.push(update.status);
    expect(textOf(await handle)).toBe('Computed "sum" in 1s');
    expect(handle.taskId).toEqual(expect.any(String));
    expect(statuses.at(-1)).toBe("completed");
  });

  it("cancels a task it no longer needs, and the server confirms", async () => {
    const handle = client.callTool("slow_compute", { seconds: 60 });
    await handle.created;
    await handle.cancel("not needed");
    await expect(handle).rejects.toBeInstanceOf(TaskCancelledError);
  });

  it("receives a tool error as a result with isError", async () => {
    const result = await client.callTool("failing_job");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("The job failed: simulated tool error");
  });

  it("sees a failed task as TaskFailedError with the server's code", async () => {
    await expect(client.callTool("protocol_error_job")).rejects.toSatisfy(
      (error) => error instanceof TaskFailedError && error.code === -32603,
    );
  });

  it("answers a task's question once through its elicitation handler", async () => {
    const before = asked.length;
    expect(textOf(await client.callTool("confirm_delete", { filename: "a.txt" }))).toBe("Deleted a.txt");
    expect(asked.slice(before)).toEqual(["Delete a.txt?"]);
  });

  it("answers two questions at once", async () => {
    expect(textOf(await client.callTool("multi_input"))).toBe("Received name=Ada, confirm=true");
  });

  it("answers a question asked before the task exists", async () => {
    expect(textOf(await client.callTool("test_tool_with_task"))).toBe("Hello, Ada!");
  });

  it("is told at once that an unknown task does not exist", async () => {
    await expect(client.task("no-such-task")).rejects.toSatisfy(endedAs("not_found"));
  });
}

describe("an agent against a 2026-07-28 server", () => agentTests("2026-07-28"));

describe("an agent against a 2025-11-25 server", () => agentTests("2025-11-25"));
