/**
 * Isolation and recovery of a host's servers, against reference servers over real HTTP and stdio: a server down
 * at start leaves the others usable and is connected again in the background once it is back; a stdio server
 * whose process dies mid-task is connected again and the handles users hold go on (Decision 22): resolved with the
 * task's result by a next process that knows the task, ended `not_found` by one that never did (a 2025-11-25
 * server's initialized again, its task followed outside any session: stdio has none), ended `closed` only with
 * `reconnect: false`; an HTTP server restarted on the same port is no drop, its failed polls retried and the same
 * handle resolved; a server's `tools/list_changed` renames its part of `listTools()`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { PassThrough } from "node:stream";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { TaskEndedError, TransportError } from "mcp-tasks";
import type { McpTransport } from "mcp-tasks/transport";
import { TaskHost, type ServerStatus } from "mcp-tasks/host";
import { resolveTransport } from "../../../src/session/targets.js";
import {
  defineTool,
  fixtureTools,
  startStdioTaskServer,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
  type TaskServer,
  type TaskServerEra,
} from "mcp-tasks/testing";
import { TIME_SCALE, fastClient, textOf } from "../client/fixture-calls.js";

const BIN = fileURLToPath(new URL("../../../bin/mcp-tasks-server.js", import.meta.url));
/** Quick retries, so a server that comes back is picked up within a fraction of a second. */
const RECONNECT = { retries: 100, minTimeoutMs: 20, maxTimeoutMs: 100 };

let alpha: HttpTaskServer;
let beta: HttpTaskServer;

beforeAll(async () => {
  [alpha, beta] = await Promise.all([
    startTaskServer({ tools: fixtureTools({ timeScale: TIME_SCALE }) }),
    startTaskServer({ tools: fixtureTools({ timeScale: TIME_SCALE }) }),
  ]);
});
afterAll(async () => {
  await Promise.all([alpha?.close(), beta?.close()]);
});

/** Resolves with the next status of `server` in `state`. */
function nextState(host: TaskHost, server: string, state: ServerStatus["state"]): Promise<ServerStatus> {
  return new Promise((resolve) => {
    const listener = (status: ServerStatus) => {
      if (status.name !== server || status.state !== state) return;
      host.off("server", listener);
      resolve(status);
    };
    host.on("server", listener);
  });
}

describe("a server down at start", () => {
  it("leaves the others usable, and is connected again when it comes back", async () => {
    // A free port, with nothing listening on it yet.
    const probe = await startTaskServer({ tools: [] });
    const port = Number(new URL(probe.url).port);
    await probe.close();

    const host = await TaskHost.connect({
      servers: {
        alpha: alpha.url,
        late: probe.url,
        local: { command: process.execPath, args: [BIN, "--stdio"] },
      },
      reconnect: RECONNECT,
      ...fastClient,
    });
    onTestFinished(() => host.close());
    expect(host.servers.map((status) => `${status.name}:${status.state}`)).toEqual([
      "alpha:ready",
      "late:failed",
      "local:ready",
    ]);
    expect(() => host.callTool("late__greet", { name: "Ada" })).toThrow(TransportError);
    expect(() => host.callTool("late__greet", { name: "Ada" })).toThrow('server "late" is failed');
    expect(textOf(await host.callTool("alpha__greet", { name: "Ada" }))).toBe("Hello, Ada!");
    expect(textOf(await host.callTool("local__greet", { name: "Ada" }))).toBe("Hello, Ada!");

    const ready = nextState(host, "late", "ready");
    const late = await startTaskServer({ port, tools: fixtureTools({ timeScale: TIME_SCALE }) });
    onTestFinished(() => late.close());
    expect(await ready).toEqual({ name: "late", state: "ready", supportsTasks: true });
    // Named and callable as soon as it is reported ready.
    expect(textOf(await host.callTool("late__greet", { name: "Ada" }))).toBe("Hello, Ada!");
    expect((await host.listTools()).filter((tool) => tool.server === "late")).toHaveLength(
      (await host.client("alpha")?.listTools())?.length as number,
    );
  });
});

/**
 * A stdio reference server (`args` after `--stdio`) whose first process exits as soon as `kill()` is called; the
 * processes started after it run on.
 */
