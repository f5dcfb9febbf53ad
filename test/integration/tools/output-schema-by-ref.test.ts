/**
 * A task followed by its ref is checked against its tool's `outputSchema` as a call's own result is: through
 * `client.task(ref)`, `resume()`, adoption and the command line's `watch`, a completed result that does not match
 * ends the handle with `OutputSchemaError` carrying the task id, never a `completed` outcome. The real client (and
 * the built command) against the reference server over Streamable HTTP; each task is started by one client (or
 * process) and followed by another, which knows the tool only from the ref.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutputSchemaError, TaskClient, type TaskHandle, type TaskOutcome, type TaskRef } from "mcp-tasks";
import { fileStore } from "mcp-tasks/store";
import { defineTool, startTaskServer, step, structuredResult, type HttpTaskServer } from "mcp-tasks/testing";
import type { CallToolResult } from "mcp-tasks/schema";
import { runCli, stateDir } from "../cli/harness.js";

const polling = { defaultIntervalMs: 20, minIntervalMs: 10, jitter: 0 };

/** Runs long enough for its first client to go, then completes with a result its schema refuses. */
const wrongForecast = defineTool({
  name: "wrong_forecast",
  task: "required",
  pollIntervalMs: 20,
  outputSchema: { type: "object", properties: { high: { type: "number" } }, required: ["high"] },
  steps: [step.working("forecasting"), step.idle(15), step.complete(structuredResult({ high: "warm" }))],
});

let server: HttpTaskServer;
let dir: string;

beforeAll(async () => {
  server = await startTaskServer({ tools: [wrongForecast] });
  dir = mkdtempSync(join(tmpdir(), "mcp-tasks-by-ref-"));
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a task of `wrong_forecast` in a client of its own, which then goes away; the task runs on. */
async function startedElsewhere(storeDir?: string): Promise<TaskRef> {
  const store = storeDir === undefined ? undefined : fileStore(storeDir);
  const client = await TaskClient.connect(server.url, { polling, ...(store && { store }) });
  const handle = client.callTool("wrong_forecast");
  const ref = await handle.ref;
  if (ref === undefined) throw new Error("no task was created");
  await client.close();
  return ref;
}

/** The outcome must be the schema's refusal, carrying the task id. */
function expectRefused(outcome: TaskOutcome<CallToolResult>, taskId: string): void {
  expect(outcome.kind).toBe("error");
  const error = (outcome as { error: unknown }).error as OutputSchemaError;
  expect(error).toBeInstanceOf(OutputSchemaError);
  expect(error.taskId).toBe(taskId);
  expect(error.toolName).toBe("wrong_forecast");
  expect(error.problems[0]).toEqual({
    path: "/high",
    message: 'Instance type "string" is invalid. Expected "number".',
  });
}

describe("a task followed by its ref is checked against its tool's outputSchema", () => {
  it("client.task(ref)", async () => {
    const ref = await startedElsewhere();
    const client = await TaskClient.connect(server.url, { polling });
    try {
      expectRefused(await client.task(ref).outcome(), ref.taskId);
    } finally {
      await client.close();
    }
  });

  it("resume()", async () => {
    const storeDir = join(dir, "resume");
    const ref = await startedElsewhere(storeDir);
    const client = await TaskClient.connect(server.url, { polling, store: fileStore(storeDir) });
    try {
      const resumed = await client.resume();
      expect(resumed.map((handle) => handle.taskId)).toEqual([ref.taskId]);
      expectRefused(await (resumed[0] as TaskHandle<CallToolResult>).outcome(), ref.taskId);
    } finally {
      await client.close();
    }
  });

  it("adoption", async () => {
    const storeDir = join(dir, "adopt");
    const ref = await startedElsewhere(storeDir);
    const client = await TaskClient.connect(server.url, {
      polling,
      store: fileStore(storeDir),
      adopt: { everyMs: 20 },
    });
    try {
      // Wrapped: a handle is thenable, and a promise resolved with it would wait for its result.
      const { adopted } = await new Promise<{ adopted: TaskHandle<CallToolResult> }>((resolve) =>
        client.once("task", (handle) => resolve({ adopted: handle })),
      );
      expect(adopted.taskId).toBe(ref.taskId);
      expectRefused(await adopted.outcome(), ref.taskId);
    } finally {
      await client.close();
    }
  });

  it("mcp-tasks watch, which prints no result and exits 3", async () => {
    const state = stateDir();
    try {
      const detached = await runCli(["call", server.url, "wrong_forecast", "--detach"], state.env);
      expect(detached.code).toBe(7);
      const ref = JSON.parse(detached.stdout) as TaskRef;
      const watched = await runCli(["watch", ref.taskId], state.env);
      expect(watched.stdout).toBe("");
      expect(watched.stderr).toContain(
        'the result of "wrong_forecast" does not match its outputSchema: /high: Instance type "string" is invalid.',
      );
      expect(watched.code).toBe(3);
    } finally {
      state.remove();
    }
  });
});
