import { afterEach, describe, expect, it, vi } from "vitest";
import { Session } from "../../../src/session/session.js";
import { classifyProbe } from "../../../src/session/negotiate.js";
import {
  MissingCapabilityError,
  ProtocolError,
  RpcError,
  TransportError,
} from "../../../src/protocol/errors.js";
import { MetaKey } from "../../../src/protocol/constants.js";
import { DISCOVER_RESULT, FakeStdioTransport, FakeTransport, modernResponder } from "./fake-transport.js";
import { transportFailure } from "../../fixtures/errors.js";

const options = {
  clientInfo: { name: "agent", version: "1.0.0" },
  capabilities: { elicitation: { form: {} }, extensions: { "example.com/x": {} } },
};

afterEach(() => {
  vi.useRealTimers();
});

/** Answers like a 2025-era server: -32601 for server/discover, then the initialize handshake. */
function legacyResponder(protocolVersion = "2025-11-25") {
  return (message: { id?: string | number; method?: string }, transport: FakeTransport) => {
    queueMicrotask(() => {
      if (message.method === "server/discover") transport.fail(message.id, -32601, "Method not found");
      if (message.method === "initialize") {
        transport.answer(message.id, {
          protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "old", version: "0.9.0" },
          instructions: "be nice",
        });
      }
    });
  };
}

