/**
 * The cadence (decision 14), through the real client against the reference server (behind the fault proxy where a
 * fault must come from the network): a retry never brings a poll forward. After a failed `tasks/get` the next
 * one waits `max(server interval, backoff)`, and the retries of a failing `tasks/cancel` trigger no poll at
 * all; only the cancel's final answer brings one poll forward. Wall-clock: only lower bounds on gaps, and counts.
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
import { startFaultProxy } from "../lifecycle/fault-proxy.js";

const INTERVAL_MS = 300;
/** The server's clock and the client's timers read different clocks: allow them 2 ms of disagreement. */
const SLACK_MS = 2;

const open: Array<{ close(): Promise<unknown> }> = [];

afterEach(async () => {
  for (const closable of open.splice(0).reverse()) await closable.close().catch(() => undefined);
});

const tools = [
  defineTool({
    name: "flaky",
    task: "required",
    pollIntervalMs: INTERVAL_MS,
    steps: [step.pollErrors(3), step.working("back"), step.complete(textResult("ok"))],
  }),
  defineTool({ name: "endless", task: "required", pollIntervalMs: INTERVAL_MS, steps: [step.stall()] }),
];

/** Retries back off 10-40 ms: far shorter than the server's interval. */
const OPTIONS = {
  notifications: "off",
  retry: { minTimeoutMs: 20, maxTimeoutMs: 40, retries: 5 },
} as const;

function gaps(entries: RecordedRequest[]): number[] {
  return entries
    .slice(1)
    .map((entry, index) => entry.receivedAt - (entries[index] as RecordedRequest).receivedAt);
}

async function serve(): Promise<HttpTaskServer> {
  const server = await startTaskServer({ tools });
  open.push(server);
  return server;
}

describe("a retry waits at least the server's interval", () => {
  it("after a failed tasks/get, the next poll waits max(pollIntervalMs, backoff)", async () => {
    const server = await serve();
    const client = await TaskClient.connect(server.url, OPTIONS);
    open.push(client);
    const retries: number[] = [];
    const handle = client.callTool("flaky");
    handle.on("retry", (event) => void retries.push(event.attempt));
    await expect(handle).resolves.toMatchObject({ content: [{ text: "ok" }] });
    expect(retries).toEqual([1, 2, 3]);
    const polls = server.requests.forMethod("tasks/get");
    expect(polls).toHaveLength(4); // three answered with -32603, the fourth with the result
    for (const gap of gaps(polls)) expect(gap).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
  });

  it("retries of a failing tasks/cancel bring no poll forward; its final answer brings one", async () => {
    const server = await serve();
    const proxy = await startFaultProxy(server.url);
    open.push(proxy);
    const client = await TaskClient.connect(proxy.url, OPTIONS);
    open.push(client);
    const handle = client.callTool("endless");
    await handle.created;
    // Let two regular polls go by, then cancel while tasks/cancel fails three times over.
    await expect.poll(() => server.requests.forMethod("tasks/get").length, { timeout: 5_000 }).toBe(2);
    proxy.fault("tasks/cancel", { status: 503 }, 3);
    const outcome = await handle.cancel("stop");
    expect(outcome.outcome).toMatchObject({ kind: "cancelled" });
    expect(proxy.faulted.get("tasks/cancel")).toBe(3);

    const cancels = server.requests.forMethod("tasks/cancel");
    expect(cancels).toHaveLength(1); // the three failed attempts never reached the server
    const acknowledgedAt = (cancels[0] as RecordedRequest).receivedAt;
    const polls = server.requests.forMethod("tasks/get");
    const before = polls.filter((entry) => entry.receivedAt < acknowledgedAt);
    // Until the cancel was answered, polls kept the server's interval: no poll per cancel retry.
    for (const gap of gaps(before)) expect(gap).toBeGreaterThanOrEqual(INTERVAL_MS - SLACK_MS);
    // After it, one poll fetched the final word (cancelled), without waiting for the interval.
    expect(polls.filter((entry) => entry.receivedAt >= acknowledgedAt)).toHaveLength(1);
  });
});

describe("a Retry-After outlasts a one-shot poll owed meanwhile (decision 14)", () => {
  it("a listen acknowledged during a poll that then answers 503 with Retry-After: 1 waits the second", async () => {
    const server = await startTaskServer({
      // A task that moves on the server's clock is acknowledged on a listen (after 200 ms here).
      tools: [
        defineTool({
          name: "pushed",
          task: "required",
          pollIntervalMs: 100,
          advance: { everyMs: 60_000 },
          steps: [step.stall()],
        }),
      ],
      listen: { ackDelayMs: 200 },
    });
    open.push(server);
    const proxy = await startFaultProxy(server.url);
    open.push(proxy);
    // The first poll (at about 100 ms) is held 600 ms, across the acknowledgement, and then refused.
    proxy.fault("tasks/get", { status: 503, headers: { "retry-after": "1" }, afterMs: 600 }, 1);
    const client = await TaskClient.connect(proxy.url, { retry: { minTimeoutMs: 20, maxTimeoutMs: 30_000 } });
    open.push(client);
    const handle = client.callTool("pushed");
    await expect
      .poll(() => proxy.seen.filter((method) => method === "tasks/get").length, {
        timeout: 10_000,
        interval: 50,
      })
      .toBe(2);
    handle.detach();
    const [failed, next] = proxy.exchanges.filter((each) => each.method === "tasks/get");
    const ack = proxy.exchanges.find((each) => each.method === "subscriptions/listen")?.acks[0];
    // What makes the retry's poll one owed: the acknowledgement passed while the failing poll was in flight.
    expect(ack?.at).toBeGreaterThan(failed!.startedAt);
    expect(ack?.at).toBeLessThan(failed!.endedAt!);
    expect(next!.startedAt - failed!.endedAt!).toBeGreaterThanOrEqual(1000 - SLACK_MS);
  });
});
