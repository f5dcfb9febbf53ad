/** The session answers requests the server sends: once, with their id, never after a cancel or a close. */
import { describe, expect, it } from "vitest";
import { Session } from "../../../src/session/session.js";
import type { IncomingRequest } from "../../../src/session/incoming.js";
import { FakeTransport, modernResponder } from "./fake-transport.js";

async function connected(
  options: { maxServerRequests?: number; warn?: (message: string) => void } = {},
): Promise<{ session: Session; transport: FakeTransport }> {
  const transport = new FakeTransport(modernResponder);
  const session = new Session(transport, {
    clientInfo: { name: "t", version: "1" },
    capabilities: {},
    ...options,
  });
  await session.connect();
  transport.sent.length = 0;
  return { session, transport };
}

/** Lets queued answers go out. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("server requests", () => {
  it("answers ping with an empty result, keeping the server's id and its type", async () => {
    const { session, transport } = await connected();
    transport.deliver({ jsonrpc: "2.0", id: 7, method: "ping" });
    transport.deliver({ jsonrpc: "2.0", id: "7", method: "ping" });
    await settle();
    expect(transport.sent).toEqual([
      { jsonrpc: "2.0", id: 7, result: {} },
      { jsonrpc: "2.0", id: "7", result: {} },
    ]);
    await session.close();
  });

  it("answers a method nobody serves with -32601", async () => {
    const { session, transport } = await connected();
    session.serveRequests(() => undefined);
    transport.deliver({ jsonrpc: "2.0", id: 1, method: "sampling/createMessage", params: {} });
    transport.deliver({ jsonrpc: "2.0", id: 2, method: "something/else" });
    await settle();
    expect(transport.sent).toEqual([
      { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found: sampling/createMessage" } },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found: something/else" } },
    ]);
    await session.close();
  });

  it("sends the handler's result or error, and -32603 without details when the handler throws", async () => {
    const { session, transport } = await connected();
    session.serveRequests(async ({ method }) => {
      if (method === "a") return { result: { ok: true } };
      if (method === "b") return { error: { code: -32602, message: "bad params" } };
      throw new Error("private detail");
    });
    for (const [id, method] of [
      [1, "a"],
      [2, "b"],
      [3, "c"],
    ] as const) {
      transport.deliver({ jsonrpc: "2.0", id, method });
    }
    await settle();
    expect(transport.sent).toEqual([
      { jsonrpc: "2.0", id: 1, result: { ok: true } },
      { jsonrpc: "2.0", id: 2, error: { code: -32602, message: "bad params" } },
      { jsonrpc: "2.0", id: 3, error: { code: -32603, message: "Internal error" } },
    ]);
    await session.close();
  });

  it("answers a request delivered twice while it is being served only once", async () => {
    const { session, transport } = await connected();
    let calls = 0;
    let release!: () => void;
    session.serveRequests(async () => {
      calls += 1;
      await new Promise<void>((resolve) => (release = resolve));
      return { result: { n: calls } };
    });
    transport.deliver({ jsonrpc: "2.0", id: 5, method: "roots/list" });
    transport.deliver({ jsonrpc: "2.0", id: 5, method: "roots/list" });
    await settle();
    release();
    await settle();
    expect(calls).toBe(1);
    expect(transport.sent).toEqual([{ jsonrpc: "2.0", id: 5, result: { n: 1 } }]);
    await session.close();
  });

  it("aborts the handler's signal when the server cancels its request, and never answers it", async () => {
    const { session, transport } = await connected();
    const seen: IncomingRequest[] = [];
    let sentFailure: unknown;
    session.serveRequests(
      (request) =>
        new Promise((resolve) => {
          seen.push(request);
          request.signal.addEventListener("abort", () =>
            resolve({ result: { late: true }, sent: (failure) => (sentFailure = failure) }),
          );
        }),
    );
    transport.deliver({ jsonrpc: "2.0", id: 9, method: "elicitation/create", params: { message: "?" } });
    await settle();
    transport.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } });
    await settle();
    expect(seen[0]?.signal.aborted).toBe(true);
    expect(transport.sent).toEqual([]);
    expect(sentFailure).toBeInstanceOf(Error);
    await session.close();
  });

  it("drops answers that are ready after the session closed", async () => {
    const { session, transport } = await connected();
    let signal: AbortSignal | undefined;
    let release!: () => void;
    session.serveRequests(async (request) => {
      signal = request.signal;
      await new Promise<void>((resolve) => (release = resolve));
      return { result: {} };
    });
    transport.deliver({ jsonrpc: "2.0", id: 3, method: "roots/list" });
    await settle();
    await session.close();
    expect(signal?.aborted).toBe(true);
    release();
    await settle();
    expect(transport.sent.filter((message) => "id" in message && message.id === 3)).toEqual([]);
  });

  describe("a bound on open requests (decision 17)", () => {
    /** A handler that holds every request until `releaseAll()`. */
    function holding(session: Session) {
      const held: Array<() => void> = [];
      let calls = 0;
      session.serveRequests(async () => {
        calls += 1;
        await new Promise<void>((resolve) => held.push(resolve));
        return { result: {} };
      });
      return {
        calls: () => calls,
        releaseAll: () => held.splice(0).forEach((release) => release()),
      };
    }
    const refusal = (id: number) => ({
      jsonrpc: "2.0",
      id,
      error: {
        code: -32000,
        message: "Too many requests: the client is answering 3 of this server's requests already",
      },
    });

    it("refuses a request past maxServerRequests at once with -32000, never calling the handler, and warns once", async () => {
      const warnings: string[] = [];
      const { session, transport } = await connected({
        maxServerRequests: 3,
        warn: (message) => void warnings.push(message),
      });
      const handler = holding(session);
      for (let id = 1; id <= 5; id++)
        transport.deliver({ jsonrpc: "2.0", id, method: "sampling/createMessage" });
      await settle();
      expect(handler.calls()).toBe(3);
      expect(transport.sent).toEqual([refusal(4), refusal(5)]);
      expect(warnings).toEqual([
        "the server has 3 requests open (maxServerRequests); more are refused with -32000 until some are answered",
      ]);
      // Once answered, their places are free again.
      handler.releaseAll();
      await settle();
      transport.deliver({ jsonrpc: "2.0", id: 6, method: "sampling/createMessage" });
      await settle();
      expect(handler.calls()).toBe(4);
      handler.releaseAll();
      await session.close();
    });

    it("counts a request the server cancelled until its handler returns", async () => {
      const { session, transport } = await connected({ maxServerRequests: 3 });
      const handler = holding(session);
      for (let id = 1; id <= 3; id++) transport.deliver({ jsonrpc: "2.0", id, method: "roots/list" });
      for (let id = 1; id <= 3; id++)
        transport.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
      transport.deliver({ jsonrpc: "2.0", id: 4, method: "roots/list" });
      await settle();
      expect(handler.calls()).toBe(3);
      expect(transport.sent).toEqual([refusal(4)]);
      handler.releaseAll();
      await settle();
      transport.deliver({ jsonrpc: "2.0", id: 5, method: "roots/list" });
      await settle();
      expect(handler.calls()).toBe(4);
      handler.releaseAll();
      await session.close();
    });

    it("drops requests past as many refusals still on their way out", async () => {
      const { session, transport } = await connected({ maxServerRequests: 3 });
      holding(session);
      // Sends that never finish: the refusals stay on their way out.
      transport.send = (message) => {
        transport.sent.push(message as never);
        return new Promise(() => undefined);
      };
      for (let id = 1; id <= 20; id++) transport.deliver({ jsonrpc: "2.0", id, method: "roots/list" });
      await settle();
      expect(transport.sent).toEqual([refusal(4), refusal(5), refusal(6)]);
      await session.close();
    });

    it("lets 64 requests be open by default", async () => {
      const { session, transport } = await connected();
      const handler = holding(session);
      for (let id = 1; id <= 70; id++) transport.deliver({ jsonrpc: "2.0", id, method: "roots/list" });
      await settle();
      expect(handler.calls()).toBe(64);
      expect(transport.sent).toHaveLength(6);
      handler.releaseAll();
      await session.close();
    });
  });

  it("refuses a request whose params nest deeper than 256 levels with -32602, before any handler (decision 17)", async () => {
    const { session, transport } = await connected();
    let calls = 0;
    session.serveRequests(async () => {
      calls += 1;
      return { result: {} };
    });
    const params = JSON.parse(`{"messages":${"[".repeat(300)}${"]".repeat(300)}}`) as Record<string, unknown>;
    transport.deliver({ jsonrpc: "2.0", id: 1, method: "sampling/createMessage", params });
    await settle();
    expect(calls).toBe(0);
    expect(transport.sent).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32602, message: "Invalid params: nests objects or arrays deeper than 256 levels" },
      },
    ]);
    await session.close();
  });
});
