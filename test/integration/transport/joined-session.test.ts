/**
 * A session the client joins to follow a 2025-11-25 task (the task's own HTTP session, named by its ref) is built
 * from the same options as the client's own connection (src/client/connection.ts): its answers are held to the
 * client's `maxMessageBytes`, and under `auth: oauth()` its requests carry the task's `Mcp-Session-Id` (and the
 * bearer token) as the client's own would. The real client against the 2025-11-25 reference server, behind the
 * fault proxy for the oversized answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type CallToolResult, type TaskRef } from "mcp-tasks";
import { oauth } from "mcp-tasks/oauth";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { startFaultProxy } from "../lifecycle/fault-proxy.js";
import { FAST, closesAfterEach } from "../lifecycle/helpers.js";
import { MemoryProvider } from "../auth/memory-provider.js";
import { idOf } from "./fixtures/hostile.js";
import { transportFailure } from "../../fixtures/errors.js";

const LIMIT = 20_000;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const track = closesAfterEach();

let reference: HttpTaskServer;
let guarded: HttpTaskServer;
beforeAll(async () => {
  [reference, guarded] = await Promise.all([
    startTaskServer({ era: "2025-11-25", tools: fixtureTools({ timeScale: 0.01 }) }),
    startTaskServer({ era: "2025-11-25", tools: fixtureTools({ timeScale: 0.01 }), auth: { type: "oauth" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([reference.close(), guarded.close()]);
});

/** Starts `slow_compute` on a first client, detaches, closes that client (its session stays), returns the ref. */
async function detachedRef(url: string, options: Parameters<typeof TaskClient.connect>[1]): Promise<TaskRef> {
  const first = await TaskClient.connect(url, { ...FAST, ...options });
  try {
    const handle = first.callTool("slow_compute", { seconds: 30, label: "joined" });
    const ref = await handle.ref;
    if (ref?.session === undefined) throw new Error("slow_compute did not become a task in a session");
    handle.detach();
    return ref;
  } finally {
    await first.close();
  }
}

describe("a joined session's answers", () => {
  it("are held to the client's maxMessageBytes, as its own session's are", async () => {
    const proxy = track(await startFaultProxy(reference.url));
    const ref = await detachedRef(proxy.url, {});
    const inTaskSession: string[] = [];
    // One tasks/get answer of 200 kB: a working task with a long status message, valid in every other way.
    proxy.fault(
      "tasks/get",
      {
        respond: (res, request) => {
          inTaskSession.push(String(request.headers["mcp-session-id"]));
          const task = {
            taskId: ref.taskId,
            status: "working",
            statusMessage: "y".repeat(200_000),
            createdAt: "2025-11-25T10:00:00Z",
            lastUpdatedAt: "2025-11-25T10:00:00Z",
            ttl: null,
          };
          res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ jsonrpc: "2.0", id: idOf(request), result: task }));
        },
      },
      1,
    );
    const second = track(await TaskClient.connect(proxy.url, { ...FAST, maxMessageBytes: LIMIT }));
    const failure = await second.task(ref).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(inTaskSession).toEqual([ref.session?.id]);
    expect(failure).toSatisfy(transportFailure("too_large"));
    expect(failure).toMatchObject({ limitBytes: LIMIT });
  });
});

describe("a joined session under auth: oauth()", () => {
  it("sends the task's requests with its Mcp-Session-Id and the bearer token, and follows it to its result", async () => {
    const provider = new MemoryProvider();
    const authorized = oauth(provider, { authorizationResponse: (url) => guarded.auth!.approve(url) });
    const ref = await detachedRef(guarded.url, { auth: authorized });
    const before = guarded.requests.size;
    const second = track(await TaskClient.connect(guarded.url, { ...FAST, auth: authorized }));
    expect(textOf(await second.task(ref))).toBe('Computed "joined" in 30s');
    const polls = guarded.requests
      .all()
      .slice(before)
      .filter((request) => request.method === "tasks/get" || request.method === "tasks/result");
    expect(polls.length).toBeGreaterThan(0);
    for (const poll of polls) {
      expect(poll.headers["mcp-session-id"]).toBe(ref.session?.id);
      expect(poll.headers["authorization"]).toMatch(/^Bearer /);
    }
  });
});
