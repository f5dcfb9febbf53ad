import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TaskFailedError, tasksFor } from "mcp-tasks";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";

describe("tasksFor: task handles from an SDK Client the app already holds", () => {
  let server: HttpTaskServer;
  let sdk: Client;

  beforeEach(async () => {
    server = await startTaskServer();
    sdk = new Client({ name: "host-app", version: "3.1.4" }, { versionNegotiation: { mode: "auto" } });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  });

  afterEach(async () => {
    await sdk.close();
    await server.close();
  });

  it("runs a task to its result over the Client's own connection", async () => {
    const tasks = tasksFor(sdk);
    expect(tasks.server.era).toBe("modern");
    expect(tasks.server.supportsTasks).toBe(true);
    const probesBefore = server.requests.forMethod("server/discover").length;

    const handle = tasks.callTool("slow_compute", { seconds: 0.2, label: "shared" });
    const result = await handle;

    expect(handle.taskId).toEqual(expect.any(String));
    expect(result.content).toEqual([{ type: "text", text: expect.stringContaining("shared") }]);
    // No second negotiation: the Client already did it.
    expect(server.requests.forMethod("server/discover").length).toBe(probesBefore);
    // The app's identity travels in the envelope of our requests too.
    const call = server.requests.last("tools/call");
    const meta = (call?.body as { params: { _meta: Record<string, unknown> } }).params._meta;
    expect(meta["io.modelcontextprotocol/clientInfo"]).toEqual({ name: "host-app", version: "3.1.4" });
    await tasks.close();
  });

  it("rejects a failed task with the JSON-RPC error it carries", async () => {
    const tasks = tasksFor(sdk);
    await expect(tasks.callTool("protocol_error_job")).rejects.toBeInstanceOf(TaskFailedError);
    await tasks.close();
  });

  it("leaves the SDK Client working, also after the task client is closed", async () => {
    const tasks = tasksFor(sdk);
    await tasks.callTool("greet", { name: "Ada" });
    await tasks.close();

    const direct = await sdk.callTool({ name: "greet", arguments: { name: "Grace" } });
    expect(direct.content).toEqual([{ type: "text", text: "Hello, Grace!" }]);
  });

  it("refuses a Client that is not connected, with a clear error", () => {
    const fresh = new Client({ name: "x", version: "1" });
    expect(() => tasksFor(fresh)).toThrow(/not connected/);
  });
});
