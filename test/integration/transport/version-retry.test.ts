/**
 * SEP-2575's retry at connect: a server that refuses the first `server/discover` with -32022 "Unsupported protocol
 * version" and lists 2026-07-28 in `data.supported` gets the probe once more, through the real client, against the
 * reference server behind the fault proxy (which answers the refused probe itself). Found by the conformance
 * suite's `request-metadata` client scenario.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RpcError, TaskClient } from "mcp-tasks";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { startFaultProxy, type FaultProxy, type FaultRule } from "../lifecycle/fault-proxy.js";

// What the suite's scenario server answers (HTTP 400 is the status the spec gives -32022).
const REFUSAL: FaultRule = {
  status: 400,
  error: {
    code: -32022,
    message: "Unsupported protocol version",
    data: { supported: ["2026-07-28"], requested: "2026-07-28" },
  },
};

let server: HttpTaskServer;
let proxy: FaultProxy;

beforeEach(async () => {
  server = await startTaskServer({ tools: fixtureTools({ timeScale: 0.01 }) });
  proxy = await startFaultProxy(server.url);
});

afterEach(async () => {
  await proxy.close();
  await server.close();
});

describe("connect() after a -32022 refusal of server/discover", () => {
  it("sends server/discover again with 2026-07-28 and then works as a 2026-07-28 client", async () => {
    proxy.fault("server/discover", REFUSAL, 1);
    await using client = await TaskClient.connect(proxy.url);
    expect(client.server).toMatchObject({
      era: "modern",
      protocolVersion: "2026-07-28",
      supportsTasks: true,
    });
    expect(proxy.seen.slice(0, 2)).toEqual(["server/discover", "server/discover"]);
    // The first probe never reached the server; the retry did, with the version in header and envelope.
    const probes = server.requests.forMethod("server/discover");
    expect(probes).toHaveLength(1);
    expect(probes[0]?.headers["mcp-protocol-version"]).toBe("2026-07-28");
    const result = await client.callTool("greet", { name: "Ada" });
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
  });

  it("fails with the server's RpcError when the retry is refused too, after two probes and no third", async () => {
    proxy.fault("server/discover", REFUSAL, 2);
    const failure = await TaskClient.connect(proxy.url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RpcError);
    expect(failure).toMatchObject({ code: -32022 });
    expect(proxy.seen).toEqual(["server/discover", "server/discover"]);
    expect(server.requests.forMethod("server/discover")).toHaveLength(0);
  });
});
