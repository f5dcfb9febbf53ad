/**
 * Isolation and recovery of a host's servers, against reference servers over real HTTP and stdio: a server down
 * at start leaves the others usable and is connected again in the background once it is back; a stdio server
 * whose process dies is connected again and the tasks its handles followed are followed again (a 2025-11-25
 * server's with 2025-11-25 requests, outside any session: stdio has none); a server's
 * `tools/list_changed` renames its part of `listTools()`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { TaskEndedError, TransportError } from "mcp-tasks";
import type { McpTransport } from "mcp-tasks/transport";
import { TaskHost, type HostTask, type ServerStatus } from "mcp-tasks/host";
import { resolveTransport } from "../../../src/session/targets.js";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
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
function dyingStdio(args: string[]): { target: { command: string; args: string[] }; kill(): void } {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-host-crash-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const marker = join(dir, "started-once");
  const kill = join(dir, "kill");
  const script = `
    const { existsSync, writeFileSync } = await import("node:fs");
    const { pathToFileURL } = await import("node:url");
    const [marker, kill, bin, ...args] = process.argv.slice(1);
    if (!existsSync(marker)) {
      writeFileSync(marker, "");
      setInterval(() => existsSync(kill) && process.exit(0), 20).unref();
    }
    process.argv = [process.argv[0], bin, ...args];
    await import(pathToFileURL(bin).href);`;
  return {
    target: {
      command: process.execPath,
      args: ["--input-type=module", "-e", script, marker, kill, BIN, "--stdio", ...args],
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

/** Resolves with the tasks of the host's next `resumed` event. */
function nextResumed(host: TaskHost): Promise<HostTask[]> {
  return new Promise((resolve) => host.once("resumed", (_server, tasks) => resolve(tasks)));
}

describe("a stdio server whose process dies", () => {
  it("is connected again, and the tasks its handles followed are followed again", async () => {
    const { host, local } = await hostWithDying([]);
    const first = host.callTool("local__slow_compute", { seconds: 600 });
    const taskId = (await first.ref)?.taskId;
    const resumed = nextResumed(host);
    const failed = nextState(host, "local", "failed");

    local.kill();
    expect((await failed).error).toBeInstanceOf(TransportError);
    expect((await first.outcome()).kind).toBe("closed");
    await nextState(host, "local", "ready");
    // The task its handle followed is followed again on the new connection (the new process never ran it, and
    // says so: a server that kept its tasks would carry on).
    const [carried] = await resumed;
    expect(carried?.server).toBe("local");
    expect(carried?.handle.taskId).toBe(taskId);
    expect(textOf(await host.callTool("local__greet", { name: "Ada" }))).toBe("Hello, Ada!");
  });

  it("of the 2025-11-25 generation: its task is followed again on the new process, outside any session (stdio has none)", async () => {
    const { host, local } = await hostWithDying(["--era", "2025-11-25"]);
    const first = host.callTool("local__slow_compute", { seconds: 600 });
    const ref = await first.ref;
    expect(ref?.era).toBe("legacy");
    // stdio has no sessions: nothing binds the task to one.
    expect(ref?.session).toBeUndefined();
    const resumed = nextResumed(host);
    const failed = nextState(host, "local", "failed");

    local.kill();
    expect((await failed).error).toBeInstanceOf(TransportError);
    const closed = await first.outcome();
    expect(closed.kind).toBe("closed");
    expect(closed.kind === "closed" && closed.error).toBeInstanceOf(TaskEndedError);
    expect(closed.kind === "closed" && closed.error.taskId).toBe(ref?.taskId);
    await nextState(host, "local", "ready");

    const [carried] = await resumed;
    expect(carried?.server).toBe("local");
    expect(carried?.handle).not.toBe(first);
    expect(host.tasks()).toContainEqual({ server: "local", handle: carried?.handle });
    const again = await carried?.handle.ref;
    expect(again?.taskId).toBe(ref?.taskId);
    expect(again?.era).toBe("legacy");
    expect(again?.session).toBeUndefined();
    // The new process never ran the task (the reference server keeps tasks in memory), and says so.
    const outcome = await carried?.handle.outcome();
    expect(outcome?.kind).toBe("not_found");
    expect(outcome?.kind === "not_found" && outcome.error).toBeInstanceOf(TaskEndedError);
    expect(outcome?.kind === "not_found" && outcome.error.kind).toBe("not_found");
    expect(outcome?.kind === "not_found" && outcome.error.taskId).toBe(ref?.taskId);
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
