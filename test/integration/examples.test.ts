/**
 * The examples in examples/ run as written against the reference server, in both protocol generations
 * (2026-07-28 and 2025-11-25), and log what their comments promise. The Temporal activity runs in
 * `@temporalio/testing`'s activity environment: its workflow and worker need a Temporal server, which is not on
 * npm (the dev server is a download of its own), so they are type-checked only. The Restate service
 * (examples/restate-service.ts) runs under the real restate-server in test/integration/engines/restate.test.ts.
 * The server runs the fixtures at a tenth of their real timing: a one-second computation takes 100 ms, and the
 * 60-second backfill the cancel example gives up on takes 6 s, far longer than its 500 ms signal.
 */
import { ActivityCancellationDetails } from "@temporalio/common";
import { MockActivityEnvironment } from "@temporalio/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TaskClient } from "mcp-tasks";
import type { ToolActivityDetails } from "mcp-tasks/temporal";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { awaitResult } from "../../examples/await-result.js";
import { cancelWithSignal } from "../../examples/cancel-with-signal.js";
import { manyServers, startHttpPair, stdioReferenceServer } from "../../examples/many-servers.js";
import { streamStatus } from "../../examples/stream-status.js";
import { createActivities } from "../../examples/temporal-activities.js";
import { traceTree, tracerProvider } from "../../examples/trace-tree.js";

describe.each(["2026-07-28", "2025-11-25"] as const)("against a %s server", (era) => {
  let server: HttpTaskServer;
  beforeAll(async () => {
    // The trace-tree example's provider: the server's spans join the trace it prints.
    server = await startTaskServer({ era, tools: fixtureTools({ timeScale: 0.1 }), tracerProvider });
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(() => {
    server.requests.clear();
    server.notifications.clear();
  });

  async function run(
    example: (url: string, log: (line: string) => void) => Promise<void>,
  ): Promise<string[]> {
    const lines: string[] = [];
    await example(server.url, (line) => lines.push(line));
    return lines;
  }

  it("await-result logs the tool's text once the task completes", async () => {
    expect(await run(awaitResult)).toEqual(['Computed "quarterly numbers" in 1s']);
    // It ran as a task, which the client followed: polled, or pushed to it (a fast task may end by push alone).
    const followed = server.requests.forMethod("tasks/get").length + server.notifications.size;
    expect(followed).toBeGreaterThan(0);
  });

  it("stream-status logs each status, then the verdict", async () => {
    expect(await run(streamStatus)).toEqual(["working", "completed", "done: ok"]);
  });

  it("trace-tree prints the task's span with its status events, the call, and the server's spans under them", async () => {
    const lines = await run(traceTree);
    expect(lines.slice(0, 5)).toEqual([
      "outcome: completed",
      "task slow_compute (internal)",
      "  · mcp_tasks.task.created",
      "  · mcp_tasks.task.status working",
      "  · mcp_tasks.task.status completed",
    ]);
    // The call is the task's child, and the server's span for it is the call's child.
    const call = lines.indexOf("  tools/call slow_compute (client)");
    expect(call).toBeGreaterThan(4);
    expect(lines[call + 1]).toBe("    tools/call slow_compute (server)");
    // 2026-07-28: the listen that pushes the task's changes; 2025-11-25: the tasks/result that fetches the result.
    const follow = era === "2026-07-28" ? "subscriptions/listen" : "tasks/result";
    expect(lines).toContain(`  ${follow} slow_compute (client)`);
  });

  it("cancel-with-signal gives up after 500 ms, and the server confirms the cancellation", async () => {
    expect(await run(cancelWithSignal)).toEqual(["cancelled (confirmed by server: true)"]);
    const cancels = server.requests.forMethod("tasks/cancel");
    expect(cancels).toHaveLength(1);
    expect(server.requests.forMethod("notifications/cancelled")).toEqual([]);
    const taskId = (cancels[0]?.body as { params: { taskId: string } }).params.taskId;
    expect(server.tasks.get(taskId)?.status).toBe("cancelled");
  });

  it("temporal-activities: a retry after the worker went away follows the task, and the tool ran once", async () => {
    const client = await TaskClient.connect(server.url);
    try {
      const { compute } = createActivities(client);
      const first = new MockActivityEnvironment({ heartbeatTimeoutMs: 3_000 });
      const beats: ToolActivityDetails[] = [];
      first.on("heartbeat", (details: ToolActivityDetails) => {
        beats.push(details);
        first.cancel("WORKER_SHUTDOWN", new ActivityCancellationDetails({ workerShutdown: true }));
      });
      await expect(first.run(compute, 20, "quarterly numbers")).rejects.toThrow("WORKER_SHUTDOWN");
      const retry = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: beats.at(-1) });
      expect(await retry.run(compute, 20, "quarterly numbers")).toBe('Computed "quarterly numbers" in 20s');
      expect(server.requests.forMethod("tools/call")).toHaveLength(1);
      expect(server.requests.forMethod("tasks/cancel")).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe("many-servers", () => {
  it("runs tasks on three servers (two HTTP, one stdio) through one host, and goes on through a restart", async () => {
    const pair = await startHttpPair(0.1);
    const lines: string[] = [];
    try {
      await manyServers(
        {
          research: pair.research.url,
          reports: pair.reports().url,
          local: stdioReferenceServer(0.1),
          restartReports: () => pair.restartReports(),
        },
        (line) => lines.push(line),
      );
    } finally {
      await pair.close();
    }
    expect(lines).toEqual([
      "research: ready, serves tasks",
      "reports: ready, serves tasks",
      "local: ready, serves tasks",
      "reports restarted; its task ended not_found",
      'research: Computed "research" in 2s',
      'local: Computed "local" in 2s',
      'reports: Computed "report, again" in 1s',
    ]);
    // Each call went to its own server; the one after the restart to the server that came back.
    const called = (server: HttpTaskServer) =>
      server.requests
        .forMethod("tools/call")
        .map((request) => (request.body as { params: { name: string } }).params.name);
    expect(called(pair.research)).toEqual(["slow_compute"]);
    expect(called(pair.reports())).toEqual(["slow_compute"]);
  }, 30_000);
});