function dyingStdio(
  args: string[],
  /** Every process after the first exits at once (a server that cannot start again). */
  laterExitAtOnce = false,
): { target: { command: string; args: string[] }; kill(): void } {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-host-crash-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const marker = join(dir, "started-once");
  const kill = join(dir, "kill");
  const script = `
    const { existsSync, writeFileSync } = await import("node:fs");
    const { pathToFileURL } = await import("node:url");
    const [marker, kill, once, bin, ...args] = process.argv.slice(1);
    if (existsSync(marker) && once === "once") process.exit(1);
    if (!existsSync(marker)) {
      writeFileSync(marker, "");
      setInterval(() => existsSync(kill) && process.exit(0), 20).unref();
    }
    process.argv = [process.argv[0], bin, ...args];
    await import(pathToFileURL(bin).href);`;
  return {
    target: {
      command: process.execPath,
      args: [
        "--input-type=module",
        "-e",
        script,
        marker,
        kill,
        laterExitAtOnce ? "once" : "again",
        BIN,
        "--stdio",
        ...args,
      ],
    },
    kill: () => writeFileSync(kill, ""),
  };
}

/** A host of alpha and `local`, a dying stdio reference server (`args` are its own, besides the time scale). */
async function hostWithDying(args: string[]): Promise<{ host: TaskHost; local: { kill(): void } }> {
  const local = dyingStdio([...args, "--time-scale", String(TIME_SCALE)]);
  const host = await TaskHost.connect({
    servers: { alpha: alpha.url, local: local.target },
    reconnect: RECONNECT,
    ...fastClient,
  });
  onTestFinished(() => host.close());
  return { host, local };
}

/** Counts the host's `resumed` events: a reconnect carries the same handles on, so it announces none. */
function countResumed(host: TaskHost): { count: number } {
  const seen = { count: 0 };
  host.on("resumed", () => void seen.count++);
  return seen;
}

describe("a stdio server whose process dies mid-task", () => {
  it("is connected again, and the same handle goes on: it ends not_found when the new process never knew the task", async () => {
    const { host, local } = await hostWithDying([]);
    const resumed = countResumed(host);
    const first = host.callTool("local__slow_compute", { seconds: 600 });
    const taskId = (await first.ref)?.taskId;
    const failed = nextState(host, "local", "failed");
    const ready = nextState(host, "local", "ready");

    local.kill();
    expect((await failed).error).toBeInstanceOf(TransportError);
    // Meanwhile the handle waits, still listed with its server.
    expect(host.tasks()).toContainEqual({ server: "local", handle: first });
    await ready;
    // The same handle asks the new process, which never ran the task (the reference server keeps tasks in
    // memory) and says so: the truthful outcome, not `closed`.
    const outcome = await first.outcome();
    expect(outcome.kind).toBe("not_found");
    expect(outcome.kind === "not_found" && outcome.error.taskId).toBe(taskId);
    expect(resumed.count).toBe(0);
    expect(textOf(await host.callTool("local__greet", { name: "Ada" }))).toBe("Hello, Ada!");
  });

  it("of the 2025-11-25 generation: the same handle goes on with 2025-11-25 requests on the new process, outside any session (stdio has none)", async () => {
    const { host, local } = await hostWithDying(["--era", "2025-11-25"]);
    const first = host.callTool("local__slow_compute", { seconds: 600 });
    const ref = await first.ref;
    expect(ref?.era).toBe("legacy");
    // stdio has no sessions: nothing binds the task to one.
    expect(ref?.session).toBeUndefined();
    const failed = nextState(host, "local", "failed");
    const ready = nextState(host, "local", "ready");

    local.kill();
    expect((await failed).error).toBeInstanceOf(TransportError);
    await ready;
    // The new process was initialized again (2025-11-25) and asked for the task: it never ran it.
    const outcome = await first.outcome();
    expect(outcome.kind).toBe("not_found");
    expect(outcome.kind === "not_found" && outcome.error).toBeInstanceOf(TaskEndedError);
    expect(outcome.kind === "not_found" && outcome.error.taskId).toBe(ref?.taskId);
    expect(textOf(await host.callTool("local__greet", { name: "Ada" }))).toBe("Hello, Ada!");
  });

  it("that cannot start again: the attempts run out, and its handles end closed, carrying their task ids", async () => {
    const local = dyingStdio(["--time-scale", String(TIME_SCALE)], true);
    const host = await TaskHost.connect({
      servers: { local: local.target },
      reconnect: { retries: 3, minTimeoutMs: 10, maxTimeoutMs: 20 },
      ...fastClient,
    });
    onTestFinished(() => host.close());
    const states: string[] = [];
    host.on("server", (status) => void states.push(status.state));
    const first = host.callTool("local__slow_compute", { seconds: 600 });
    const taskId = (await first.ref)?.taskId;

    local.kill();
    // A process that exits at once is not back: no attempt counts as a success, so the attempts run out.
    const outcome = await first.outcome();
    expect(outcome.kind).toBe("closed");
    expect(outcome.kind === "closed" && outcome.error.taskId).toBe(taskId);
    expect(states).toEqual(["failed"]);
    expect(host.servers[0]?.state).toBe("failed");
  });

  it("with reconnect off, is closed: its handles end closed, carrying their task ids", async () => {
    const local = dyingStdio(["--time-scale", String(TIME_SCALE)]);
    const host = await TaskHost.connect({
      servers: { local: local.target },
      reconnect: false,
      ...fastClient,
    });
    onTestFinished(() => host.close());
    const first = host.callTool("local__slow_compute", { seconds: 600 });
    const taskId = (await first.ref)?.taskId;
    const closed = nextState(host, "local", "closed");

    local.kill();
    expect((await closed).error).toBeInstanceOf(TransportError);
    const outcome = await first.outcome();
    expect(outcome.kind).toBe("closed");
    expect(outcome.kind === "closed" && outcome.error.taskId).toBe(taskId);
  });
});

