/**
 * A connection that dies under a request (the server closing an idle keep-alive connection as the request goes
 * out looks exactly like this): the handshake and `tools/list` are sent once more at once, a `tools/call` never
 * is. Through the real client against the reference server, behind the fault proxy, whose `"drop"` destroys the
 * connection after reading the request (the client's `fetch` fails with "other side closed").
 *
 * Found in CI: under load, `notifications/initialized` of a 2025-era handshake failed with "fetch failed" and took
 * `connect()` down with it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { TaskClient, TransportError } from "mcp-tasks";
import { fixtureTools, startTaskServer, type HttpTaskServer, type TaskServerEra } from "mcp-tasks/testing";
import { startFaultProxy, type FaultProxy } from "../lifecycle/fault-proxy.js";

let server: HttpTaskServer | undefined;
let proxy: FaultProxy | undefined;

async function start(
  era: TaskServerEra = "2026-07-28",
): Promise<{ server: HttpTaskServer; proxy: FaultProxy }> {
  server = await startTaskServer({ era, tools: fixtureTools({ timeScale: 0.01 }) });
  proxy = await startFaultProxy(server.url);
  return { server, proxy };
}

afterEach(async () => {
  await proxy?.close();
  await server?.close();
  proxy = server = undefined;
});

const count = (seen: readonly string[], method: string) => seen.filter((m) => m === method).length;

describe("a request whose connection dies under it", () => {
  it("server/discover is sent once more and connect() succeeds", async () => {
    const { server, proxy } = await start();
    proxy.fault("server/discover", "drop", 1);
    await using client = await TaskClient.connect(proxy.url);
    expect(client.server.era).toBe("modern");
    expect(proxy.seen.slice(0, 2)).toEqual(["server/discover", "server/discover"]);
    expect(server.requests.forMethod("server/discover")).toHaveLength(1);
  });

  it("initialize and notifications/initialized of a 2025-era handshake are each sent once more", async () => {
    const { proxy } = await start("2025-11-25");
    proxy.fault("initialize", "drop", 1);
    proxy.fault("notifications/initialized", "drop", 1);
    await using client = await TaskClient.connect(proxy.url);
    expect(client.server).toMatchObject({ era: "legacy", protocolVersion: "2025-11-25" });
    expect(count(proxy.seen, "initialize")).toBe(2);
    expect(count(proxy.seen, "notifications/initialized")).toBe(2);
    const result = await client.callTool("greet", { name: "Ada" });
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
  });

  it("tools/list is sent once more and lists the tools", async () => {
    const { proxy } = await start();
    await using client = await TaskClient.connect(proxy.url);
    proxy.fault("tools/list", "drop", 1);
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("greet");
    expect(count(proxy.seen, "tools/list")).toBe(2);
  });

  it("only once: a second dead connection fails connect() with a transient TransportError that says why", async () => {
    const { proxy } = await start();
    proxy.fault("server/discover", "drop", 2);
    const failure = await TaskClient.connect(proxy.url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransportError);
    expect(failure).toMatchObject({ transient: true, status: undefined });
    expect((failure as Error).message).toContain("other side closed");
    expect(proxy.seen).toEqual(["server/discover", "server/discover"]);
  });

  it("tools/call is never sent twice: the call fails with a transient TransportError", async () => {
    const { server, proxy } = await start();
    await using client = await TaskClient.connect(proxy.url);
    proxy.fault("tools/call", "drop", 1);
    const failure = await client.callTool("greet", { name: "Ada" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransportError);
    expect(failure).toMatchObject({ transient: true });
    expect(count(proxy.seen, "tools/call")).toBe(1);
    expect(server.requests.forMethod("tools/call")).toHaveLength(0);
  });
});
