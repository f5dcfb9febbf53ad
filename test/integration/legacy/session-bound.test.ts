/**
 * A task outlives its process on 2025-11-25 servers that keep tasks per HTTP session: the official v1 SDK's
 * tasks server (`McpServer` + `registerToolTask` over one `InMemoryTaskStore`, which binds a task to the session
 * that created it) and server-everything (one store per session). A second client follows the ref in the
 * task's own session; `close()` ends a client's session with DELETE unless a task that may still be followed
 * lives in it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type CallToolResult, type TaskClientEvents, type TaskRef } from "../../../src/index.js";
import { memoryStore } from "../../../src/store/index.js";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "../../../src/testing/index.js";
import { FAST, closesAfterEach, when, yes } from "../lifecycle/helpers.js";
import { startV1TasksHttp, type RunningV1Server } from "./fixtures/v1-tasks-server.js";
import { startEverythingHttp, type EverythingHttp } from "../input/fixtures/everything.js";

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const track = closesAfterEach();

let sdk: RunningV1Server;
let everything: EverythingHttp;
let reference: HttpTaskServer;
beforeAll(async () => {
  [sdk, everything, reference] = await Promise.all([
    startV1TasksHttp(),
    startEverythingHttp(),
    startTaskServer({ era: "2025-11-25", tools: fixtureTools({ timeScale: 0.01 }) }),
  ]);
});
afterAll(async () => {
  await Promise.all([sdk.close(), everything.close(), reference.close()]);
});

/** Starts `tool` on a first client, detaches, closes that client, and returns the task's ref. */
async function detachedRef(url: string, tool: string, args: Record<string, unknown>): Promise<TaskRef> {
  const first = await TaskClient.connect(url, FAST);
  try {
    const handle = first.callTool(tool, args as never);
    const ref = await handle.ref;
    if (ref === undefined) throw new Error(`${tool} did not become a task`);
    handle.detach();
    return ref;
  } finally {
    await first.close();
  }
}

/** The sessions the SDK server saw requests in, in order of first appearance. */
const sessionsOf = (server: RunningV1Server, from: number) => [
  ...new Set(server.http.slice(from).map((request) => request.session)),
];

