/**
 * Task status notifications over real stdio: the reference server runs as a child process
 * (`fixtures/stdio-listen-server.ts`, one scripted listen behaviour per test) and the client speaks to it
 * through the SDK's `StdioClientTransport`, the transport `TaskClient.connect({ command })` builds. Every
 * listen shares the one pipe, so notifications are told apart by `_meta["io.modelcontextprotocol/subscriptionId"]`,
 * and a listen ends with `notifications/cancelled`. The server logs what it receives on stderr, which the test
 * reads to count polls and listens.
 *
 * On stdio one pipe carries every listen, so a listen cannot "drop" the way an HTTP stream does: the server
 * either ends it (its empty result, which the client sees) or falls silent (which only the safety net sees).
 * Both are tested here.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { TaskClient, type TaskClientOptions } from "mcp-tasks";
import type { SentNotification } from "mcp-tasks/testing";
import type { Logger } from "../../../src/protocol/logging.js";

const SERVER = fileURLToPath(new URL("./fixtures/stdio-listen-server.ts", import.meta.url));
const CLOSER = fileURLToPath(new URL("./fixtures/listen-then-close.ts", import.meta.url));
const TASKS = "io.modelcontextprotocol/tasks";
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const TIMEOUT_MS = 30_000;

interface Received {
  at: number;
  message: { id?: unknown; method?: string; params?: Record<string, unknown> };
}

/** What the server process received, in order, from its stderr log. */
class ServerLog {
  readonly received: Received[] = [];
  /** The notifications the server wrote, reported once its stdin ended (see the fixture). */
  readonly sent: SentNotification[] = [];
  /** Resolves when the server process's stderr ends: it has exited, and `sent` is complete. */
  ended: Promise<void> = Promise.resolve();

  /** Resolves once the server process reports that it is serving. */
  readonly ready: Promise<void>;
  private markReady!: () => void;

  constructor() {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
  }

  read(stream: Readable): void {
    this.ended = new Promise((resolve) => stream.once("end", resolve));
    createInterface({ input: stream }).on("line", (line) => {
      if (line.startsWith("REQ ")) this.received.push(JSON.parse(line.slice(4)) as Received);
      else if (line.startsWith("SENT ")) this.sent.push(JSON.parse(line.slice(5)) as SentNotification);
      else if (line === "READY") this.markReady();
    });
  }

