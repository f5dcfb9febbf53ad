/**
 * One HTTP response answers one POST. A `tools/call` (which has no request timeout) answered
 * HTTP 200 with an error whose `id` is null, or with a body that answers nothing, used to match no request and
 * leave the handle waiting for ever. The real client against the reference server of each generation behind the
 * fault proxy, which writes those answers; our transport and the OAuth path (the SDK's transport). Every call has
 * a 5 s deadline so that a regression ends as `deadline_exceeded` instead of hanging the suite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProtocolError, RpcError, TaskClient, TransportError, type TaskClientOptions } from "mcp-tasks";
import { oauth } from "mcp-tasks/oauth";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { startFaultProxy, type FaultRule } from "../lifecycle/fault-proxy.js";
import { closesAfterEach } from "../lifecycle/helpers.js";
import { idOf, json, sse, tokenHolder } from "./fixtures/hostile.js";

const servers: Record<"modern" | "legacy", HttpTaskServer> = {} as never;
beforeAll(async () => {
  servers.modern = await startTaskServer();
  servers.legacy = await startTaskServer({ era: "2025-11-25" });
});
afterAll(async () => {
  await Promise.all([servers.modern.close(), servers.legacy.close()]);
});

const track = closesAfterEach();

const invalid = { code: -32600, message: "Invalid Request" };
const anonymousError = { jsonrpc: "2.0", id: null, error: invalid };
const aNotification = {
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level: "info", data: "hi" },
};

/** Calls `greet` through a proxy that answers the call with `rule`; returns how the handle ended. */
async function callAnswered(era: "modern" | "legacy", options: TaskClientOptions, rule: FaultRule) {
  const proxy = track(await startFaultProxy(servers[era].url));
  const client = track(await TaskClient.connect(proxy.url, options));
  const errors: unknown[] = [];
  client.on("error", (error) => errors.push(error));
  proxy.fault("tools/call", rule);
  const outcome = await client.callTool("greet", { name: "Ada" }, { timeoutMs: 5_000 }).outcome();
  return { outcome, errors };
}

describe.each([
  ["2026-07-28", "modern"],
  ["2025-11-25", "legacy"],
] as const)("a %s tools/call", (_version, era) => {
  describe.each([
    ["our transport", {}],
    ["the OAuth path", { auth: oauth(tokenHolder()) }],
  ] as const)("through %s", (_path, options) => {
    it("answered 200 with a JSON error whose id is null rejects with that error", async () => {
      const { outcome, errors } = await callAnswered(era, options, {
        respond: (res) => json(res, anonymousError),
      });
      expect(outcome.kind).toBe("error");
      const error = (outcome as { error: unknown }).error;
      expect(error).toBeInstanceOf(RpcError);
      expect(error).toMatchObject({ code: -32600, rpcMessage: "Invalid Request" });
      expect(errors).toEqual([]);
    });

    it("answered 200 with a JSON body that answers nothing fails with a ProtocolError", async () => {
      const { outcome } = await callAnswered(era, options, { respond: (res) => json(res, aNotification) });
      expect(outcome.kind).toBe("error");
      const error = (outcome as { error: unknown }).error;
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toContain("carries no answer");
    });

    it("answered with an SSE stream that ends without the answer fails at its end", async () => {
      const { outcome } = await callAnswered(era, options, {
        respond: (res) => sse(res, [aNotification], true),
      });
      expect(outcome.kind).toBe("error");
      const error = (outcome as { error: unknown }).error;
      expect(error).toBeInstanceOf(TransportError);
      expect((error as Error).message).toContain("ended without an answer");
    });
  });

  it("answered with an SSE stream carrying an error whose id is null rejects with that error", async () => {
    const { outcome, errors } = await callAnswered(
      era,
      {},
      {
        respond: (res) => sse(res, [aNotification, anonymousError], true),
      },
    );
    expect(outcome.kind).toBe("error");
    expect((outcome as { error: unknown }).error).toMatchObject({ name: "RpcError", code: -32600 });
    expect(errors).toEqual([]);
  });

  it("answered with a JSON array holding its answer among other messages reads the answer", async () => {
    const proxyRule: FaultRule = {
      respond: (res, request) =>
        json(res, [aNotification, { jsonrpc: "2.0", id: idOf(request), result: { content: [] } }]),
    };
    const { outcome } = await callAnswered(era, {}, proxyRule);
    expect(outcome.kind).toBe("completed");
  });
});
