/**
 * Task status notifications over real Streamable HTTP on 127.0.0.1 against the reference server: the client
 * listens by default, acknowledged tasks are pushed instead of polled, and every misbehaviour the server can
 * script (partial acknowledgement, refusal, drops, duplicates, reordering) ends with the task's true outcome.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { TaskClient, type TaskClientOptions } from "mcp-tasks";
import {
  startTaskServer,
  type HttpTaskServer,
  type ListenBehaviour,
  type RecordedRequest,
} from "mcp-tasks/testing";
import type { Logger } from "../../../src/protocol/logging.js";
import { listenTools } from "./fixtures/listen-tools.js";

const TASKS = "io.modelcontextprotocol/tasks";

let server: HttpTaskServer | undefined;
const clients: TaskClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await server?.close();
  server = undefined;
});

async function setUp(listen: ListenBehaviour = {}, options: TaskClientOptions = {}) {
  server = await startTaskServer({ tools: listenTools, listen });
  const client = await TaskClient.connect(server.url, { retry: { minTimeoutMs: 50 }, ...options });
  clients.push(client);
  return { server, client };
}

function taskIdOf(entry: RecordedRequest): unknown {
  return (entry.body as { params?: { taskId?: unknown } }).params?.taskId;
}

function pollsOf(server: HttpTaskServer, taskId: string): RecordedRequest[] {
  return server.requests.forMethod("tasks/get").filter((entry) => taskIdOf(entry) === taskId);
}

function listenedIds(entry: RecordedRequest | undefined): unknown {
  return (entry?.body as { params?: { notifications?: { taskIds?: unknown } } }).params?.notifications
    ?.taskIds;
}

/**
 * The steps of a task's `notifications/tasks` as the server wrote them, in order: `working` with `step N` as N,
 * anything else (the terminal notification) as Infinity.
 */