describe("era negotiation", () => {
  it("takes a server that answers server/discover with 2026-07-28 as modern", async () => {
    const transport = new FakeTransport(modernResponder);
    const session = new Session(transport, options);
    const info = await session.connect();
    expect(info).toMatchObject({
      era: "modern",
      protocolVersion: "2026-07-28",
      supportsTasks: true,
      serverInfo: { name: "fake", version: "9.9.9" },
    });
    expect(info.discover).toEqual(DISCOVER_RESULT);
    expect(transport.protocolVersion).toBe("2026-07-28");
    expect(transport.last("server/discover").params?._meta).toHaveProperty(
      MetaKey.protocolVersion,
      "2026-07-28",
    );
    expect(transport.sent.map((message) => message.method)).toEqual(["server/discover"]);
  });

  it("reports supportsTasks false for a modern server that does not advertise the extension", async () => {
    const transport = new FakeTransport((message, t) => {
      queueMicrotask(() => t.answer(message.id, { supportedVersions: ["2026-07-28"], capabilities: {} }));
    });
    expect((await new Session(transport, options).connect()).supportsTasks).toBe(false);
  });

  it("falls back to initialize for a server that does not know server/discover", async () => {
    const transport = new FakeTransport(legacyResponder());
    const session = new Session(transport, options);
    const info = await session.connect();
    expect(info).toEqual({
      era: "legacy",
      protocolVersion: "2025-11-25",
      serverInfo: { name: "old", version: "0.9.0" },
      instructions: "be nice",
      supportsTasks: false,
      // Kept for the 2025-11-25 task requests (capabilities.tasks).
      capabilities: { tools: {} },
    });
    const initialize = transport.last("initialize");
    expect(initialize.params).toEqual({
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {} } },
      clientInfo: options.clientInfo,
    });
    expect(transport.sent.map((message) => message.method)).toEqual([
      "server/discover",
      "initialize",
      "notifications/initialized",
    ]);
    expect(transport.protocolVersion).toBe("2025-11-25");
  });

  it("sends plain requests without the envelope after a legacy handshake", async () => {
    const transport = new FakeTransport(legacyResponder());
    const session = new Session(transport, options);
    await session.connect();
    void session.request("tools/call", { name: "echo", arguments: { text: "hi" } });
    expect(transport.last("tools/call").params).toEqual({ name: "echo", arguments: { text: "hi" } });
  });

  it("refuses a legacy server that picks a protocol version this client does not speak", async () => {
    const session = new Session(new FakeTransport(legacyResponder("2099-01-01")), options);
    await expect(session.connect()).rejects.toMatchObject({ name: "ProtocolError", method: "initialize" });
  });

  it("fails the connection, without guessing an era, when the probe hits an auth wall", async () => {
    const transport = new FakeTransport();
    transport.sendError = Object.assign(new Error("unauthorized"), { status: 401 });
    const failure = await new Session(transport, options).connect().catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: "TransportError", status: 401, transient: false });
    expect(transport.sent.map((message) => message.method)).toEqual(["server/discover"]);
  });

  it("takes a stdio server that stays silent for the probe timeout as a legacy server", async () => {
    vi.useFakeTimers();
    const transport = new FakeStdioTransport((message, t) => {
      if (message.method === "initialize") legacyResponder()(message, t);
    });
    const connecting = new Session(transport, options).connect();
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(connecting).resolves.toMatchObject({ era: "legacy" });
  });

  it("takes a stdio server that was only slow to start as modern once it refuses the 2025 handshake for 2026-07-28", async () => {
    vi.useFakeTimers();
    let discovers = 0;
    const transport = new FakeStdioTransport((message, t) => {
      // The first probe goes unanswered (the server is still starting); by the time `initialize` comes, it is up.
      if (message.method === "server/discover" && discovers++ === 0) return;
      if (message.method === "initialize") {
        queueMicrotask(() =>
          t.fail(message.id, -32022, "Unsupported protocol version: 2025-11-25", {
            supported: ["2026-07-28"],
            requested: "2025-11-25",
          }),
        );
        return;
      }
      modernResponder(message, t);
    });
    const connecting = new Session(transport, options).connect();
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(connecting).resolves.toMatchObject({ era: "modern", protocolVersion: "2026-07-28" });
    expect(transport.sent.map((message) => message.method)).toEqual([
      "server/discover",
      "initialize",
      "server/discover",
    ]);
    expect(transport.sent[2]?.params?._meta).toHaveProperty(MetaKey.protocolVersion, "2026-07-28");
  });

  it("keeps a slow stdio server's refusal of the 2025 handshake when it does not list 2026-07-28", async () => {
    vi.useFakeTimers();
    const transport = new FakeStdioTransport((message, t) => {
      if (message.method === "initialize")
        queueMicrotask(() =>
          t.fail(message.id, -32022, "Unsupported protocol version", { supported: ["2099-01-01"] }),
        );
    });
    const failure = new Session(transport, options).connect().catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await failure).toMatchObject({ name: "RpcError", code: -32022 });
    expect(transport.sent.map((message) => message.method)).toEqual(["server/discover", "initialize"]);
  });

  it("fails an HTTP connection whose probe times out (silence there is an outage)", async () => {
    vi.useFakeTimers();
    const connecting = new Session(new FakeTransport(), { ...options, probeTimeoutMs: 500 }).connect();
    const failure = connecting.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(500);
    expect(await failure).toSatisfy(transportFailure("timeout"));
  });

  it("explains a stdio server that exits when probed", async () => {
    const transport = new FakeStdioTransport((message, t) => {
      if (message.method === "server/discover") queueMicrotask(() => t.onclose?.());
    });
    await expect(new Session(transport, options).connect()).rejects.toThrow(
      /exited when asked server\/discover/,
    );
  });

  it("sends server/discover once more when the server refuses the version but lists it as supported (-32022)", async () => {
    let refused = 0;
    const transport = new FakeTransport((message, t) => {
      if (message.method !== "server/discover") return;
      queueMicrotask(() => {
        if (refused++ === 0) {
          t.fail(message.id, -32022, "Unsupported protocol version", {
            supported: ["2026-07-28"],
            requested: "2026-07-28",
          });
        } else {
          modernResponder(message, t);
        }
      });
    });
    const info = await new Session(transport, options).connect();
    expect(info).toMatchObject({ era: "modern", protocolVersion: "2026-07-28" });
    const probes = transport.sent.filter((message) => message.method === "server/discover");
    expect(probes).toHaveLength(2);
    expect(probes[1]?.id).not.toBe(probes[0]?.id);
    for (const probe of probes)
      expect(probe.params?._meta).toHaveProperty(MetaKey.protocolVersion, "2026-07-28");
  });

  it("fails with the server's -32022 when the retried probe is refused again, after exactly two probes", async () => {
    const transport = new FakeTransport((message, t) => {
      queueMicrotask(() =>
        t.fail(message.id, -32022, "Unsupported protocol version", { supported: ["2026-07-28"] }),
      );
    });
    const failure = await new Session(transport, options).connect().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RpcError);
    expect(failure).toMatchObject({ code: -32022 });
    expect(transport.sent.map((message) => message.method)).toEqual(["server/discover", "server/discover"]);
  });

  it("negotiates once however often connect() is called", async () => {
    const transport = new FakeTransport(modernResponder);
    const session = new Session(transport, options);
    const [a, b] = await Promise.all([session.connect(), session.connect()]);
    expect(a).toBe(b);
    expect(transport.sent.filter((message) => message.method === "server/discover")).toHaveLength(1);
  });
});

