/**
 * `tasksFor()` with a v1 SDK `Client` (`@modelcontextprotocol/sdk`): it shares the Client's connection the same
 * way as with a v2 one, with no second handshake, and both keep working side by side.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tasksFor } from "mcp-tasks";
import { startLegacyServer, type RunningServer } from "../transport/fixtures/http.js";

describe("tasksFor with a v1 SDK Client", () => {
  let server: RunningServer;
  let sdk: Client;
  let sent: Array<{ method?: string; headers: Headers }>;

  beforeEach(async () => {
    server = await startLegacyServer();
    sent = [];
    const recordingFetch = async (url: string | URL, init?: RequestInit) => {
      const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : {};
      sent.push({ method: body.method, headers: new Headers(init?.headers) });
      return fetch(url, init);
    };
    sdk = new Client({ name: "v1-host", version: "0.9.0" });
    await sdk.connect(new StreamableHTTPClientTransport(server.url, { fetch: recordingFetch }));
  });

  afterEach(async () => {
    await sdk.close();
    await server.close();
  });

  it("calls tools over the Client's own session without negotiating again", async () => {
    const tasks = tasksFor(sdk);
    expect(tasks.server.era).toBe("legacy");
    expect(tasks.server.protocolVersion).toBe("2025-11-25");
    const initializeBefore = sent.filter((entry) => entry.method === "initialize").length;

    const result = await tasks.callTool("echo", { text: "shared connection" });

    expect(result.content).toEqual([{ type: "text", text: "shared connection" }]);
    expect(sent.filter((entry) => entry.method === "initialize").length).toBe(initializeBefore);
    expect(sent.some((entry) => entry.method === "server/discover")).toBe(false);
    // Our request rode the Client's session.
    const ours = sent.filter((entry) => entry.method === "tools/call").at(-1);
    expect(ours?.headers.get("mcp-session-id")).toEqual(expect.any(String));
    await tasks.close();
  });

  it("leaves the v1 Client working beside it and after it closed", async () => {
    const tasks = tasksFor(sdk);
    const [mine, theirs] = await Promise.all([
      tasks.callTool("echo", { text: "from tasks" }),
      sdk.callTool({ name: "echo", arguments: { text: "from sdk" } }),
    ]);
    expect(mine.content).toEqual([{ type: "text", text: "from tasks" }]);
    expect(theirs.content).toEqual([{ type: "text", text: "from sdk" }]);
    await tasks.close();
    const after = await sdk.callTool({ name: "echo", arguments: { text: "still here" } });
    expect(after.content).toEqual([{ type: "text", text: "still here" }]);
  });
});