function sentSteps(server: HttpTaskServer, taskId: string): number[] {
  return server.notifications
    .forMethod("notifications/tasks")
    .filter((entry) => entry.params["taskId"] === taskId)
    .map((entry) => {
      const message = entry.params["statusMessage"];
      if (entry.params["status"] !== "working" || typeof message !== "string") return Infinity;
      return Number(message.replace("step ", ""));
    });
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function recordingLogger(): { logger: Partial<Logger>; lines: string[] } {
  const lines: string[] = [];
  const note = (message: string) => void lines.push(message);
  return { logger: { debug: note, info: note, warn: note, error: note }, lines };
}

describe("listening for task status notifications over Streamable HTTP", () => {
  it("subscribes in one listen per batch and completes from notifications, without regular polls", async () => {
    const { server, client } = await setUp();
    const first = client.callTool("ticking");
    const second = client.callTool("ticking");
    const messages: Array<string | undefined> = [];
    first.on("update", (update) => messages.push(update.statusMessage));
    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ content: [{ type: "text", text: "ticked" }] });
    expect(b).toMatchObject({ content: [{ type: "text", text: "ticked" }] });

    const ids = [await first.created, await second.created] as string[];
    // Ids adopted within one batch window share a listen (exactly one here unless the answers came >10 ms apart;
    // the fake-timer unit tests pin the batching down).
    const listens = server.requests.forMethod("subscriptions/listen");
    expect(listens.length).toBeLessThanOrEqual(2);
    expect(listens.flatMap((entry) => listenedIds(entry) as string[])).toEqual(ids);
    for (const listen of listens) {
      const meta = (listen.body as { params: { _meta: Record<string, unknown> } }).params._meta;
      expect(meta["io.modelcontextprotocol/clientCapabilities"]).toMatchObject({
        extensions: { [TASKS]: {} },
      });
      expect(listen.headers["mcp-method"]).toBe("subscriptions/listen");
    }
    // One catch-up poll after the acknowledgement at most; every step after it came by notification.
    for (const taskId of ids) expect(pollsOf(server, taskId).length).toBeLessThanOrEqual(1);
    expect(messages).toEqual(expect.arrayContaining(["three"]));
    await until(() => server.listenStreams === 0, "the stream to close once no task is live");
  });

  it("polls only the tasks the server left out of the acknowledgement", async () => {
    // The server acknowledges only tasks called with { push: true }.
    const acknowledge = (taskIds: readonly string[]) =>
      taskIds.filter((taskId) => server?.tasks.inspect(taskId)?.arguments["push"] === true);
    const { server: running, client } = await setUp({ acknowledge });
    const pushed = client.callTool("chatty", { push: true });
    const polled = client.callTool("chatty", { push: false });
    await Promise.all([pushed, polled]);
    const ackedId = (await pushed.created) as string;
    const leftOut = (await polled.created) as string;
    const listened = running.requests
      .forMethod("subscriptions/listen")
      .flatMap((entry) => listenedIds(entry));
    expect(listened).toEqual(expect.arrayContaining([ackedId, leftOut]));
    // The catch-up poll after the acknowledgement, and one more if a regular poll (every 100 ms) was out before
    // it arrived: that poll's answer may predate the subscription.
    expect(pollsOf(running, ackedId).length).toBeLessThanOrEqual(2);
    expect(pollsOf(running, leftOut).length).toBeGreaterThanOrEqual(3);
  });

  it("falls back to polling, once and with a logger note, when the server refuses with -32021", async () => {
    const { logger, lines } = recordingLogger();
    const refuse = {
      code: -32021,
      message: "Missing required client capability",
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    };
    const { server, client } = await setUp({ refuse }, { logger });
    const handle = client.callTool("chatty");
    await expect(handle).resolves.toMatchObject({ content: [{ type: "text", text: "ok" }] });
    expect(pollsOf(server, (await handle.created) as string).length).toBeGreaterThanOrEqual(3);
    // The client stops asking: a later task is not listened for.
    await client.callTool("chatty");
    expect(server.requests.forMethod("subscriptions/listen")).toHaveLength(1);
    expect(lines.filter((line) => line.includes("-32021"))).toHaveLength(1);
  });

  it("polls at once when a stream that proved itself drops mid-task, listens again, and completes", async () => {
    // Open 250 ms, longer than notificationSafetyNetMs after its acknowledgement: a working stream that broke.
    const { server, client } = await setUp(
      { dropAfterMs: (index) => (index === 0 ? 250 : undefined) },
      { notificationSafetyNetMs: 150 },
    );
    const handle = client.callTool("long");
    const taskId = (await handle.created) as string;
    await expect(handle).resolves.toMatchObject({ content: [{ type: "text", text: "long" }] });
    const listens = server.requests.forMethod("subscriptions/listen");
    expect(listens).toHaveLength(2);
    expect(listenedIds(listens[1])).toEqual([taskId]);
    const droppedAt = (listens[0]?.receivedAt as number) + 250;
    // After it: the poll at once and the catch-up poll after the new acknowledgement (the 5 s interval never
    // comes round in this task's second). The first races the re-listen, so no order between them is assumed.
    const pollsAfter = pollsOf(server, taskId).filter((entry) => entry.receivedAt >= droppedAt);
    expect(pollsAfter.length).toBeGreaterThanOrEqual(2);
    // Pushed again after the re-listen: the 5 s poll interval never came round.
    expect(pollsOf(server, taskId).length).toBeLessThanOrEqual(3);
  });

  it("polls at once when the server ends a proven listen mid-task with its result, listens again, and completes", async () => {
    const { server, client } = await setUp(
      { endAfterMs: (index) => (index === 0 ? 250 : undefined) },
      { notificationSafetyNetMs: 150 },
    );
    const handle = client.callTool("long");
    const taskId = (await handle.created) as string;
    await expect(handle).resolves.toMatchObject({ content: [{ type: "text", text: "long" }] });
    const listens = server.requests.forMethod("subscriptions/listen");
    expect(listens).toHaveLength(2);
    expect(listenedIds(listens[1])).toEqual([taskId]);
    const endedAt = (listens[0]?.receivedAt as number) + 250;
    // After it: the poll at once and the catch-up poll after the new acknowledgement (the 5 s interval never
    // comes round in this task's second). The first races the re-listen, so no order between them is assumed.
    const pollsAfter = pollsOf(server, taskId).filter((entry) => entry.receivedAt >= endedAt);
    expect(pollsAfter.length).toBeGreaterThanOrEqual(2);
    expect(pollsOf(server, taskId).length).toBeLessThanOrEqual(3);
  });

  it("backs off and keeps the poll interval when the server acknowledges every listen and ends it at once (decision 10)", async () => {
    const { server, client } = await setUp(
      { endAfterMs: 5 },
      { retry: { minTimeoutMs: 50, maxTimeoutMs: 400 } },
    );
    const handle = client.callTool("idling");
    const taskId = (await handle.created) as string;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    handle.detach();
    // Re-listens back off (50, 100, 200, 400 ms … each lengthened by up to 100 %) and stop after `retries` (8)
    // unproven ends; a client that took each acknowledgement for a working stream re-listened every 50-100 ms.
    const listens = server.requests.forMethod("subscriptions/listen").map((entry) => entry.receivedAt);
    expect(listens.length).toBeGreaterThanOrEqual(3);
    expect(listens.length).toBeLessThanOrEqual(9);
    // Polls keep the 200 ms interval: only the first (the catch-up after the first acknowledgement) came early.
    const polls = pollsOf(server, taskId).map((entry) => entry.receivedAt);
    expect(polls.length).toBeGreaterThanOrEqual(5);
    for (let index = 1; index < polls.length; index++)
      expect(polls[index]! - polls[index - 1]!).toBeGreaterThanOrEqual(198);
  });

  it("polls as usual until a late acknowledgement arrives, then stops", async () => {
    // When the client took the acknowledgement in: its debug line, on the clock the server logs requests by.
    let acknowledgedAt: number | undefined;
    const logger = {
      debug: (line: string) => void (line.includes("pushed") && (acknowledgedAt ??= Date.now())),
    };
    const { server, client } = await setUp({ ackDelayMs: 350 }, { logger });
    const handle = client.callTool("steady");
    await expect(handle).resolves.toMatchObject({ content: [{ type: "text", text: "steady" }] });
    expect(acknowledgedAt, "the client never saw the acknowledgement").toBeDefined();
    const polls = pollsOf(server, (await handle.created) as string);
    expect(
      polls.filter((entry) => entry.receivedAt < (acknowledgedAt as number)).length,
    ).toBeGreaterThanOrEqual(2);
    // After it: the catch-up poll, and at most one that was already on its way. The task runs on for about a
    // second at a 100 ms poll interval, so a client that kept polling sends several. The exact cadence is pinned
    // in fake time by test/unit/notifications/safety-net.test.ts.
    expect(
      polls.filter((entry) => entry.receivedAt >= (acknowledgedAt as number)).length,
    ).toBeLessThanOrEqual(2);
  });

  it("drops duplicate and out-of-order notifications: updates only move forward", async () => {
    // The late acknowledgement queues several changes, which then go out as one burst: reordered in pairs, and
    // every message twice.
    const { server, client } = await setUp({ duplicate: true, reorder: true, ackDelayMs: 250 });
    const handle = client.callTool("long");
    const messages: Array<string | undefined> = [];
    const statuses: string[] = [];
    handle.on("update", (update) => {
      messages.push(update.statusMessage);
      statuses.push(update.status);
    });
    await expect(handle).resolves.toMatchObject({ content: [{ type: "text", text: "long" }] });

    // What the server wrote on the stream: duplicates and out-of-order notifications really went out.
    const taskId = (await handle.created) as string;
    const sent = sentSteps(server, taskId);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((step, index) => step === sent[index + 1]).length).toBeGreaterThan(0); // duplicates
    expect(sent.some((step, index) => sent.slice(index + 1).some((later) => later < step))).toBe(true); // reordered

    // What the handle reported: each step once, never backwards, and more than the catch-up poll could show.
    const seen = messages.filter((message): message is string => message?.startsWith("step ") === true);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(seen).size).toBe(seen.length); // no duplicate
    const numbers = seen.map((message) => Number(message.slice(5)));
    expect([...numbers].sort((x, y) => x - y)).toEqual(numbers); // never backwards
    expect(statuses.filter((status) => status === "completed")).toHaveLength(1);
    expect(statuses.at(-1)).toBe("completed");
  });

  it("answers input observed through a notification exactly once", async () => {
    let asked = 0;
    const { server, client } = await setUp(
      { duplicate: true },
      {
        inputHandlers: {
          elicitation: async () => {
            asked++;
            return { action: "accept", content: { ok: true } };
          },
        },
      },
    );
    const handle = client.callTool("asking");
    await expect(handle).resolves.toMatchObject({ content: [{ type: "text", text: "shipped" }] });
    // The question really went out twice on the stream.
    const askedOnStream = server.notifications
      .forMethod("notifications/tasks")
      .filter((entry) => entry.params["status"] === "input_required");
    expect(askedOnStream).toHaveLength(2);
    expect(askedOnStream[1]?.params).toEqual(askedOnStream[0]?.params);
    expect(asked).toBe(1);
    expect(server.requests.forMethod("tasks/update")).toHaveLength(1);
  });

  it("close() ends every stream", async () => {
    const { server, client } = await setUp();
    const handles = [client.callTool("long"), client.callTool("long")];
    await Promise.all(handles.map((handle) => handle.created));
    await until(() => server.listenStreams === 1, "the listen stream to open");
    await client.close();
    await until(() => server.listenStreams === 0, "every stream to close");
  });

  it("lets the process exit on its own after close()", async () => {
    const { server } = await setUp();
    const script = fileURLToPath(new URL("./fixtures/listen-then-close.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", script, server.url, "long"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill();
        reject(new Error(`the client process did not exit on its own; it said ${JSON.stringify(stdout)}`));
      }, 15_000);
      child.on("exit", (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(code).toBe(0);
    expect(stdout.trim()).toBe("acknowledged closed");
    await until(() => server.listenStreams === 0, "the stream to close");
  }, 20_000);

  it("does not listen with notifications: 'off'", async () => {
    const { server, client } = await setUp({}, { notifications: "off" });
    await client.callTool("ticking");
    expect(server.requests.forMethod("subscriptions/listen")).toHaveLength(0);
  });
});