describe("classifying the probe's answer", () => {
  const http = (error: unknown) => classifyProbe({ error }, "http");
  const statusError = (status: number) =>
    new TransportError(`HTTP ${status}`, { status, transient: status >= 500 });

  it("needs a valid discover result that offers 2026-07-28 to call a server modern", () => {
    expect(classifyProbe({ result: DISCOVER_RESULT }, "http")).toMatchObject({ era: "modern" });
    const other = { supportedVersions: ["2027-01-01"], capabilities: {} };
    expect(classifyProbe({ result: other }, "http")).toEqual({ era: "legacy" });
    expect(classifyProbe({ result: {} }, "http")).toEqual({ era: "legacy" });
  });

  it.each([
    ["method not found", new RpcError("server/discover", -32601, "Method not found")],
    [
      "a v1 server's 'not initialized'",
      new RpcError("server/discover", -32000, "Bad Request: Server not initialized"),
    ],
    ["a missing capability", new MissingCapabilityError("server/discover", -32021, "missing")],
    ["HTTP 404 without a JSON-RPC body", statusError(404)],
    ["HTTP 400 without a JSON-RPC body", statusError(400)],
  ])("reads %s as a legacy server", (_what, error) => {
    expect(http(error)).toEqual({ era: "legacy" });
  });

  it("reads -32022 listing only older revisions as legacy, and one listing newer revisions as an error", () => {
    const old = new RpcError("server/discover", -32022, "Unsupported", {
      supported: ["2025-11-25", "2025-06-18"],
    });
    expect(http(old)).toEqual({ era: "legacy" });
    const newer = new RpcError("server/discover", -32022, "Unsupported", { supported: ["2027-03-01"] });
    expect(http(newer)).toEqual({ error: newer });
    const mixed = new RpcError("server/discover", -32022, "Unsupported", {
      supported: ["2027-03-01", "2025-11-25"],
    });
    expect(http(mixed)).toEqual({ era: "legacy" });
  });

  it("reads -32022 listing 2026-07-28 as a reason to retry the probe, and the same answer to the retry as an error", () => {
    const refusal = new RpcError("server/discover", -32022, "Unsupported", {
      supported: ["2025-11-25", "2026-07-28"],
      requested: "2026-07-28",
    });
    expect(http(refusal)).toEqual({ retry: true });
    expect(classifyProbe({ error: refusal }, "http", true)).toEqual({ error: refusal });
  });

  it.each([401, 403, 429, 500, 503])("fails on HTTP %i, which says nothing about the era", (status) => {
    const error = statusError(status);
    expect(http(error)).toEqual({ error });
  });

  it("fails on network errors and unusable answers", () => {
    const network = new TransportError("fetch failed", { transient: true });
    const garbled = new ProtocolError("not JSON-RPC", "server/discover", undefined);
    expect(http(network)).toEqual({ error: network });
    expect(http(garbled)).toEqual({ error: garbled });
  });
});
