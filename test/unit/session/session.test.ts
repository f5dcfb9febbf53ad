import { afterEach, describe, expect, it, vi } from "vitest";
import { Session } from "../../../src/session/session.js";
import {
  MissingCapabilityError,
  ProtocolError,
  RpcError,
  TransportError,
} from "../../../src/protocol/errors.js";
import { FakeTransport, modernResponder } from "./fake-transport.js";
import { transportFailure } from "../../fixtures/errors.js";

const options = { clientInfo: { name: "agent", version: "1.0.0" }, capabilities: { sampling: {} } };

async function connected(transport = new FakeTransport(modernResponder), extra = {}) {
  const session = new Session(transport, { ...options, ...extra });
  await session.connect();
  return { session, transport };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("a session's requests", () => {
  it("use string ids that never repeat, and match answers that arrive out of order", async () => {
    const { session, transport } = await connected();
    const first = session.request("tasks/get", { taskId: "a" });
    const second = session.request("tasks/get", { taskId: "b" });
    const [idA, idB] = transport.sent.slice(-2).map((message) => message.id);
    expect(typeof idA).toBe("string");
    expect(idA).not.toBe(idB);
    transport.answer(idB, { which: "b" });
    transport.answer(idA, { which: "a" });
    await expect(first).resolves.toEqual({ which: "a" });
    await expect(second).resolves.toEqual({ which: "b" });
  });

  it("carry the envelope, with the tasks extension and the host's capabilities, under the caller's _meta", async () => {
    const { session, transport } = await connected();
    void session.request("tools/call", {
      name: "report",
      _meta: { "io.modelcontextprotocol/relatedTaskIds": ["t-0"] },
    });
    const meta = transport.last("tools/call").params?._meta as Record<string, unknown>;
    expect(meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    expect(meta["io.modelcontextprotocol/clientInfo"]).toEqual(options.clientInfo);
    expect(meta["io.modelcontextprotocol/clientCapabilities"]).toEqual({
      sampling: {},
      extensions: { "io.modelcontextprotocol/tasks": {} },
    });
    expect(meta["io.modelcontextprotocol/relatedTaskIds"]).toEqual(["t-0"]);
  });

  it("resolve with the server's own result object", async () => {
    const { session, transport } = await connected();
    const result = { resultType: "complete", content: [], extra: true };
    const pending = session.request("tools/call", { name: "x" });
    transport.answer(transport.last("tools/call").id, result);
    expect(await pending).toBe(result);
  });

  it("reject with an RpcError, or a MissingCapabilityError for -32021, when the server answers an error", async () => {
    const { session, transport } = await connected();
    const unknown = session.request("tasks/get", { taskId: "gone" });
    transport.fail(transport.last("tasks/get").id, -32602, "Unknown task");
    await expect(unknown).rejects.toMatchObject({
      name: "RpcError",
      code: -32602,
      rpcMessage: "Unknown task",
    });
    const missing = session.request("tools/call", { name: "x" });
    transport.fail(transport.last("tools/call").id, -32021, "Missing capability", {
      requiredCapabilities: { elicitation: {} },
    });
    await expect(missing).rejects.toBeInstanceOf(MissingCapabilityError);
  });

  it("reject with a ProtocolError when the answer has no result object", async () => {
    const { session, transport } = await connected();
    const pending = session.request("tasks/get", { taskId: "a" });
    transport.answer(transport.last("tasks/get").id, "done");
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).method).toBe("tasks/get");
  });

  it("time out with a transient TransportError of kind timeout, and ignore an answer that comes later", async () => {
    const { session, transport } = await connected(undefined, { requestTimeoutMs: 1_000 });
    vi.useFakeTimers();
    const pending = session.request("tasks/get", { taskId: "slow" }, { timeoutMs: 250 });
    let settled = false;
    const outcome = pending.catch((e: unknown) => e).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(249);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error).toSatisfy(transportFailure("timeout"));
    expect((error as TransportError).transient).toBe(true);
    transport.answer(transport.last("tasks/get").id, {});
    expect(vi.getTimerCount()).toBe(0);
  });

  it("time out each at its own deadline while those with one timeout share a single timer", async () => {
    const { session, transport } = await connected(undefined, { requestTimeoutMs: 1_000 });
    vi.useFakeTimers();
    const ended: Array<[string, number]> = [];
    const start = performance.now();
    const send = (taskId: string, options?: { timeoutMs: number }) =>
      void session.request("tasks/get", { taskId }, options).then(
        () => ended.push([`${taskId} answered`, performance.now() - start]),
        (error: unknown) =>
          ended.push([`${taskId} ${(error as { kind?: string }).kind}`, performance.now() - start]),
      );
    send("a");
    await vi.advanceTimersByTimeAsync(100);
    send("b");
    send("short", { timeoutMs: 300 });
    await vi.advanceTimersByTimeAsync(100);
    send("c");
    expect(vi.getTimerCount()).toBe(2); // one per timeout in use
    transport.answer(transport.last("tasks/get").id, {}); // "c"
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ended).toEqual([
      ["c answered", 200],
      ["short timeout", 400],
      ["a timeout", 1_000],
      ["b timeout", 1_100],
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("leave no timer behind once answered", async () => {
    const { session, transport } = await connected();
    vi.useFakeTimers();
    const pending = session.request("tasks/get", { taskId: "a" });
    expect(vi.getTimerCount()).toBe(1);
    transport.answer(transport.last("tasks/get").id, {});
    await pending;
    expect(vi.getTimerCount()).toBe(0);
  });

  it("are abandoned when the caller's signal fires, rejecting with its reason", async () => {
    const { session, transport } = await connected();
    const controller = new AbortController();
    const pending = session.request("tasks/get", { taskId: "a" }, { signal: controller.signal });
    controller.abort(new Error("user gave up"));
    await expect(pending).rejects.toThrow("user gave up");
    transport.answer(transport.last("tasks/get").id, {});
  });

  it("are never sent when the signal has already fired", async () => {
    const { session, transport } = await connected();
    const before = transport.sent.length;
    await expect(
      session.request("tasks/get", { taskId: "a" }, { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(transport.sent).toHaveLength(before);
  });

  it("hand the signal and a stream-end callback only to transports with a stream per request", async () => {
    const plain = await connected();
    void plain.session.request("tasks/get", { taskId: "a" });
    expect(plain.transport.sendOptions.at(-1)).toBeUndefined();

    const streaming = await connected(new FakeTransport(modernResponder, true));
    const controller = new AbortController();
    const pending = streaming.session.request("tasks/get", { taskId: "a" }, { signal: controller.signal });
    const sendOptions = streaming.transport.sendOptions.at(-1);
    expect(sendOptions?.requestSignal).toBeInstanceOf(AbortSignal);
    sendOptions?.onRequestStreamEnd?.();
    await expect(pending).rejects.toMatchObject({ name: "TransportError", transient: true });
  });

  it("give every request its own exchange signal, aborted when the caller gives up (never one shared signal)", async () => {
    // fetch keeps a listener on the signal it is given until the request is collected: one signal shared by
    // thousands of polls gathers thousands of listeners (Node's MaxListenersExceededWarning).
    const streaming = await connected(new FakeTransport(modernResponder, true));
    const controller = new AbortController();
    const first = streaming.session.request("tasks/get", { taskId: "a" }, { signal: controller.signal });
    const firstSignal = streaming.transport.sendOptions.at(-1)?.requestSignal;
    void streaming.session.request("tasks/get", { taskId: "b" });
    const secondSignal = streaming.transport.sendOptions.at(-1)?.requestSignal;
    expect(secondSignal).toBeInstanceOf(AbortSignal);
    expect(secondSignal).not.toBe(firstSignal);
    controller.abort(new Error("stop"));
    await expect(first).rejects.toThrow("stop");
    expect(firstSignal?.aborted).toBe(true);
    expect(secondSignal?.aborted).toBe(false);
  });

  it("reject with the typed error for what the transport's send threw", async () => {
    const { session, transport } = await connected();
    transport.sendError = new TypeError("fetch failed");
    const error = await session.request("tasks/get", { taskId: "a" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).transient).toBe(true);
  });
  it("reject at once, leaving no timer, when a transport's send throws instead of rejecting", async () => {
    const { session, transport } = await connected();
    vi.useFakeTimers();
    transport.send = () => {
      throw Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    };
    await expect(session.request("tasks/get", { taskId: "a" })).rejects.toMatchObject({
      name: "TransportError",
      transient: true,
    });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("a session's request observer (telemetry)", () => {
  function observing(session: Session, meta: Record<string, string> | undefined) {
    const seen: { id: string; method: string; owner: object | undefined; ended?: string }[] = [];
    session.observe({
      request: (id, method, _params, options) => {
        const entry: (typeof seen)[number] = { id, method, owner: options?.owner };
        seen.push(entry);
        return {
          meta,
          answered: (result) => void (entry.ended = `answered ${JSON.stringify(result)}`),
          failed: (error) => void (entry.ended = `failed ${(error as Error).name}`),
        };
      },
    });
    return seen;
  }

  it("puts its _meta entries under the caller's and the envelope's, which win on the same key", async () => {
    const { session, transport } = await connected();
    observing(session, {
      traceparent: "00-trace-span-01",
      ["io.modelcontextprotocol/protocolVersion"]: "1999-01-01",
      mine: "x",
    });
    void session.request("tools/call", { name: "report", _meta: { mine: "caller's" } });
    const meta = transport.last("tools/call").params?._meta as Record<string, unknown>;
    expect(meta.traceparent).toBe("00-trace-span-01");
    expect(meta.mine).toBe("caller's");
    expect(meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
  });

  it("hears each request's owner, its answer or its failure", async () => {
    const { session, transport } = await connected();
    const seen = observing(session, undefined);
    const owner = {};
    const answered = session.request("tools/call", { name: "a" }, { owner });
    transport.answer(transport.last("tools/call").id, { ok: 1 });
    await answered;
    const failing = session.request("tasks/get", { taskId: "t" });
    transport.fail(transport.last("tasks/get").id, -32602, "no such task");
    await expect(failing).rejects.toBeInstanceOf(RpcError);
    expect(seen).toEqual([
      { id: expect.any(String), method: "tools/call", owner, ended: 'answered {"ok":1}' },
      { id: expect.any(String), method: "tasks/get", owner: undefined, ended: "failed RpcError" },
    ]);
    expect(seen[0]?.id).toBe(transport.sent.find((message) => message.method === "tools/call")?.id);
  });

  it("sends the params untouched when it adds nothing, and nothing changes without one", async () => {
    const { session, transport } = await connected();
    void session.request("tasks/get", { taskId: "a" });
    const before = transport.last("tasks/get").params?._meta as Record<string, unknown>;
    observing(session, undefined);
    void session.request("tasks/get", { taskId: "b" });
    const after = transport.last("tasks/get").params?._meta as Record<string, unknown>;
    expect(Object.keys(after)).toEqual(Object.keys(before));
    expect(Object.keys(after)).not.toContain("traceparent");
  });

  it("delivers the answer and the failure to the caller even when the watch throws", async () => {
    const { session, transport } = await connected();
    const broken = () => {
      throw new Error("broken meter");
    };
    session.observe({ request: () => ({ meta: undefined, answered: broken, failed: broken }) });
    const answered = session.request("tools/call", { name: "a" });
    transport.answer(transport.last("tools/call").id, { ok: 1 });
    await expect(answered).resolves.toEqual({ ok: 1 });
    const failing = session.request("tasks/get", { taskId: "t" });
    transport.fail(transport.last("tasks/get").id, -32602, "no such task");
    await expect(failing).rejects.toBeInstanceOf(RpcError);
  });
});

describe("a session's notifications and server requests", () => {
  it("fan every notification out to every listener until it unsubscribes", async () => {
    const { session, transport } = await connected();
    const first = vi.fn();
    const second = vi.fn();
    const stop = session.onNotification(first);
    session.onNotification(second);
    transport.deliver({
      jsonrpc: "2.0",
      method: "notifications/tasks",
      params: { taskId: "a", status: "working" },
    });
    stop();
    transport.deliver({ jsonrpc: "2.0", method: "notifications/tasks" });
    expect(first.mock.calls).toEqual([["notifications/tasks", { taskId: "a", status: "working" }]]);
    expect(second.mock.calls[1]).toEqual(["notifications/tasks", {}]);
  });

  it("keep delivering when one listener throws, and report what it threw", async () => {
    const { session, transport } = await connected();
    const errors: Error[] = [];
    session.onError((error) => errors.push(error));
    const after = vi.fn();
    session.onNotification(() => {
      throw new Error("listener bug");
    });
    session.onNotification(after);
    transport.deliver({ jsonrpc: "2.0", method: "notifications/tasks", params: {} });
    expect(after).toHaveBeenCalledOnce();
    expect(errors.map((e) => e.message)).toEqual(["listener bug"]);
  });

  it("answer a server's request with -32601, and a ping with an empty result", async () => {
    const { transport } = await connected();
    transport.deliver({ jsonrpc: "2.0", id: 9, method: "elicitation/create", params: {} });
    transport.deliver({ jsonrpc: "2.0", id: "p", method: "ping" });
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Without a handler (a session nobody serves requests through), input requests are not served either.
    expect(transport.sent.slice(-2)).toEqual(
      expect.arrayContaining([
        { jsonrpc: "2.0", id: 9, error: { code: -32601, message: "Method not found: elicitation/create" } },
        { jsonrpc: "2.0", id: "p", result: {} },
      ]),
    );
  });

  it("report frames that belong to no request, without failing anything", async () => {
    const { session, transport } = await connected();
    const errors: Error[] = [];
    session.onError((error) => errors.push(error));
    const pending = session.request("tasks/get", { taskId: "a" });
    transport.deliver("garbage");
    transport.fail(null, -32700, "Parse error");
    transport.onerror?.(new Error("SSE stream disconnected"));
    transport.answer(transport.last("tasks/get").id, { ok: true });
    await expect(pending).resolves.toEqual({ ok: true });
    // A transport error heard while a send was in flight waits one macrotask (it might be that send's failure).
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(errors.map((e) => e.name)).toEqual(["ProtocolError", "RpcError", "Error"]);
    expect(errors[1]).toBeInstanceOf(RpcError);
  });
});

describe("closing a session", () => {
  it("rejects every waiting request with a transient error when the connection drops", async () => {
    const { session, transport } = await connected();
    const ended = vi.fn();
    session.onClose(ended);
    const pending = [
      session.request("tasks/get", { taskId: "a" }),
      session.request("tasks/get", { taskId: "b" }),
    ];
    transport.onclose?.();
    for (const request of pending) {
      await expect(request).rejects.toMatchObject({ name: "TransportError", transient: true });
    }
    expect(ended).toHaveBeenCalledOnce();
    expect(session.isClosed).toBe(true);
  });

  it("by close() rejects waiting requests for good, closes the transport, and refuses new requests", async () => {
    const { session, transport } = await connected();
    const pending = session.request("tasks/get", { taskId: "a" });
    await session.close();
    await expect(pending).rejects.toMatchObject({ name: "TransportError", transient: false });
    expect(transport.closed).toBe(true);
    await expect(session.request("tasks/get", { taskId: "b" })).rejects.toMatchObject({ transient: false });
    await expect(session.notify("notifications/x", {})).rejects.toBeInstanceOf(TransportError);
  });

  it("keeps calling error and close handlers the host installed on the transport before", async () => {
    const transport = new FakeTransport(modernResponder);
    const hostError = vi.fn();
    const hostClose = vi.fn();
    transport.onerror = hostError;
    transport.onclose = hostClose;
    await connected(transport);
    transport.onerror?.(new Error("x"));
    transport.onclose?.();
    expect(hostError).toHaveBeenCalledOnce();
    expect(hostClose).toHaveBeenCalledOnce();
  });
});
