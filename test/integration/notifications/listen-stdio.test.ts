/**
 * Task status notifications over stdio framing (newline-delimited JSON-RPC on a pipe pair, the reference
 * server's stdio transport in-process): every listen shares the one pipe, so notifications are told apart by
 * `_meta["io.modelcontextprotocol/subscriptionId"]`, and a listen ends with `notifications/cancelled`.
 */
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { TaskClient } from "mcp-tasks";
import { defineTool, startStdioTaskServer, step, textResult, type TaskServer } from "mcp-tasks/testing";
import { PipeTransport } from "./fixtures/pipe-transport.js";

const ticking = defineTool({
  name: "ticking",
  task: "required",
  advance: { everyMs: 60 },
  pollIntervalMs: 1000,
  steps: [step.working("one"), step.working("two"), step.complete(textResult("ticked"))],
});

const slow = defineTool({
  name: "slow",
  task: "required",
  advance: { everyMs: 10_000 },
  steps: [step.working("a while"), step.complete(textResult("late"))],
});

let server: TaskServer | undefined;
let client: TaskClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

async function setUp(): Promise<{ server: TaskServer; client: TaskClient; debug: string[] }> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  server = startStdioTaskServer({ tools: [ticking, slow], stdin: toServer, stdout: toClient });
  const debug: string[] = [];
  client = await TaskClient.connect(new PipeTransport(toServer, toClient), {
    logger: { debug: (line: string) => void debug.push(line) },
  });
  return { server, client, debug };
}

function bodyOf(entry: { body: unknown } | undefined): Record<string, unknown> {
  return (entry?.body ?? {}) as Record<string, unknown>;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 3000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("listening over stdio", () => {
  it("completes from notifications demultiplexed by subscription id, then cancels the listen", async () => {
    const { server, client } = await setUp();
    const handles = [client.callTool("ticking"), client.callTool("ticking")];
    const results = await Promise.all(handles);
    for (const result of results) expect(result).toMatchObject({ content: [{ text: "ticked" }] });
    const ids = (await Promise.all(handles.map((handle) => handle.created))) as string[];
    const polls = server.requests.forMethod("tasks/get");
    for (const taskId of ids) {
      const own = polls.filter((entry) => (bodyOf(entry)["params"] as { taskId?: string }).taskId === taskId);
      expect(own.length).toBeLessThanOrEqual(1);
    }
    const listens = server.requests.forMethod("subscriptions/listen").map((entry) => bodyOf(entry)["id"]);
    await until(
      () => server.requests.forMethod("notifications/cancelled").length === listens.length,
      "every listen to be cancelled",
    );
    const cancelled = server.requests
      .forMethod("notifications/cancelled")
      .map((entry) => (bodyOf(entry)["params"] as { requestId?: unknown }).requestId);
    expect(cancelled.sort()).toEqual([...listens].sort());
  });

  it("close() sends notifications/cancelled for an open listen", async () => {
    const { server, client, debug } = await setUp();
    const handle = client.callTool("slow");
    await handle.created;
    await until(() => server.requests.forMethod("subscriptions/listen").length === 1, "the listen");
    const listenId = bodyOf(server.requests.forMethod("subscriptions/listen")[0])["id"];
    // The client took the acknowledgement in: the listen is open on both sides.
    await until(() => debug.some((line) => line.includes("task(s) pushed")), "the acknowledgement");
    await client.close();
    await until(() => server.requests.forMethod("notifications/cancelled").length === 1, "the cancel");
    const [cancel] = server.requests.forMethod("notifications/cancelled");
    expect((bodyOf(cancel)["params"] as { requestId?: unknown }).requestId).toBe(listenId);
    expect((await handle.outcome()).kind).toBe("closed");
  });
});
