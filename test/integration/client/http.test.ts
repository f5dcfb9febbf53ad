/**
 * A TaskClient against the reference server over real Streamable HTTP on 127.0.0.1, through each transport a
 * host may use: a URL (the library's own transport built for it), an explicit v2 `StreamableHTTPClientTransport`, and
 * the v1 SDK transport with our fetch wrappers. Besides each fixture's behaviour, the server's request log shows
 * what went over the wire: routing headers, the `_meta` envelope, and `tasks/cancel` on abort.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TaskCancelledError, TaskClient, type ConnectTarget } from "mcp-tasks";
import { withHttpErrorMapping, withRoutingHeaders } from "mcp-tasks/transport";
import { fixtureTools, startTaskServer, type HttpTaskServer, type RecordedRequest } from "mcp-tasks/testing";
import { TIME_SCALE, fastClient, fixtureCallTests, textOf } from "./fixture-calls.js";

const TASKS = "io.modelcontextprotocol/tasks";
const CLIENT_INFO = { name: "wire-test-agent", version: "3.1.4" };

let server: HttpTaskServer;
beforeAll(async () => {
  server = await startTaskServer({ tools: fixtureTools({ timeScale: TIME_SCALE }) });
});
afterAll(async () => {
  await server.close();
});

const transports: Array<[string, () => ConnectTarget]> = [
  ["a URL (the built-in transport)", () => server.url],
  ["an explicit v2 StreamableHTTPClientTransport", () => new V2Transport(new URL(server.url))],
  [
    "the v1 StreamableHTTPClientTransport with withRoutingHeaders(withHttpErrorMapping())",
    () => new V1Transport(new URL(server.url), { fetch: withRoutingHeaders(withHttpErrorMapping()) }),
  ],
];

/** JSON-RPC requests (not notifications) the server received over POST. */
function postedRequests(): RecordedRequest[] {
  return server.requests.all().filter((entry) => entry.httpMethod === "POST" && entry.id !== undefined);
}

/** Waits (bounded, 2 s) until the server has received a request of `method`. */
async function serverSaw(method: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (server.requests.forMethod(method).length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the server never saw ${method}`);
}

function paramsOf(entry: RecordedRequest): Record<string, unknown> {
  return (entry.body as { params?: Record<string, unknown> }).params ?? {};
}

describe.each(transports)("over Streamable HTTP through %s", (_label, target) => {
  let client: TaskClient;
  beforeAll(async () => {
    client = await TaskClient.connect(target(), { ...fastClient, clientInfo: CLIENT_INFO });
  });
  afterAll(async () => {
    await client.close();
  });
  afterEach(() => server.requests.clear());

  it("negotiates 2026-07-28 with a server that offers the tasks extension", () => {
    expect(client.server).toMatchObject({
      era: "modern",
      protocolVersion: "2026-07-28",
      supportsTasks: true,
    });
  });

  fixtureCallTests(() => client);

  it("a detached task keeps running and a second client resumes it by id", async () => {
    const handle = client.callTool("slow_compute", { seconds: 5, label: "resumed" });
    const taskId = (await handle.created) as string;
    handle.detach();
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "detached", taskId });
    expect(server.tasks.inspect(taskId)?.cancelRequested).toBe(false);

    const other = await TaskClient.connect(server.url, fastClient);
    try {
      expect(textOf(await other.task(taskId))).toBe('Computed "resumed" in 5s');
    } finally {
      await other.close();
    }
  });

  it("sends the routing headers and the _meta envelope on every request, and tasks/cancel on abort", async () => {
    const controller = new AbortController();
    // Polling only, so the set of methods is exact (listen streams have their own tests).
    const pollingClient = await TaskClient.connect(target(), {
      ...fastClient,
      clientInfo: CLIENT_INFO,
      notifications: "off",
    });
    onTestFinished(() => pollingClient.close());
    server.requests.clear();
    const handle = pollingClient.callTool("slow_compute", { seconds: 60 }, { signal: controller.signal });
    const taskId = await handle.created;
    await serverSaw("tasks/get");
    await serverSaw("tools/list"); // asked for once a call became a task, to check its result (validateOutput)
    controller.abort();
    await expect(handle).rejects.toBeInstanceOf(TaskCancelledError);

    const requests = postedRequests();
    const methods = new Set(requests.map((entry) => entry.method));
    expect(methods).toEqual(new Set(["tools/call", "tools/list", "tasks/get", "tasks/cancel"]));
    const names: Record<string, string | undefined> = {
      "tools/call": "slow_compute",
      "tools/list": undefined,
    };
    for (const entry of requests) {
      const params = paramsOf(entry);
      expect(entry.headers["mcp-protocol-version"]).toBe("2026-07-28");
      expect(entry.headers["mcp-method"]).toBe(entry.method);
      const method = entry.method ?? "";
      expect(entry.headers["mcp-name"]).toBe(method in names ? names[method] : taskId);
      expect(params._meta).toMatchObject({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} }, elicitation: {} },
      });
    }
    expect(server.requests.forMethod("tasks/cancel").map((entry) => paramsOf(entry).taskId)).toEqual([
      taskId,
    ]);
    expect(server.requests.forMethod("notifications/cancelled")).toEqual([]);
    expect(server.tasks.get(taskId as string)?.status).toBe("cancelled");
  });
});

describe("close()", () => {
  it.each(transports)(
    "through %s: logs nothing, emits closed once, then refuses new work",
    async (_label, target) => {
      const logged: string[] = [];
      const note = (level: string) => (message: string) => void logged.push(`${level}: ${message}`);
      const logger = { debug: () => undefined, info: note("info"), warn: note("warn"), error: note("error") };
      const client = await TaskClient.connect(target(), { ...fastClient, logger });
      let closed = 0;
      client.on("closed", () => closed++);
      await client.close();
      // Our own close is not "the connection to the server ended".
      expect(logged).toEqual([]);
      expect(closed).toBe(1);
      expect(() => client.callTool("greet", { name: "Ada" })).toThrow("TaskClient is closed");
    },
  );
});
