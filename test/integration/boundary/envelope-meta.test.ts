/**
 * The caller's `meta` travels in `params._meta` beside the 2026-07-28 envelope, never over it: a request that
 * lost its declaration of the tasks extension (or its protocol version) must not go out while the client still
 * expects a task. Asserted on the wire, through the reference server's request log.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { TaskClient } from "mcp-tasks";
import { defineTool, startTaskServer, step, textResult, type HttpTaskServer } from "mcp-tasks/testing";

const VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const TASKS = "io.modelcontextprotocol/tasks";

let server: HttpTaskServer;
let client: TaskClient;
beforeAll(async () => {
  const job = defineTool({ name: "job", task: "required", steps: [step.complete(textResult("done"))] });
  server = await startTaskServer({ tools: [job] });
  client = await TaskClient.connect(server.url, {
    clientInfo: { name: "envelope-test", version: "1.0.0" },
    polling: { minIntervalMs: 1, defaultIntervalMs: 5, maxIntervalMs: 20 },
  });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

it("keeps the envelope's own keys when the caller's meta names them, and sends the caller's other keys beside", async () => {
  const handle = client.callTool(
    "job",
    {},
    {
      meta: {
        [VERSION]: "1999-01-01",
        [CLIENT_INFO]: { name: "impostor", version: "0" },
        [CAPABILITIES]: {},
        "example.com/trace": "abc-123",
      },
    },
  );
  await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "done" }] });
  expect(handle.taskId).toEqual(expect.any(String));

  const call = server.requests.last("tools/call");
  const meta = (call?.body as { params: { _meta: Record<string, unknown> } }).params._meta;
  expect(meta[VERSION]).toBe("2026-07-28");
  expect(meta[CLIENT_INFO]).toEqual({ name: "envelope-test", version: "1.0.0" });
  expect(meta[CAPABILITIES]).toEqual({ extensions: { [TASKS]: {} } });
  expect(meta["example.com/trace"]).toBe("abc-123");
});
