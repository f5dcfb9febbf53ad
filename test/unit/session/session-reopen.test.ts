/**
 * A session opened again after its transport closed by itself (a host's stdio server that exited, Decision 22):
 * what waited for an answer fails as on any drop and the session is not closed; on the new transport a 2025-era
 * server is initialized again before anything else, and requests go on under the same session; `close()` ends
 * it all. Without `reopenable`, a drop ends the session.
 */
import { describe, expect, it, vi } from "vitest";
import { Session } from "../../../src/session/session.js";
import { ProtocolError, TransportError } from "../../../src/protocol/errors.js";
import { FakeStdioTransport, FakeTransport, modernResponder } from "./fake-transport.js";

const options = { clientInfo: { name: "agent", version: "1.0.0" }, capabilities: {} };

type Responder = ConstructorParameters<typeof FakeTransport>[0];

/** A stdio transport that, once closed, refuses to send (as the SDK's does: its process is gone). */
class DyingTransport extends FakeStdioTransport {
  constructor(responder: Responder) {
    super(responder);
  }

  override async send(...args: Parameters<FakeTransport["send"]>): Promise<void> {
    if (this.closed) throw new Error("Not connected");
    return super.send(...args);
  }
}

/** Answers like a 2025-era server: -32601 for server/discover, then `initialize` with `protocolVersion`. */
function legacyResponder(protocolVersion: string): Responder {
  return (message, transport) => {
    queueMicrotask(() => {
      if (message.method === "server/discover") transport.fail(message.id, -32601, "Method not found");
      if (message.method === "initialize") {
        transport.answer(message.id, {
          protocolVersion,
          capabilities: { tasks: { requests: { tools: { call: {} } } } },
          serverInfo: { name: "old", version: "0.9.0" },
        });
      }
    });
  };
}

/** Also answers `tasks/get` with a working task. */
function withTasks(responder: Responder): Responder {
  return (message, transport) => {
    responder?.(message, transport);
    if (message.method === "tasks/get") {
      const taskId = message.params?.["taskId"];
      queueMicrotask(() => transport.answer(message.id, { taskId, status: "working" }));
    }
  };
}

/** A connected session that may be reopened, and how many drops it reported. */
async function reopenable(first: FakeTransport): Promise<{ session: Session; drops: { count: number } }> {
  const session = new Session(first, options);
  await session.connect();
  const drops = { count: 0 };
  session.reopenable(() => void drops.count++);
  return { session, drops };
}

const methods = (transport: FakeTransport) => transport.sent.map((message) => message.method);

describe("a session whose transport closes by itself", () => {
  it("without reopenable, ends: every request fails and it is closed", async () => {
    const transport = new DyingTransport(modernResponder);
    const session = new Session(transport, options);
    await session.connect();
    const closed = vi.fn();
    session.onClose(closed);
    const waiting = session.request("tasks/get", { taskId: "t1" });
    await transport.close();
    await expect(waiting).rejects.toMatchObject({ name: "TransportError", transient: true });
    expect(session.isClosed).toBe(true);
    expect(closed).toHaveBeenCalledOnce();
  });

  it("fails what waited for an answer, stays open, and goes on over the transport `reopen` takes", async () => {
    const first = new DyingTransport(modernResponder);
    const { session, drops } = await reopenable(first);
    const closed = vi.fn();
    session.onClose(closed);
    const inFlight = session.request("tasks/get", { taskId: "t1" });

    await first.close();
    await expect(inFlight).rejects.toMatchObject({ name: "TransportError", transient: true });
    expect(drops.count).toBe(1);
    expect(session.isClosed).toBe(false);
    expect(closed).not.toHaveBeenCalled();
    // Until it is opened again, a request fails as on a closed transport: a transient fault, retried by its owner.
    await expect(session.request("tasks/get", { taskId: "t2" })).rejects.toMatchObject({
      name: "TransportError",
      transient: true,
    });

    const second = new DyingTransport(withTasks(modernResponder));
    await session.reopen(second);
    // 2026-07-28 has no handshake: the next request goes out at once, with its envelope.
    await expect(session.request("tasks/get", { taskId: "t2" })).resolves.toEqual({
      taskId: "t2",
      status: "working",
    });
    expect(methods(second)).toEqual(["tasks/get"]);
    expect(second.last("tasks/get").params?._meta).toMatchObject({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    });
    expect(second.protocolVersion).toBe("2026-07-28");
    expect(drops.count).toBe(1);
  });

  it("initializes a 2025-era server again first; a server that cannot be spoken to fails the attempt", async () => {
    const first = new DyingTransport(legacyResponder("2025-11-25"));
    const { session, drops } = await reopenable(first);
    await first.close();

    const other = new DyingTransport(legacyResponder("1999-01-01"));
    const refused = session.reopen(other);
    await expect(refused).rejects.toBeInstanceOf(ProtocolError);
    await expect(refused).rejects.toThrow('"1999-01-01", which this client does not speak');
    expect(other.closed).toBe(true);
    // The attempt's transport closing is a drop like the first.
    expect(drops.count).toBe(2);

    const same = new DyingTransport(withTasks(legacyResponder("2025-11-25")));
    await session.reopen(same);
    await expect(session.request("tasks/get", { taskId: "t1" })).resolves.toMatchObject({ taskId: "t1" });
    expect(methods(same)).toEqual(["initialize", "notifications/initialized", "tasks/get"]);
    expect(same.protocolVersion).toBe("2025-11-25");
    // 2025-era requests carry no envelope.
    expect(same.last("tasks/get").params?._meta).toBeUndefined();
  });

  it("ends for good on close() while down, and is not opened again after it", async () => {
    const first = new DyingTransport(modernResponder);
    const { session } = await reopenable(first);
    const closed = vi.fn();
    session.onClose(closed);
    await first.close();
    await session.close();
    expect(session.isClosed).toBe(true);
    expect(closed).toHaveBeenCalledOnce();
    const second = new DyingTransport(modernResponder);
    await expect(session.reopen(second)).rejects.toBeInstanceOf(TransportError);
    // Never started: no process is left behind.
    expect(second.started).toBe(false);
  });
});