/**
 * A stdio server whose tasks outlive its process, as a stdio relay to a task service (`mcp-remote` is one) has:
 * each process started is a relay to one reference server that lives in the test, over a local socket.
 * `kill()` ends the current relay process (the server's tasks stay); the next one started carries on.
 */
async function durableStdio(era: TaskServerEra): Promise<{
  target: { command: string; args: string[] };
  server: TaskServer;
  kill(): void;
}> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const server = await startStdioTaskServer({ era, stdin: toServer, stdout: fromServer, tools: [ticking] });
  let current: Socket | undefined;
  const lines = (chunks: NodeJS.ReadableStream, write: (line: string) => void) => {
    let buffer = "";
    chunks.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        write(buffer.slice(0, end + 1));
        buffer = buffer.slice(end + 1);
      }
    });
  };
  // Whole lines only, each to the process connected now: a process that dies never leaves half a message.
  lines(fromServer, (line) => current?.write(line));
  const relays = createServer((socket) => {
    current = socket;
    socket.on("error", () => undefined);
    socket.on("close", () => {
      if (current === socket) current = undefined;
    });
    lines(socket, (line) => toServer.write(line));
  });
  await new Promise<void>((resolve) => relays.listen(0, "127.0.0.1", resolve));
  const { port } = relays.address() as AddressInfo;
  onTestFinished(async () => {
    current?.destroy();
    await new Promise((resolve) => relays.close(resolve));
    await server.close();
  });
  const script = `
    const { connect } = await import("node:net");
    const socket = connect(Number(process.argv[1]), "127.0.0.1");
    process.stdin.pipe(socket);
    socket.pipe(process.stdout);
    socket.on("close", () => process.exit(0));
    socket.on("error", () => process.exit(1));`;
  return {
    target: { command: process.execPath, args: ["--input-type=module", "-e", script, String(port)] },
    server,
    kill: () => current?.destroy(),
  };
}

/** Advances one step per `tasks/get` (no timer): it cannot finish while nobody polls it. */
const ticking = defineTool({
  name: "ticking",
  task: "required",
  pollIntervalMs: 10,
  steps: [step.working("busy"), step.idle(30), step.complete(textResult("done after the restart"))],
});

describe("a stdio server whose tasks outlive its process", () => {
  it.each(["2026-07-28", "2025-11-25"] as const)(
    "%s: the process dies mid-task, and the same handle resolves with the task's result from the next one",
    async (era) => {
      const durable = await durableStdio(era);
      const host = await TaskHost.connect({
        servers: { local: durable.target },
        reconnect: RECONNECT,
        ...fastClient,
        // Polls only, so the task advances only when the client asks for it.
        notifications: "off",
      });
      onTestFinished(() => host.close());
      const resumed = countResumed(host);
      const handle = host.callTool("local__ticking");
      const taskId = (await handle.ref)?.taskId as string;
      const failed = nextState(host, "local", "failed");
      const ready = nextState(host, "local", "ready");

      durable.kill();
      await failed;
      // Killed mid-task: the server still has it running.
      expect(durable.server.tasks.get(taskId)?.status).toBe("working");
      await ready;
      expect(textOf(await handle)).toBe("done after the restart");
      expect(handle.taskId).toBe(taskId);
      expect(resumed.count).toBe(0);
      expect(host.tasks()).toEqual([]);
    },
  );
});

