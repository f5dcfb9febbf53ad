/**
 * Listen streams (decision 10), through the real client against the reference server over Streamable HTTP.
 *
 * - Past the stream cap, each new batch of ids is merged into an existing stream by a new listen for the union.
 *   Re-subscribing an id that stays acknowledged must never poll it: the `tasks/get` count stays one catch-up
 *   poll per task, not one per merge (it was quadratic: 100 tasks 40 ms apart made 1,300 polls in 4.5 s).
 * - A listen answered HTTP 405 or 404 is a refusal of the method for that connection: no listen is retried.
 */
import { afterEach, describe, expect, it } from "vitest";
import { TaskClient } from "mcp-tasks";
import {
  defineTool,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
  type RecordedRequest,
} from "mcp-tasks/testing";
import { startFaultProxy, type FaultProxy } from "../lifecycle/fault-proxy.js";

const open: Array<{ close(): Promise<unknown> }> = [];

afterEach(async () => {
  for (const closable of open.splice(0).reverse()) await closable.close().catch(() => undefined);
});

/** On the server's clock (so the server acknowledges it), with a poll interval that never comes round. */
const lingering = defineTool({
  name: "lingering",
  task: "required",
  advance: { everyMs: 50 },
  pollIntervalMs: 5000,
  steps: [step.working("started"), step.idle(20), step.complete(textResult("done"))],
});

function taskIdOf(entry: RecordedRequest): unknown {
  return (entry.body as { params?: { taskId?: unknown } }).params?.taskId;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("re-subscribing past the stream cap", () => {
  it("never polls an id that stays acknowledged when its stream is merged into a new listen", async () => {
    const server: HttpTaskServer = await startTaskServer({ tools: [lingering] });
    open.push(server);
    // The safety net is long too: every tasks/get here is a one-shot poll.
    const client = await TaskClient.connect(server.url, { notificationSafetyNetMs: 60_000 });
    open.push(client);
    const TASKS = 16;
    const handles = [];
    for (let index = 0; index < TASKS; index++) {
      handles.push(client.callTool("lingering"));
      await sleep(40); // each task its own batch: past the 4th stream, every batch merges
    }
    const results = await Promise.all(handles);
    for (const result of results) expect(result).toMatchObject({ content: [{ text: "done" }] });

    const listens = server.requests.forMethod("subscriptions/listen");
    expect(listens.length).toBeGreaterThan(4); // the merges happened
    const polls = server.requests.forMethod("tasks/get");
    const perTask = new Map<unknown, number>();
    for (const entry of polls) perTask.set(taskIdOf(entry), (perTask.get(taskIdOf(entry)) ?? 0) + 1);
    // One catch-up poll after a task's first acknowledgement; none for being carried into a merged listen.
    for (const count of perTask.values()) expect(count).toBeLessThanOrEqual(1);
    expect(polls.length).toBeLessThanOrEqual(TASKS);
  });
});

describe("a listen refused at the HTTP level", () => {
  const refusals = [
    [405, "Method Not Allowed"],
    [404, "Not Found"],
  ] as const;
  for (const [status, body] of refusals) {
    it(`treats HTTP ${status} as a permanent refusal: polls instead and never listens again`, async () => {
      const server: HttpTaskServer = await startTaskServer({ tools: [lingering] });
      open.push(server);
      const proxy: FaultProxy = await startFaultProxy(server.url);
      open.push(proxy);
      // As a gateway or an older server answers: a plain-text body, no JSON-RPC error.
      proxy.fault("subscriptions/listen", { status, body });
      const client = await TaskClient.connect(proxy.url, {
        polling: { minIntervalMs: 10, defaultIntervalMs: 100, maxIntervalMs: 100 },
        retry: { minTimeoutMs: 10, maxTimeoutMs: 20 },
      });
      open.push(client);
      const first = client.callTool("lingering");
      await expect(first).resolves.toMatchObject({ content: [{ text: "done" }] });
      await client.callTool("lingering");
      // One listen for the first batch, none after the refusal (no re-listen with backoff, no new batch).
      expect(proxy.seen.filter((method) => method === "subscriptions/listen")).toHaveLength(1);
      // Polled all along: 1 s of life at most 100 ms apart.
      const firstId = await first.created;
      expect(
        server.requests.forMethod("tasks/get").filter((entry) => taskIdOf(entry) === firstId).length,
      ).toBeGreaterThanOrEqual(5);
    });
  }
});
