/**
 * One store for every server of a host, and `host.resume()`: a host restarted over the same store (a file store,
 * and Redis on a real redis-server) picks up every server's tasks, each on the server it was made on, identified
 * by its config name and its URL (two names on one URL stay apart, and the order of the config does not matter).
 * A ref whose server left the config is kept in the store and reported, never followed elsewhere.
 * A 2025-11-25 server's task bound to its HTTP session is followed in that session, as joined sessions are.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { TaskStore } from "mcp-tasks/store";
import { TaskHost } from "mcp-tasks/host";
import { fileStore } from "mcp-tasks/store";
import { redisStore } from "mcp-tasks/store/redis";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { TIME_SCALE, fastClient, textOf } from "../client/fixture-calls.js";
import { startRedis, type RedisServer } from "../store/redis-server.js";

let alpha: HttpTaskServer;
let beta: HttpTaskServer;
let gamma: HttpTaskServer;
let redis: RedisServer;

beforeAll(async () => {
  [alpha, beta, gamma, redis] = await Promise.all([
    startTaskServer({ tools: fixtureTools({ timeScale: TIME_SCALE }) }),
    startTaskServer({ tools: fixtureTools({ timeScale: TIME_SCALE }) }),
    startTaskServer({ tools: fixtureTools({ timeScale: TIME_SCALE }) }),
    startRedis(),
  ]);
});
afterAll(async () => {
  await Promise.all([alpha?.close(), beta?.close(), gamma?.close(), redis?.stop()]);
});

/** Restarts a host over the store `makeStore` gives (a new store object each time, as after a restart). */
function resumesEveryServer(makeStore: () => TaskStore): void {
  it("resumes each server's tasks on the server they were made on, and keeps a departed server's", async () => {
    // `twin` is a second name for alpha's URL: its tasks are its own.
    const first = await TaskHost.connect({
      servers: { alpha: alpha.url, beta: beta.url, gamma: gamma.url, twin: alpha.url },
      store: makeStore(),
      ...fastClient,
    });
    const started: Record<string, string> = {};
    for (const server of ["alpha", "beta", "gamma", "twin"]) {
      const handle = first.callTool(`${server}__slow_compute`, { seconds: 300, label: server });
      await handle.ref; // stored before the handle reports the task
      started[server] = handle.taskId as string;
    }
    await first.close();

    // Restarted: another order, beta gone from the config.
    const warnings: string[] = [];
    const second = await TaskHost.connect({
      servers: { twin: alpha.url, gamma: { url: gamma.url }, alpha: alpha.url },
      store: makeStore(),
      ...fastClient,
      logger: { warn: (message: string) => warnings.push(message) },
    });
    onTestFinished(() => second.close());
    const { tasks, kept } = await second.resume();

    const resumed = Object.fromEntries(tasks.map(({ server, handle }) => [server, handle.taskId]));
    expect(resumed).toEqual({ alpha: started["alpha"], gamma: started["gamma"], twin: started["twin"] });
    expect(kept.map(({ server, reason, ref }) => [server, reason, ref.taskId])).toEqual([
      ["beta", "not-configured", started["beta"]],
    ]);
    expect(warnings).toContain(
      'TaskHost: a stored task of server "beta" is kept, not resumed: not-configured',
    );
    const results = await Promise.all(tasks.map(({ handle }) => handle));
    expect(results.map(textOf).sort()).toEqual([
      'Computed "alpha" in 300s',
      'Computed "gamma" in 300s',
      'Computed "twin" in 300s',
    ]);
    // Beta's task was never asked about elsewhere, and its ref is still stored.
    const askedAbout = (server: HttpTaskServer, taskId: string) =>
      server.requests.forMethod("tasks/get").filter((entry) => JSON.stringify(entry.body).includes(taskId))
        .length;
    expect([alpha, gamma].map((server) => askedAbout(server, started["beta"] as string))).toEqual([0, 0]);
    expect((await second.resume()).kept.map(({ ref }) => ref.taskId)).toEqual([started["beta"]]);
  });
}

describe("a host restarted over a file store", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-host-store-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  resumesEveryServer(() => fileStore(dir));
});

describe("a host restarted over Redis", () => {
  resumesEveryServer(() => redisStore({ url: redis.url, prefix: "host-test" }));
});

describe("a host restarted over a store, with a 2025-11-25 server over HTTP", () => {
  it("follows the server's task in the session it was created in, without initializing it again", async () => {
    const legacy = await startTaskServer({
      era: "2025-11-25",
      tools: fixtureTools({ timeScale: TIME_SCALE }),
    });
    onTestFinished(() => legacy.close());
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-host-legacy-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));

    const first = await TaskHost.connect({
      servers: { old: legacy.url },
      store: fileStore(dir),
      ...fastClient,
    });
    const handle = first.callTool("old__slow_compute", { seconds: 100, label: "old" });
    const ref = await handle.ref;
    const sessionId = ref?.session?.id;
    expect(ref?.era).toBe("legacy");
    expect(sessionId).toEqual(expect.any(String));
    await first.close();

    const from = legacy.requests.size;
    const second = await TaskHost.connect({
      servers: { old: legacy.url },
      store: fileStore(dir),
      ...fastClient,
    });
    onTestFinished(() => second.close());
    const { tasks, kept } = await second.resume();
    expect(kept).toEqual([]);
    expect(tasks.map((task) => [task.server, task.handle.taskId])).toEqual([["old", ref?.taskId]]);
    expect(textOf(await (tasks[0]?.handle as (typeof tasks)[number]["handle"]))).toBe(
      'Computed "old" in 100s',
    );

    const inTaskSession = legacy.requests
      .all()
      .slice(from)
      .filter((request) => request.headers["mcp-session-id"] === sessionId);
    expect(inTaskSession.map((request) => request.method)).toEqual(expect.arrayContaining(["tasks/result"]));
    expect(inTaskSession.some((request) => request.method === "initialize")).toBe(false);
    expect(inTaskSession.every((request) => request.headers["mcp-protocol-version"] === "2025-11-25")).toBe(
      true,
    );
  });
});
