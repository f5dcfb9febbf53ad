/**
 * A stored ref is handed only to its own server, matched by an identity the connection has: the endpoint's URL,
 * else the name in the server's `serverInfo`. A server reached without a URL (an SDK transport here; stdio is the
 * same) that sends no `serverInfo` has none: `resume()` and adoption hand it none of the store's refs (every other
 * server's task ids) and say so through the logger, instead of reading the missing identity as "the same server".
 * The real client against the reference server, through an SDK transport that strips `serverInfo` from its answers.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TaskClient, type TaskClientOptions, type TaskRef } from "mcp-tasks";
import type { TaskStore } from "mcp-tasks/store";
import { memoryStore } from "mcp-tasks/store";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { serverKey } from "../../../src/store/types.js";
import { FAST, closesAfterEach } from "../lifecycle/helpers.js";

const track = closesAfterEach();

let anonymous: HttpTaskServer;
beforeAll(async () => {
  anonymous = await startTaskServer();
});
afterAll(() => anonymous.close());

/** The SDK's Streamable HTTP transport to `url`, every answer stripped of the server's `serverInfo`. */
function withoutServerInfo(url: string) {
  const inner = new StreamableHTTPClientTransport(new URL(url));
  const outer = {
    onmessage: undefined as ((message: unknown) => void) | undefined,
    onerror: undefined as ((error: Error) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    start: () => inner.start(),
    send: (...args: Parameters<typeof inner.send>) => inner.send(...args),
    close: () => inner.close(),
    setProtocolVersion: (version: string) => inner.setProtocolVersion(version),
  };
  inner.onmessage = (message) => {
    const result = (message as { result?: Record<string, unknown> }).result;
    if (result !== undefined) {
      delete result["serverInfo"];
      const meta = result["_meta"] as Record<string, unknown> | undefined;
      if (meta !== undefined) delete meta["io.modelcontextprotocol/serverInfo"];
    }
    outer.onmessage?.(message);
  };
  inner.onerror = (error) => outer.onerror?.(error);
  inner.onclose = () => outer.onclose?.();
  return outer;
}

const stored = (taskId: string, server: TaskRef["server"]): TaskRef => ({
  v: 1,
  taskId,
  server,
  method: "tools/call",
  toolName: "slow_compute",
  answeredInputKeys: [],
});

/** Other servers' tasks: one over HTTP, one of a stdio server with a name, one of another server without one. */
const OTHERS = [
  stored("task-of-an-http-server", {
    url: "http://127.0.0.1:9/mcp",
    name: "mcp-tasks-reference",
    protocolVersion: "2026-07-28",
  }),
  stored("task-of-a-named-stdio-server", { name: "mcp-tasks-reference", protocolVersion: "2026-07-28" }),
  stored("task-of-another-anonymous-server", { protocolVersion: "2026-07-28" }),
];

/**
 * A memory store holding `OTHERS`, counting what asks it for refs. With `leases`, it also has `claimLapsed`, which
 * hands over every ref filed under the server's key, as a store sharded by server does (a server without an
 * identity is filed under the key every such server shares).
 */
async function storeOfOthers(leases = false): Promise<{ store: TaskStore; asked: string[] }> {
  const store: TaskStore = memoryStore();
  for (const ref of OTHERS) await store.put(ref);
  const asked: string[] = [];
  const list = store.list.bind(store);
  store.list = (server) => {
    asked.push("list");
    return list(server);
  };
  if (leases) {
    store.claimLapsed = (server) => {
      asked.push("claimLapsed");
      return Promise.resolve(OTHERS.filter((ref) => serverKey(ref.server) === serverKey(server)));
    };
  }
  return { store, asked };
}

async function connectAnonymous(store: TaskStore, options: TaskClientOptions = {}) {
  const warnings: string[] = [];
  const client = track(
    await TaskClient.connect(withoutServerInfo(anonymous.url), {
      ...FAST,
      ...options,
      store,
      logger: { warn: (message: string) => warnings.push(message) },
    }),
  );
  expect(client.server.serverInfo).toBeUndefined();
  return { client, warnings };
}

const NO_IDENTITY = /no URL and no serverInfo to match stored refs by: resume\(\) and adoption follow none/;
const polledHere = () => anonymous.requests.all().filter((request) => request.method === "tasks/get");

describe("a server without a URL that sends no serverInfo", () => {
  it("is handed no stored ref by resume(), which says why", async () => {
    const { store } = await storeOfOthers();
    const before = polledHere().length;
    const { client, warnings } = await connectAnonymous(store);
    expect(await client.resume()).toEqual([]);
    expect(await client.resume()).toEqual([]);
    expect(warnings.filter((warning) => NO_IDENTITY.test(warning))).toHaveLength(1);
    expect(client.activeTasks).toBe(0);
    expect(polledHere().length).toBe(before);
  });

  it.each([
    ["listing", false],
    ["claiming lapsed leases", true],
  ])(
    "is handed no stored ref by adoption (a store %s), which says why and never asks the store",
    async (_how, leases) => {
      const { store, asked } = await storeOfOthers(leases);
      const before = polledHere().length;
      const { client, warnings } = await connectAnonymous(store, { adopt: { everyMs: 10 } });
      await vi.waitFor(() => expect(warnings.some((warning) => NO_IDENTITY.test(warning))).toBe(true), {
        timeout: 5_000,
        interval: 10,
      });
      expect(asked).toEqual([]);
      expect(client.activeTasks).toBe(0);
      expect(polledHere().length).toBe(before);
    },
  );
});