describe("the official SDK's tasks server (one InMemoryTaskStore, tasks bound to sessions)", () => {
  it("records the session a task was created in on its ref", async () => {
    const client = track(await TaskClient.connect(sdk.url, FAST));
    const ref = await client.callTool("report", { ms: 10 }).ref;
    const call = sdk.http.findLast((request) => request.rpc === "tools/call");
    expect(call?.session).toEqual(expect.any(String));
    expect(ref?.session).toEqual({ id: call?.session, protocolVersion: "2025-11-25" });
  });

  it("a second client follows a task the first one detached, in the task's session, to its result", async () => {
    const ref = await detachedRef(sdk.url, "report", { ms: 300, text: "later" });
    const from = sdk.http.length;
    const second = track(await TaskClient.connect(sdk.url, FAST));
    expect(textOf(await second.task(ref))).toBe("report: later");
    const others = sessionsOf(sdk, from).filter((id) => id !== undefined && id !== ref.session?.id);
    expect(others).toHaveLength(1); // the second client's own
    const ownSession = others[0];
    const inTaskSession = sdk.http.slice(from).filter((request) => request.session === ref.session?.id);
    // Its requests went in the task's session with that session's protocol version; nothing re-initialized
    // it, and no GET stream competed with the first client's.
    expect(inTaskSession.map((request) => request.rpc)).toEqual(
      expect.arrayContaining(["tasks/get", "tasks/result"]),
    );
    expect(inTaskSession.every((request) => request.method === "POST")).toBe(true);
    expect(inTaskSession.every((request) => request.protocolVersion === "2025-11-25")).toBe(true);
    expect(inTaskSession.some((request) => request.rpc?.startsWith("notifications/") === true)).toBe(false);
    expect(inTaskSession.some((request) => request.rpc === "initialize")).toBe(false);
    // And none of the task's requests went in the second client's own session.
    const inOwn = sdk.http.slice(from).filter((request) => request.session === ownSession);
    expect(inOwn.some((request) => request.rpc?.startsWith("tasks/") === true)).toBe(false);
  });

  it("answers the task's input requests in the task's session (they arrive on its tasks/result stream)", async () => {
    const ref = await detachedRef(sdk.url, "ask", {});
    const asked: string[] = [];
    const second = track(
      await TaskClient.connect(sdk.url, {
        ...FAST,
        inputHandlers: {
          elicitation: (params) => {
            asked.push(params.message);
            return Promise.resolve(yes);
          },
        },
      }),
    );
    expect(textOf(await second.task(ref))).toBe('answer: {"ok":true}');
    expect(asked).toEqual(["Proceed?"]);
    const answers = sdk.http.filter((request) => request.method === "POST" && request.rpc === undefined);
    expect(answers.at(-1)?.session).toBe(ref.session?.id);
  });

  it("resume() follows the stored tasks of a client that closed, each in its own session", async () => {
    const store = memoryStore();
    const firsts = await Promise.all(
      ["one", "two"].map(async (text) => {
        const first = await TaskClient.connect(sdk.url, { ...FAST, store });
        const handle = first.callTool("report", { ms: 300, text });
        await handle.ref;
        return first;
      }),
    );
    // Closing ends the handles; the refs stay in the store, and so do the sessions.
    await Promise.all(firsts.map((first) => first.close()));
    const stored = await store.list();
    expect(new Set(stored.map((ref) => ref.session?.id)).size).toBe(2);
    const second = track(await TaskClient.connect(sdk.url, { ...FAST, store }));
    const results = await Promise.all((await second.resume()).map(async (handle) => textOf(await handle)));
    expect(results.sort()).toEqual(["report: one", "report: two"]);
    expect(store.size).toBe(0);
  });

  it("adoption takes over the stored task of a client that closed, in the task's session", async () => {
    const store = memoryStore();
    const first = await TaskClient.connect(sdk.url, { ...FAST, store });
    await first.callTool("report", { ms: 300, text: "adopted" }).ref;
    await first.close();
    const worker = track(await TaskClient.connect(sdk.url, { ...FAST, store, adopt: { everyMs: 20 } }));
    const [, outcome] = await when<Parameters<TaskClientEvents["settled"]>>((listener) =>
      worker.on("settled", listener),
    );
    expect(outcome.kind === "completed" && textOf(outcome.result)).toBe("report: adopted");
  });

  it("cancels a task from a second client with client.cancel(ref)", async () => {
    const ref = await detachedRef(sdk.url, "forever", {});
    const second = track(await TaskClient.connect(sdk.url, FAST));
    await expect(second.cancel(ref)).resolves.toMatchObject({ status: "cancelled" });
    expect((await second.task(ref).outcome()).kind).toBe("cancelled");
  });

  it("still reads refs without a session (an older version's) and follows them in its own session", async () => {
    const client = track(await TaskClient.connect(sdk.url, FAST));
    const ref = await client.callTool("report", { ms: 200, text: "own" }).ref;
    const { session: _dropped, ...older } = ref as TaskRef;
    // The same client's session is where the task lives, so the older ref works there.
    expect(textOf(await client.task(older))).toBe("report: own");
  });

  it("close() ends the session with DELETE once every task made in it is over", async () => {
    const client = await TaskClient.connect(sdk.url, FAST);
    const handle = client.callTool("report", { ms: 10 });
    await handle;
    const session = (await handle.ref)?.session?.id;
    await client.close();
    const deleted = sdk.http.filter((request) => request.method === "DELETE" && request.session === session);
    expect(deleted).toEqual([expect.objectContaining({ status: 200 })]);
  });

  it("close() keeps the session of a detached task, and of one still open at close", async () => {
    const client = await TaskClient.connect(sdk.url, FAST);
    const detached = client.callTool("forever", {});
    const session = (await detached.ref)?.session?.id;
    detached.detach();
    await client.callTool("report", { ms: 10 });
    await client.close();
    const open = await TaskClient.connect(sdk.url, FAST);
    const running = open.callTool("forever", {});
    const openSession = (await running.ref)?.session?.id;
    await open.close();
    const deletes = sdk.http.filter((request) => request.method === "DELETE");
    expect(deletes.map((request) => request.session)).not.toContain(session);
    expect(deletes.map((request) => request.session)).not.toContain(openSession);
  });

  it("close() keeps the session of a task whose cancel the server did not confirm", async () => {
    // Two clients in one test: one whose cancel is confirmed (its session ends), one whose is not.
    const confirmed = await TaskClient.connect(sdk.url, FAST);
    const cancelled = confirmed.callTool("forever", {});
    const confirmedSession = (await cancelled.ref)?.session?.id;
    expect((await cancelled.cancel()).outcome).toMatchObject({ error: { confirmed: true } });
    await confirmed.close();
    const unconfirmed = await TaskClient.connect(sdk.url, { ...FAST, cancelGraceMs: 0 });
    const handle = unconfirmed.callTool("report", { ms: 10_000 });
    const session = (await handle.ref)?.session?.id;
    // The v1 server acknowledges, but the grace period is over before any poll could confirm it.
    const { outcome } = await handle.cancel();
    expect(outcome.kind === "cancelled" && outcome.error.confirmed).toBe(false);
    await unconfirmed.close();
    const deletes = sdk.http.filter((request) => request.method === "DELETE").map((r) => r.session);
    expect(deletes).toContain(confirmedSession);
    expect(deletes).not.toContain(session);
  });

  it("close() keeps the session while the store holds a task's ref", async () => {
    const store = memoryStore();
    const client = await TaskClient.connect(sdk.url, { ...FAST, store });
    const session = (await client.callTool("forever", {}).ref)?.session?.id;
    await client.close();
    expect(store.size).toBe(1);
    const deletes = sdk.http.filter((request) => request.method === "DELETE").map((r) => r.session);
    expect(deletes).not.toContain(session);
  });

  it("close() accepts a server that does not let clients end sessions (405), and says nothing", async () => {
    const refusing = track(await startV1TasksHttp({ refuseDelete: true }));
    const warnings: unknown[] = [];
    const client = await TaskClient.connect(refusing.url, {
      ...FAST,
      logger: { warn: (...args: unknown[]) => warnings.push(args) },
    });
    await client.callTool("report", { ms: 10 });
    await expect(client.close()).resolves.toBeUndefined();
    expect(refusing.http.filter((request) => request.method === "DELETE")).toEqual([
      expect.objectContaining({ status: 405 }),
    ]);
    expect(warnings).toEqual([]);
  });

  it("uses one session per task session: two refs of two sessions never share a request's session", async () => {
    const [a, b] = await Promise.all([
      detachedRef(sdk.url, "report", { ms: 200, text: "a" }),
      detachedRef(sdk.url, "report", { ms: 200, text: "b" }),
    ]);
    const from = sdk.http.length;
    const second = track(await TaskClient.connect(sdk.url, FAST));
    const [ra, rb] = await Promise.all([second.task(a), second.task(b)]);
    expect([textOf(ra), textOf(rb)]).toEqual(["report: a", "report: b"]);
    expect(sessionsOf(sdk, from)).toEqual(expect.arrayContaining([a.session?.id, b.session?.id]));
  });
});

