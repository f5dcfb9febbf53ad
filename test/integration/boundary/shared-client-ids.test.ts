/**
 * Several `tasksFor()` on one SDK `Client` share its transport; each session must own its own JSON-RPC id
 * namespace, so the answer to one caller's request never reaches another.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, expect, it } from "vitest";
import { tasksFor } from "mcp-tasks";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";

let server: HttpTaskServer;
let sdk: Client;

beforeEach(async () => {
  server = await startTaskServer();
  sdk = new Client({ name: "host-app", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await sdk.connect(new StreamableHTTPClientTransport(new URL(server.url)));
});

afterEach(async () => {
  await sdk.close();
  await server.close();
});

it("gives two tasksFor on one Client calling at once each its own answers", async () => {
  const a = tasksFor(sdk, { requestTimeoutMs: 3_000 });
  const b = tasksFor(sdk, { requestTimeoutMs: 3_000 });
  const names = ["Ada", "Bob", "Cy", "Di"];
  const calls = names.flatMap((name) => [
    a.callTool("greet", { name: `a-${name}` }),
    b.callTool("greet", { name: `b-${name}` }),
  ]);
  const texts = (await Promise.all(calls)).map((result) => (result.content[0] as { text: string }).text);
  expect(texts).toEqual(names.flatMap((name) => [`Hello, a-${name}!`, `Hello, b-${name}!`]));

  // No two requests on the connection carried the same id.
  const ids = server.requests.forMethod("tools/call").map((entry) => entry.id);
  expect(new Set(ids).size).toBe(ids.length);

  // The SDK Client still gets its own answers too.
  const direct = await sdk.callTool({ name: "greet", arguments: { name: "Grace" } });
  expect(direct.content).toEqual([{ type: "text", text: "Hello, Grace!" }]);
  await b.close();
  await a.close();
});
