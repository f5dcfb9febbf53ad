/**
 * What a TaskClient does with each conformance fixture tool of the reference server, written once and run over
 * every transport (Streamable HTTP with both SDK lines, and stdio). The server runs the fixtures at a hundredth
 * of their real timing and the client polls every few milliseconds, so each call takes tens of milliseconds.
 */
import { expect, it } from "vitest";
import {
  TaskCancelledError,
  TaskFailedError,
  type CallToolResult,
  type InputHandlers,
  type TaskClient,
  type TaskClientOptions,
  type TaskUpdate,
} from "mcp-tasks";
import type { ElicitResult } from "mcp-tasks/schema";

/** The fixtures' time scale the servers in these tests use. */
export const TIME_SCALE = 0.01;

/** Answers the fixtures' questions: confirm everything, and the name is Ada. */
export const fixtureAnswers: InputHandlers = {
  elicitation: async (_params, { key }): Promise<ElicitResult> => {
    if (key === "name" || key === "user_name") return { action: "accept", content: { name: "Ada" } };
    return { action: "accept", content: { confirm: true } };
  },
};

/** Client options for fast fixture runs: the fixtures suggest 200 ms; poll at most 20 ms apart instead. */
export const fastClient: TaskClientOptions = {
  inputHandlers: fixtureAnswers,
  polling: { minIntervalMs: 1, defaultIntervalMs: 10, maxIntervalMs: 20, jitter: 0 },
  retry: { minTimeoutMs: 5, maxTimeoutMs: 50 },
};

export function textOf(result: CallToolResult): string {
  const block = result.content[0] as { type: string; text?: string } | undefined;
  return block?.type === "text" ? (block.text ?? "") : "";
}

/** Defines one test per fixture behaviour against the client `client()` returns. */
export function fixtureCallTests(client: () => TaskClient): void {
  it("greet answers at once, without a task", async () => {
    const handle = client().callTool("greet", { name: "Ada" });
    expect(textOf(await handle)).toBe("Hello, Ada!");
    expect(handle.taskId).toBeUndefined();
  });

  it("slow_compute runs as a task and completes with its result", async () => {
    const handle = client().callTool("slow_compute", { seconds: 1, label: "sum" });
    const statuses: string[] = [];
    for await (const update of handle) statuses.push(update.status);
    expect(textOf(await handle)).toBe('Computed "sum" in 1s');
    expect(handle.taskId).toEqual(expect.any(String));
    expect(statuses[0]).toBe("working");
    expect(statuses.at(-1)).toBe("completed");
  });

  it("slow_compute can be cancelled, and the server confirms it", async () => {
    const handle = client().callTool("slow_compute", { seconds: 60 });
    expect(await handle.created).toEqual(expect.any(String));
    await handle.cancel("not needed");
    const error = await handle.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(TaskCancelledError);
    expect(error).toMatchObject({ confirmed: true, taskId: handle.taskId, reason: "not needed" });
  });

  it("failing_job completes with a tool error, and awaiting it resolves", async () => {
    const handle = client().callTool("failing_job");
    const result = await handle;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("The job failed: simulated tool error");
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "completed" });
  });

  it("protocol_error_job fails, and awaiting it rejects with TaskFailedError carrying code and message", async () => {
    const handle = client().callTool("protocol_error_job");
    const error = await handle.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error).toMatchObject({
      code: -32603,
      rpcMessage: "Simulated internal error in protocol_error_job",
      taskId: handle.taskId,
    });
    expect(handle.taskId).toEqual(expect.any(String));
  });

  it("confirm_delete asks through the elicitation handler and completes with what it did", async () => {
    const handle = client().callTool("confirm_delete", { filename: "a.txt" });
    const updates: TaskUpdate[] = [];
    handle.on("update", (update) => updates.push(update));
    expect(textOf(await handle)).toBe("Deleted a.txt");
    expect(updates.map((update) => update.status)).toContain("input_required");
  });

  it("multi_input gets both answers and completes", async () => {
    expect(textOf(await client().callTool("multi_input"))).toBe("Received name=Ada, confirm=true");
  });

  it("test_tool_with_task answers a multi-round-trip question, then follows the task it creates", async () => {
    const handle = client().callTool("test_tool_with_task");
    expect(textOf(await handle)).toBe("Hello, Ada!");
    expect(handle.taskId).toEqual(expect.any(String));
  });
}
