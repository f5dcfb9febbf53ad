/**
 * The connection a client keeps in another HTTP session (a task's own): opened by the first request, closed once
 * no handle follows a task in it and no request is in flight, opened again by a later request; a 404 moves the
 * session's tasks to the client's own session, once.
 */
import { describe, expect, it } from "vitest";
import { JoinedHttpSessions, SessionBoundRequests } from "../../../src/client/joined-sessions.js";
import { Session } from "../../../src/session/session.js";
import { TaskRequests } from "../../../src/eras/task-requests.js";
import { LegacyTaskRequests } from "../../../src/eras/legacy/requests.js";
import type { ReplyChannel } from "../../../src/session/types.js";
import { RpcError } from "../../../src/protocol/errors.js";
import { FakeTransport } from "../session/fake-transport.js";

const retry = { retries: 0, factor: 2, minTimeoutMs: 1, maxTimeoutMs: 1, randomize: false };
const support = { any: true, toolCalls: true, list: false, cancel: true };
const task = (taskId: string) => ({
  taskId,
  status: "working",
  createdAt: "2026-01-01T00:00:00Z",
  lastUpdatedAt: "2026-01-01T00:00:00Z",
  ttl: null,
});

/** Joined sessions over fake transports; `ended` makes the next request of a session meet a 404. */
function joinedSessions() {
  const transports: FakeTransport[] = [];
  const warnings: unknown[] = [];
  const endedIds = new Set<string>();
  const sessions = new JoinedHttpSessions({
    transport: (session, ended) => {
      const transport = new FakeTransport((message, self) => {
        if (message.id === undefined) return;
        if (endedIds.has(session.id)) {
          ended();
          self.fail(message.id, -32001, "Session not found");
          return;
        }
        const taskId = String(message.params?.["taskId"]);
        if (taskId === "unknown") self.fail(message.id, -32602, "Task not found");
        else self.answer(message.id, task(taskId));
      });
      transports.push(transport);
      return Promise.resolve(transport);
    },
    session: (transport) =>
      new Session(transport, { clientInfo: { name: "t", version: "1" }, capabilities: {} }),
    server: (session) => ({ era: "legacy", protocolVersion: session.protocolVersion, supportsTasks: true }),
    requests: (channel: ReplyChannel) => new LegacyTaskRequests(channel, retry, () => undefined, support),
    wire: () => () => undefined,
    log: {
      debug: () => undefined,
      info: () => undefined,
      warn: (...args) => warnings.push(args),
      error: () => undefined,
    },
  });
  return { sessions, transports, warnings, endedIds };
}

const macrotask = () => new Promise((resolve) => setImmediate(resolve));

describe("a joined session", () => {
  it("opens its connection on the first request and closes it once nobody uses it", async () => {
    const { sessions, transports } = joinedSessions();
    const joined = sessions.get({ id: "s-a", protocolVersion: "2025-11-25" });
    expect(transports).toHaveLength(0); // joining sends nothing by itself
    const release = joined.hold();
    await joined.requests.get("t1");
    await joined.requests.get("t1");
    expect(transports).toHaveLength(1);
    expect(transports[0]?.sent.map((message) => message.method)).toEqual(["tasks/get", "tasks/get"]);
    expect(transports[0]?.protocolVersion).toBe("2025-11-25");
    release();
    await macrotask();
    expect(transports[0]?.closed).toBe(true);
    // A later request (a describe() after the handle ended) opens it again.
    await joined.requests.get("t1");
    expect(transports).toHaveLength(2);
    await macrotask();
    expect(transports[1]?.closed).toBe(true);
  });

  it("is one connection per session: two sessions never share one", async () => {
    const { sessions, transports } = joinedSessions();
    const a = sessions.get({ id: "s-a", protocolVersion: "2025-11-25" });
    const b = sessions.get({ id: "s-b", protocolVersion: "2025-11-25" });
    expect(sessions.get({ id: "s-a", protocolVersion: "2025-11-25" })).toBe(a);
    const holds = [a.hold(), b.hold()];
    await Promise.all([a.requests.get("ta"), b.requests.get("tb")]);
    expect(transports).toHaveLength(2);
    expect(transports.map((t) => t.sent.map((message) => message.params?.["taskId"]))).toEqual([
      ["ta"],
      ["tb"],
    ]);
    for (const release of holds) release();
    await sessions.close();
  });

  it("after a 404, sends the request again in the client's own session, and every later one there", async () => {
    const { sessions, transports, warnings, endedIds } = joinedSessions();
    const joined = sessions.get({ id: "s-gone", protocolVersion: "2025-11-25" });
    const own = new FakeTransport((message, self) => {
      if (message.id !== undefined) self.answer(message.id, task(String(message.params?.["taskId"])));
    });
    const ownHttpSession = new Session(own, { clientInfo: { name: "t", version: "1" }, capabilities: {} });
    ownHttpSession.useNegotiated({ era: "legacy", protocolVersion: "2025-11-25", supportsTasks: true });
    const requests = new SessionBoundRequests(
      joined,
      new LegacyTaskRequests(ownHttpSession, retry, () => undefined, support),
      retry,
    );
    endedIds.add("s-gone");
    await expect(requests.get("t1")).resolves.toMatchObject({ taskId: "t1", status: "working" });
    await requests.get("t1");
    expect(transports[0]?.sent).toHaveLength(1); // the one that met the 404
    expect(own.sent.map((message) => message.method)).toEqual(["tasks/get", "tasks/get"]);
    expect(joined.ended).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings)).not.toContain("s-gone");
  });

  it("passes on a failure that is not the session ending, without trying the client's own session", async () => {
    const { sessions } = joinedSessions();
    const joined = sessions.get({ id: "s-a", protocolVersion: "2025-11-25" });
    const own = new (class extends TaskRequests {
      asked = 0;
      override get(): never {
        this.asked++;
        throw new Error("the own session must not be asked");
      }
    })(joined, retry);
    const requests = new SessionBoundRequests(joined, own, retry);
    await expect(requests.get("unknown")).rejects.toBeInstanceOf(RpcError);
    expect(own.asked).toBe(0);
    expect(joined.ended).toBe(false);
    await sessions.close();
  });
});