  /**
   * Waits until the log has been quiet for a moment: it arrives on stderr, which may lag behind the answers on
   * stdout, so a test reads it only after this.
   */
  async settled(): Promise<void> {
    for (let seen = -1; seen !== this.received.length;) {
      seen = this.received.length;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  forMethod(method: string): Received[] {
    return this.received.filter((entry) => entry.message.method === method);
  }

  pollsOf(taskId: string): Received[] {
    return this.forMethod("tasks/get").filter((entry) => entry.message.params?.["taskId"] === taskId);
  }

  listenedIds(entry: Received | undefined): unknown {
    return (entry?.message.params?.["notifications"] as { taskIds?: unknown } | undefined)?.taskIds;
  }

  cancelledIds(): unknown[] {
    return this.forMethod("notifications/cancelled").map((entry) => entry.message.params?.["requestId"]);
  }
}

/**
 * The SDK's stdio transport, except that `start()` also waits until the server process says it is serving. On a
 * loaded machine a cold `tsx` start can outlast the client's 10 s stdio discovery probe, which would then take
 * the server for a 2025-era one; the wait keeps the tests about listening, not about start-up races.
 */
class ReadyStdioTransport {
  constructor(
    private readonly inner: StdioClientTransport,
    private readonly ready: Promise<void>,
  ) {}

  get pid(): number | null {
    return this.inner.pid;
  }

  get stderr(): StdioClientTransport["stderr"] {
    return this.inner.stderr;
  }

  set onmessage(handler: StdioClientTransport["onmessage"]) {
    this.inner.onmessage = handler;
  }

  get onmessage(): StdioClientTransport["onmessage"] {
    return this.inner.onmessage;
  }

  set onclose(handler: StdioClientTransport["onclose"]) {
    this.inner.onclose = handler;
  }

  get onclose(): StdioClientTransport["onclose"] {
    return this.inner.onclose;
  }

  set onerror(handler: StdioClientTransport["onerror"]) {
    this.inner.onerror = handler;
  }

  get onerror(): StdioClientTransport["onerror"] {
    return this.inner.onerror;
  }

  async start(): Promise<void> {
    await this.inner.start();
    await this.ready;
  }

  send(...args: Parameters<StdioClientTransport["send"]>): Promise<void> {
    return this.inner.send(...args);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const clients: TaskClient[] = [];

afterEach(async () => {
  // Closing the client ends the child's stdin; the server process exits on its own.
  for (const client of clients.splice(0)) await client.close();
});

async function setUp(behaviour: string, options: TaskClientOptions = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", SERVER, behaviour],
    stderr: "pipe",
  });
  const log = new ServerLog();
  log.read(transport.stderr as Readable);
  const ready = new ReadyStdioTransport(transport, log.ready);
  const client = await TaskClient.connect(ready, { retry: { minTimeoutMs: 50 }, ...options });
  clients.push(client);
  return { client, log };
}

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
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

describe("listening for task status notifications over stdio, with the server as a child process", () => {
  it(
    "subscribes and completes from notifications without further polls, then cancels the listen",
    async () => {
      const { client, log } = await setUp("plain");
      const first = client.callTool("long");
      const second = client.callTool("long");
      const messages: Array<string | undefined> = [];
      first.on("update", (update) => messages.push(update.statusMessage));
      const results = await Promise.all([first, second]);
      for (const result of results) expect(result).toMatchObject({ content: [{ text: "long" }] });
      const ids = [await first.created, await second.created] as string[];
      await log.settled();

      const listens = log.forMethod("subscriptions/listen");
      expect(listens.length).toBeGreaterThanOrEqual(1);
      expect(listens.flatMap((entry) => log.listenedIds(entry) as string[]).sort()).toEqual([...ids].sort());
      for (const listen of listens) {
        expect(listen.message.params?.["_meta"]).toMatchObject({
          "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
        });
      }
      // The catch-up poll after the acknowledgement at most; every step after it came by notification.
      for (const taskId of ids) expect(log.pollsOf(taskId).length).toBeLessThanOrEqual(1);
      expect(messages).toContain("step 9");
      // A stream without live tasks is ended with notifications/cancelled naming the listen.
      await until(() => log.cancelledIds().length === listens.length, "every listen to be cancelled");
      expect(log.cancelledIds().sort()).toEqual(listens.map((entry) => entry.message.id).sort());
    },
    TIMEOUT_MS,
  );

  it(
    "polls only the tasks the server left out of the acknowledgement",
    async () => {
      const { client, log } = await setUp("partial");
      const pushed = client.callTool("chatty", { push: true });
      const polled = client.callTool("chatty", { push: false });
      await Promise.all([pushed, polled]);
      await log.settled();
      const ackedId = (await pushed.created) as string;
      const leftOut = (await polled.created) as string;
      const listened = log.forMethod("subscriptions/listen").flatMap((entry) => log.listenedIds(entry));
      expect(listened).toEqual(expect.arrayContaining([ackedId, leftOut]));
      // The catch-up poll, and one more if a regular poll (every 100 ms) was out when the acknowledgement came.
      expect(log.pollsOf(ackedId).length).toBeLessThanOrEqual(2);
      expect(log.pollsOf(leftOut).length).toBeGreaterThanOrEqual(3);
    },
    TIMEOUT_MS,
  );

  it(
    "falls back to polling, once and with a logger note, when the server refuses with -32021",
    async () => {
      const { logger, lines } = recordingLogger();
      const { client, log } = await setUp("refuse", { logger });
      const handle = client.callTool("chatty");
      await expect(handle).resolves.toMatchObject({ content: [{ type: "text", text: "ok" }] });
      await log.settled();
      expect(log.pollsOf((await handle.created) as string).length).toBeGreaterThanOrEqual(3);
      await client.callTool("chatty"); // not listened for: the client stopped asking
      expect(log.forMethod("subscriptions/listen")).toHaveLength(1);
      expect(lines.filter((line) => line.includes("-32021"))).toHaveLength(1);
    },
    TIMEOUT_MS,
  );

  it(
    "polls at once when the server ends a proven listen mid-task, listens again, and completes",
    async () => {
      // Open 250 ms, longer than notificationSafetyNetMs after its acknowledgement: a stream that worked.
      const { client, log } = await setUp("end-first", { notificationSafetyNetMs: 150 });
      const handle = client.callTool("long");
      const taskId = (await handle.created) as string;
      await expect(handle).resolves.toMatchObject({ content: [{ type: "text", text: "long" }] });
      await log.settled();
      const listens = log.forMethod("subscriptions/listen");
      expect(listens).toHaveLength(2);
      expect(log.listenedIds(listens[1])).toEqual([taskId]);
      const endedAt = (listens[0]?.at as number) + 250;
      // After it: the poll at once and the catch-up poll after the new acknowledgement (the 5 s interval never
      // comes round in this task's second). The first races the re-listen, so no order between them is assumed.
      const pollsAfter = log.pollsOf(taskId).filter((entry) => entry.at >= endedAt);
      expect(pollsAfter.length).toBeGreaterThanOrEqual(2);
      // Pushed again after the re-listen: the 5 s poll interval never came round.
      expect(log.pollsOf(taskId).length).toBeLessThanOrEqual(3);
    },
    TIMEOUT_MS,
  );

  it(
    "completes through the safety net when a listen falls silent (the stdio drop no client can see)",
    async () => {
      // chatty's interval is 100 ms, so the safety net polls every max(300, 10 × 100) = 1000 ms.
      const { client, log } = await setUp("silence-first", { notificationSafetyNetMs: 300 });
      const handle = client.callTool("chatty");
      const messages: Array<string | undefined> = [];
      handle.on("update", (update) => messages.push(update.statusMessage));
      await expect(handle).resolves.toMatchObject({ content: [{ type: "text", text: "ok" }] });
      await log.settled();
      const polls = log.pollsOf((await handle.created) as string);
      // The catch-up poll, then safety-net polls only: far fewer than the ~8 regular polls of a 700 ms task.
      expect(polls.length).toBeGreaterThanOrEqual(2);
      expect(polls.length).toBeLessThanOrEqual(3);
      expect(messages).not.toContain("step 5"); // pushed no more after the silence at 150 ms
      expect(log.forMethod("subscriptions/listen")).toHaveLength(1);
    },
    TIMEOUT_MS,
  );

  it(
    "drops duplicate and out-of-order notifications: updates only move forward",
    async () => {
      const { client, log } = await setUp("duplicate-reorder");
      const handle = client.callTool("long");
      const messages: Array<string | undefined> = [];
      const statuses: string[] = [];
      handle.on("update", (update) => {
        messages.push(update.statusMessage);
        statuses.push(update.status);
      });
      await expect(handle).resolves.toMatchObject({ content: [{ type: "text", text: "long" }] });

      // What the server wrote on the pipe (reported once it exits): duplicates and reordering really went out.
      const taskId = (await handle.created) as string;
      await client.close();
      await log.ended;
      const sent = log.sent
        .filter((entry) => entry.method === "notifications/tasks" && entry.params["taskId"] === taskId)
        .map((entry) =>
          entry.params["status"] === "working"
            ? Number(String(entry.params["statusMessage"]).slice(5))
            : Infinity,
        );
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
    },
    TIMEOUT_MS,
  );

  it(
    "answers input observed through a notification exactly once",
    async () => {
      let asked = 0;
      const { client, log } = await setUp("duplicate", {
        inputHandlers: {
          elicitation: async () => {
            asked++;
            return { action: "accept", content: { ok: true } };
          },
        },
      });
      const handle = client.callTool("asking");
      await expect(handle).resolves.toMatchObject({ content: [{ type: "text", text: "shipped" }] });
      await log.settled();
      expect(asked).toBe(1);
      expect(log.forMethod("tasks/update")).toHaveLength(1);
      // Observed by notification: the catch-up poll and the one right after the answer at most; the 5 s
      // interval never came round.
      expect(log.pollsOf((await handle.created) as string).length).toBeLessThanOrEqual(2);
      // The question really went out twice on the pipe (the server reports what it wrote once it exits).
      await client.close();
      await log.ended;
      const askedOnPipe = log.sent.filter(
        (entry) => entry.method === "notifications/tasks" && entry.params["status"] === "input_required",
      );
      expect(askedOnPipe).toHaveLength(2);
      expect(askedOnPipe[1]?.params).toEqual(askedOnPipe[0]?.params);
    },
    TIMEOUT_MS,
  );

  it(
    "demultiplexes two concurrent listens on the one pipe by subscription id; close() cancels the open one",
    async () => {
      const { logger, lines } = recordingLogger();
      const { client, log } = await setUp("plain", { logger });
      const waiting = client.callTool("lasting");
      await waiting.created;
      await until(() => lines.some((line) => line.includes("pushed")), "the first listen's acknowledgement");
      const first = client.callTool("long");
      const second = client.callTool("long");
      const steps = new Map<string, string[]>();
      for (const handle of [first, second]) {
        handle.on("update", (update) => {
          const taskId = update.taskId ?? "(none)";
          steps.set(taskId, [...(steps.get(taskId) ?? []), update.statusMessage ?? update.status]);
        });
      }
      await Promise.all([first, second]);
      await log.settled();
      const ids = [await first.created, await second.created] as string[];
      const listens = log.forMethod("subscriptions/listen");
      expect(listens.length).toBeGreaterThanOrEqual(2);
      expect(log.listenedIds(listens[0])).toEqual([await waiting.created]);
      // The long tasks were listened for on a stream of their own while the first stayed open.
      expect(
        listens
          .slice(1)
          .flatMap((entry) => log.listenedIds(entry) as string[])
          .sort(),
      ).toEqual([...ids].sort());
      expect(log.cancelledIds()).not.toContain(listens[0]?.message.id);
      for (const taskId of ids) {
        expect(log.pollsOf(taskId).length).toBeLessThanOrEqual(1);
        // Each task saw its own later steps, pushed, in order.
        const own = (steps.get(taskId) ?? []).filter((message) => message.startsWith("step "));
        expect(own.length).toBeGreaterThan(3);
        expect(own.map((message) => Number(message.slice(5)))).toEqual(
          [...own.map((message) => Number(message.slice(5)))].sort((a, b) => a - b),
        );
      }
      await client.close();
      await until(() => log.cancelledIds().includes(listens[0]?.message.id), "the open listen's cancel");
      expect((await waiting.outcome()).kind).toBe("closed");
    },
    TIMEOUT_MS,
  );

  it(
    "close() ends every listen and lets both processes exit on their own",
    async () => {
      // A client process connects to the stdio server (its grandchild, whose stderr it inherits), waits for
      // the acknowledgement, closes, and must then exit without help; so must the server once its stdin ends.
      const child = spawn(process.execPath, ["--import", "tsx", CLOSER, "stdio", "long"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      const log = new ServerLog();
      log.read(child.stderr);
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      const stderrEnded = new Promise<void>((resolve) => child.stderr.once("end", resolve));
      const code = await new Promise<number | null>((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill();
          reject(new Error(`the client process did not exit on its own; it said ${JSON.stringify(stdout)}`));
        }, 20_000);
        child.on("exit", (exitCode) => {
          clearTimeout(timer);
          resolve(exitCode);
        });
      });
      expect(code).toBe(0);
      expect(stdout.trim()).toBe("acknowledged closed");
      // stderr ends only once every holder is gone: the server process exited too.
      await stderrEnded;
      const listens = log.forMethod("subscriptions/listen");
      expect(listens).toHaveLength(1);
      expect(log.cancelledIds()).toEqual([listens[0]?.message.id]);
      const cancel = log.forMethod("notifications/cancelled")[0];
      expect(cancel?.message.params?.["_meta"] ?? {}).not.toHaveProperty(SUBSCRIPTION_ID);
    },
    TIMEOUT_MS,
  );
});