describe("server-everything (one task store per session)", () => {
  it("a second client follows simulate-research-query, started by the first, to its report", async () => {
    const ref = await detachedRef(everything.url, "simulate-research-query", {
      topic: "tides",
      ambiguous: false,
    });
    const second = track(await TaskClient.connect(everything.url, FAST));
    expect(textOf(await second.task(ref))).toContain("# Research Report: tides");
  }, 30_000);
});

describe("a task session the server has ended", () => {
  it("is left for the client's own session after its 404, once", async () => {
    const store = memoryStore();
    const warnings: string[] = [];
    const first = await TaskClient.connect(reference.url, { ...FAST, store });
    const handle = first.callTool("slow_compute", { seconds: 60, label: "moved" });
    const ref = (await handle.ref) as TaskRef;
    handle.detach();
    await first.close();
    // The server ends the first session (as it may at any time); the reference server keeps tasks globally.
    const ended = await fetch(reference.url, {
      method: "DELETE",
      headers: { "mcp-session-id": ref.session?.id ?? "", "mcp-protocol-version": "2025-11-25" },
    });
    expect(ended.status).toBe(200);
    const before = reference.requests.size;
    const second = track(
      await TaskClient.connect(reference.url, {
        ...FAST,
        store,
        logger: { warn: (message: string) => warnings.push(message) },
      }),
    );
    const [resumed] = await second.resume();
    expect(textOf(await (resumed as NonNullable<typeof resumed>))).toBe('Computed "moved" in 60s');
    const inEnded = reference.requests
      .all()
      .slice(before)
      .filter((request) => request.headers["mcp-session-id"] === ref.session?.id);
    expect(inEnded.map((request) => request.status)).toEqual([404]);
    expect(warnings.filter((message) => message.includes("HTTP 404"))).toHaveLength(1);
    expect(JSON.stringify(warnings)).not.toContain(ref.session?.id);
  });
});
