/**
 * Isolation and recovery of a host's servers, against reference servers over real HTTP and stdio: a server down
 * at start leaves the others usable and is connected again in the background once it is back; a stdio server
 * whose process dies is connected again and the tasks its handles followed are followed again; a server's
 * `tools/list_changed` renames its part of `listTools()`.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { TransportError } from "mcp-tasks";
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

describe("a stdio server whose process dies", () => {
  it("is connected again, and the tasks its handles followed are followed again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-host-crash-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const marker = join(dir, "started-once");
    const kill = join(dir, "kill");
    // The first process exits as soon as the file `kill` appears; the ones after it run on.
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
    const host = await TaskHost.connect({
      servers: {
        alpha: alpha.url,
        local: {
          command: process.execPath,
          args: [
            "--input-type=module",
            "-e",
            script,
            marker,
            kill,
            BIN,
            "--stdio",
            "--time-scale",
            String(TIME_SCALE),
          ],
        },
      },
      reconnect: RECONNECT,
      ...fastClient,
    });
    onTestFinished(() => host.close());
    const first = host.callTool("local__slow_compute", { seconds: 600 });
    const taskId = (await first.ref)?.taskId;
    const resumed = new Promise<HostTask[]>((resolve) =>
      host.once("resumed", (_server, tasks) => resolve(tasks)),
    );
    const failed = nextState(host, "local", "failed");

    writeFileSync(kill, "");
    expect((await failed).error).toBeInstanceOf(TransportError);
    expect((await first.outcome()).kind).toBe("closed");
    await nextState(host, "local", "ready");
    expect(existsSync(marker)).toBe(true);
    // The task its handle followed is followed again on the new connection (the new process never ran it, and
    // says so: a server that kept its tasks would carry on).
    const [carried] = await resumed;
    expect(carried?.server).toBe("local");
    expect(carried?.handle.taskId).toBe(taskId);
    expect(textOf(await host.callTool("local__greet", { name: "Ada" }))).toBe("Hello, Ada!");
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