/**
 * A TCP front on `port` for the server at `url`, whose tasks outlive it: `restart()` stops listening and cuts every
 * connection, then listens on the same port again after `gapMs` (a server process restarted over a durable store).
 */
async function restartingFront(url: string): Promise<{ url: string; restart(gapMs: number): Promise<void> }> {
  const backend = Number(new URL(url).port);
  const sockets = new Set<Socket>();
  const front = createServer((client) => {
    const upstream = connect(backend, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve) => front.listen(port, "127.0.0.1", () => resolve()));
  await listen(0);
  const { port } = front.address() as AddressInfo;
  onTestFinished(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => front.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    restart: async (gapMs) => {
      const closed = new Promise((resolve) => front.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
      await new Promise((resolve) => setTimeout(resolve, gapMs));
      await listen(port);
    },
  };
}

describe("an HTTP server restarted on the same port mid-task", () => {
  it("is not a drop: failed polls are retried, and the same handle resolves with the task's result", async () => {
    const server = await startTaskServer({ tools: [ticking] });
    onTestFinished(() => server.close());
    const front = await restartingFront(server.url);
    const host = await TaskHost.connect({
      servers: { remote: front.url },
      reconnect: RECONNECT,
      ...fastClient,
      notifications: "off",
    });
    onTestFinished(() => host.close());
    const states: string[] = [];
    host.on("server", (status) => void states.push(status.state));
    const handle = host.callTool("remote__ticking");
    const taskId = (await handle.ref)?.taskId as string;
    const retries: unknown[] = [];
    handle.on("retry", ({ error }) => void retries.push(error));

    await front.restart(30);
    // Restarted mid-task: the server still has it running.
    expect(server.tasks.get(taskId)?.status).toBe("working");
    expect(textOf(await handle)).toBe("done after the restart");
    expect(handle.taskId).toBe(taskId);
    // The restart was felt (polls failed and were retried), and the server never counted as down.
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toBeInstanceOf(TransportError);
    expect(states).toEqual([]);
  });
});

describe("tools/list_changed", () => {
  it("renames the tools of the server that sent it", async () => {
    let reveal = false;
    const transport = await resolveTransport(beta.url);
    const listIds = new Set<unknown>();
    let deliver: ((message: unknown) => void) | undefined;
    // The real transport, except that `whoami`-like hiding: `greet` is left out of tools/list until revealed.
    const shy: McpTransport = new Proxy(transport, {
      get(target, property) {
        if (property === "send") {
          return (message: { id?: unknown; method?: string }, options?: unknown) => {
            if (message.method === "tools/list") listIds.add(message.id);
            return (target.send as (m: unknown, o?: unknown) => Promise<void>)(message, options);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? (value as () => unknown).bind(target) : value;
      },
      set(target, property, value) {
        if (property !== "onmessage") return Reflect.set(target, property, value, target);
        deliver = value as (message: unknown) => void;
        target.onmessage = ((message: { id?: unknown; result?: { tools?: { name: string }[] } }) => {
          if (!reveal && listIds.has(message.id) && message.result?.tools) {
            message.result.tools = message.result.tools.filter((tool) => tool.name !== "greet");
          }
          deliver?.(message);
        }) as McpTransport["onmessage"];
        return true;
      },
    });
    const host = await TaskHost.connect({ servers: { alpha: alpha.url, shy }, ...fastClient });
    onTestFinished(() => host.close());
    expect((await host.listTools()).map((tool) => tool.qualifiedName)).not.toContain("shy__greet");
    expect(() => host.callTool("shy__greet", { name: "Ada" })).toThrow("no server has a tool");

    const changed = new Promise<string>((resolve) => host.once("tools", resolve));
    reveal = true;
    deliver?.({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    expect(await changed).toBe("shy");
    expect(textOf(await host.callTool("shy__greet", { name: "Ada" }))).toBe("Hello, Ada!");
    expect((await host.listTools()).map((tool) => tool.qualifiedName)).toContain("shy__greet");
  });
});
