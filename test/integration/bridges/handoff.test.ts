/**
 * What every bridge shares, driven through the LangChain bridge's tools invoked directly (the loop tests of
 * each framework cover the frameworks): `task_cancel`, an unknown ref, a ref that survives a client restart
 * through the client's store, and the option checks.
 */
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { McpTasksError, type TaskClient } from "mcp-tasks";
import { aiSdkTools } from "mcp-tasks/ai-sdk";
import { handedOff, langchainTools } from "mcp-tasks/langchain";
import { openaiAgentsTools } from "mcp-tasks/openai-agents";
import { memoryStore } from "mcp-tasks/store";
import type { HttpTaskServer } from "mcp-tasks/testing";
import { bridgeServer, connect } from "./harness.js";

let server: HttpTaskServer;
let client: TaskClient;

beforeAll(async () => {
  server = await bridgeServer();
  client = await connect(server);
});
afterAll(async () => {
  await client.close();
  await server.close();
});
afterEach(() => server.requests.clear());

function byName(tools: DynamicStructuredTool[]): Record<string, DynamicStructuredTool> {
  return Object.fromEntries(tools.map((tool) => [tool.name, tool]));
}

const REF = /task (task_[0-9a-f]{16})/;

describe("hand-off", () => {
  it("task_cancel cancels a handed-off task (one tasks/cancel) and says so", async () => {
    const tools = byName(
      await langchainTools(client, { include: ["endless_job"], handoff: { afterMs: 20 } }),
    );
    const note = String(await tools["endless_job"]!.invoke({}));
    const ref = REF.exec(note)?.[1] ?? "";
    expect(ref).toMatch(/^task_[0-9a-f]{16}$/);
    // The status message shows once a poll has brought it.
    expect(await tools["task_status"]!.invoke({ ref })).toMatch(
      new RegExp(`^Task ${ref} \\("endless_job"\\) is still running \\(working(: Working)?\\)\\.$`),
    );
    expect(await tools["task_cancel"]!.invoke({ ref })).toBe(`Task ${ref} ("endless_job") was cancelled.`);
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect((await handedOff(client).wait(ref))?.kind).toBe("cancelled");
    expect(await tools["task_status"]!.invoke({ ref })).toMatch(
      /^Error: Tool "endless_job" did not complete \(cancelled\): task \S{4}…\S{2}: cancelled$/,
    );
    handedOff(client).forget(ref);
  });

  it("a handed-off task outlives the run: aborting the run afterwards does not cancel it", async () => {
    const tools = byName(
      await langchainTools(client, { include: ["slow_compute"], handoff: { afterMs: 20 } }),
    );
    const run = new AbortController();
    const note = String(await tools["slow_compute"]!.invoke({ seconds: 30 }, { signal: run.signal })); // 300 ms
    const ref = REF.exec(note)?.[1] ?? "";
    run.abort();
    expect((await handedOff(client).wait(ref))?.kind).toBe("completed");
    expect(server.requests.forMethod("tasks/cancel")).toEqual([]);
    handedOff(client).forget(ref);
  });

  it("a task that ends within afterMs is not handed off", async () => {
    const tools = byName(await langchainTools(client, { include: ["greet"], handoff: { afterMs: 5_000 } }));
    expect(await tools["greet"]!.invoke({ name: "Ada" })).toBe("Hello, Ada!");
    expect(handedOff(client).list()).toEqual([]);
  });

  it("an unknown ref is an error output, not an exception", async () => {
    const tools = byName(await langchainTools(client, { include: ["greet"], handoff: { afterMs: 10 } }));
    expect(await tools["task_status"]!.invoke({ ref: "task_0000000000000000" })).toBe(
      'Error: No handed-off task "task_0000000000000000" is known to this client.',
    );
  });

  it("a ref outlives the client: after a restart, the store's task answers task_status", async () => {
    const store = memoryStore();
    const first = await connect(server, { store });
    const before = byName(
      await langchainTools(first, { include: ["slow_compute"], handoff: { afterMs: 20 } }),
    );
    const note = String(await before["slow_compute"]!.invoke({ seconds: 30, label: "restart" })); // 300 ms
    const ref = REF.exec(note)?.[1] ?? "";
    await first.close(); // the task goes on; its ref stays in the store

    const second = await connect(server, { store });
    try {
      const after = byName(
        await langchainTools(second, { include: ["slow_compute"], handoff: { afterMs: 20 } }),
      );
      expect(second.tasks()).toEqual([]);
      const task = await handedOff(second).get(ref);
      expect(task?.toolName).toBe("slow_compute");
      expect((await handedOff(second).wait(ref))?.kind).toBe("completed");
      expect(await after["task_status"]!.invoke({ ref })).toBe('Computed "restart" in 30s');
    } finally {
      await second.close();
    }
  });
});

describe("bridge options", () => {
  it.each([
    ["aiSdkTools", aiSdkTools],
    ["langchainTools", langchainTools],
    ["openaiAgentsTools", openaiAgentsTools],
  ] as const)("%s refuses bad options with a typed error naming the option", async (name, bridge) => {
    const refused = async (options: object, message: string) => {
      const error = await bridge(client, options as never).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(McpTasksError);
      expect((error as Error).message).toBe(`${name}: ${message}`);
    };
    await refused({ include: "greet" }, "`include` must be an array of tool names or a predicate");
    await refused({ prefix: 3 }, "`prefix` must be a string");
    await refused(
      { handoff: { afterMs: -1 } },
      "`handoff.afterMs` must be a finite number of milliseconds ≥ 0",
    );
    await refused(
      { inputHandlers: { elicitation: "yes" } },
      "`inputHandlers.elicitation` must be a function",
    );
    await refused({ onUpdate: true }, "`onUpdate` must be a function");
    await expect(bridge({} as never)).rejects.toThrow(
      `${name}: the first argument must be a connected TaskClient`,
    );
  });
});
