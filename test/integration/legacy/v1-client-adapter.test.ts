/**
 * `tasksFor()` over a v1 SDK `Client` connected to a 2025-11-25 tasks server: the shared connection gets the
 * same 2025 task flow as `TaskClient.connect` (the Client's own handshake tells which tasks the server offers).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tasksFor } from "../../../src/index.js";
import { startV1TasksHttp, type RunningV1Server } from "./fixtures/v1-tasks-server.js";

describe("tasksFor with a v1 SDK Client on a 2025-11-25 tasks server", () => {
  let server: RunningV1Server;
  let sdk: Client;

  beforeEach(async () => {
    server = await startV1TasksHttp();
    sdk = new Client({ name: "v1-host", version: "0.9.0" });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  });

  afterEach(async () => {
    await sdk.close();
    await server.close();
  });

  it("runs a required tool as a task over the Client's session", async () => {
    const tasks = tasksFor(sdk, { polling: { minIntervalMs: 10, defaultIntervalMs: 10 } });
    expect(tasks.server).toMatchObject({ era: "legacy", capabilities: { tasks: { list: {} } } });
    const handle = tasks.callTool("report", { ms: 100, text: "shared" });
    expect((await handle).content).toEqual([{ type: "text", text: "report: shared" }]);
    expect((await handle.outcome()).taskId).toEqual(expect.any(String));
    expect((await tasks.listTasks()).length).toBeGreaterThanOrEqual(1);
    await tasks.close();
  });
});
