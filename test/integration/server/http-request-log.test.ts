import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HttpTaskServer } from "../../../src/testing/index.js";
import { startTaskServer } from "../../../src/testing/index.js";
import { call, callError, envelope } from "./rawRpc.js";

let server: HttpTaskServer;
beforeEach(async () => {
  server = await startTaskServer();
});
afterEach(async () => {
  await server.close();
});

describe("the request log", () => {
  it("records each request's routing headers and body so client tests can assert the wire", async () => {
    const { taskId } = (await call(server.url, "tools/call", {
      name: "slow_compute",
      arguments: { seconds: 60 },
    })) as { taskId: string };
    await call(server.url, "tasks/get", { taskId });

    const create = server.requests.last("tools/call");
    expect(create?.headers).toMatchObject({
      "mcp-method": "tools/call",
      "mcp-name": "slow_compute",
      "mcp-protocol-version": "2026-07-28",
    });
    const get = server.requests.last("tasks/get");
    expect(get).toMatchObject({ transport: "http", httpMethod: "POST", method: "tasks/get" });
    expect(get?.headers).toMatchObject({
      "mcp-method": "tasks/get",
      "mcp-name": taskId,
      "mcp-protocol-version": "2026-07-28",
    });
    expect((get?.body as { params: { _meta: unknown } }).params._meta).toEqual(envelope());
    expect(server.requests.all().map((entry) => entry.method)).toEqual(["tools/call", "tasks/get"]);
  });

  it("records requests the server rejects, too", async () => {
    await callError(server.url, "tasks/get", { taskId: "t" }, { headers: { "mcp-name": null } });
    const rejected = server.requests.last();
    expect(rejected?.method).toBe("tasks/get");
    expect(rejected?.headers["mcp-name"]).toBeUndefined();
  });

  it("can be cleared between phases of a test", async () => {
    await call(server.url, "tools/list");
    expect(server.requests.size).toBe(1);
    server.requests.clear();
    expect(server.requests.all()).toEqual([]);
    expect(server.requests.forMethod("tools/list")).toEqual([]);
  });
});
