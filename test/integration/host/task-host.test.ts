/**
 * A `TaskHost` over three reference servers: two over real Streamable HTTP on 127.0.0.1 and one over stdio (the
 * `mcp-tasks-server --stdio` child process). Calls go to the server their qualified name names; two tools under
 * one name are refused; a server down at start is "failed" while the others work; `close()` ends in bounded time;
 * `fromConfig` reads a Claude-style file and a VS Code object.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { TransportError } from "mcp-tasks";
import { TaskHost, type ServerStatus } from "mcp-tasks/host";
import { resolveTransport } from "../../../src/session/targets.js";
import {
  defineTool,
  fixtureTools,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "mcp-tasks/testing";
import { TIME_SCALE, fastClient, textOf } from "../client/fixture-calls.js";

const BIN = fileURLToPath(new URL("../../../bin/mcp-tasks-server.js", import.meta.url));
const STDIO = { command: process.execPath, args: [BIN, "--stdio", "--time-scale", String(TIME_SCALE)] };

/** A tool that answers with the name of the server it runs on. */
function whoami(name: string) {
  return defineTool({
    name: "whoami",
    task: "never",
    steps: [step.complete(() => textResult(name))],
  });
}

let alpha: HttpTaskServer;
let beta: HttpTaskServer;
/** The URL of a server that has stopped: nothing listens there. */
let downUrl: string;

beforeAll(async () => {
  alpha = await startTaskServer({ tools: [...fixtureTools({ timeScale: TIME_SCALE }), whoami("alpha")] });
  beta = await startTaskServer({ tools: [...fixtureTools({ timeScale: TIME_SCALE }), whoami("beta")] });
  const stopped = await startTaskServer({ tools: [] });
  downUrl = stopped.url;
  await stopped.close();
});
afterAll(async () => {
  await alpha?.close();
  await beta?.close();
});

function toolCalls(server: HttpTaskServer): unknown[] {
  return server.requests
    .forMethod("tools/call")
    .map((entry) => (entry.body as { params: { name: string } }).params.name);
}

describe("a host over two HTTP servers and one stdio server", () => {
  let host: TaskHost;
  beforeAll(async () => {
    host = await TaskHost.connect({
      servers: { alpha: alpha.url, beta: { url: beta.url }, local: STDIO },
      ...fastClient,
    });
  });
  afterAll(async () => {
    await host?.close();
  });

  it("reports every server ready, with tasks support", () => {
    expect(host.servers).toEqual([
      { name: "alpha", state: "ready", supportsTasks: true },
      { name: "beta", state: "ready", supportsTasks: true },
      { name: "local", state: "ready", supportsTasks: true },
    ]);
  });

  it("lists every server's tools under server__tool", async () => {
    const tools = await host.listTools();
    const names = tools.map((tool) => tool.qualifiedName);
    expect(names).toContain("alpha__whoami");
    expect(names).toContain("beta__whoami");
    expect(names).toContain("local__slow_compute");
    expect(names).not.toContain("local__whoami");
    expect(tools.find((tool) => tool.qualifiedName === "beta__greet")).toMatchObject({
      server: "beta",
      name: "greet",
    });
  });

  it("routes each call to the server its qualified name names", async () => {
    expect(textOf(await host.callTool("alpha__whoami"))).toBe("alpha");
    expect(textOf(await host.callTool("beta__whoami"))).toBe("beta");
    const before = [toolCalls(alpha).length, toolCalls(beta).length];
    const handle = host.callTool("local__slow_compute", { seconds: 1, label: "over stdio" });
    expect(host.tasks()).toContainEqual({ server: "local", handle });
    expect(textOf(await handle)).toBe('Computed "over stdio" in 1s');
    // Nothing of the stdio call reached the HTTP servers.
    expect([toolCalls(alpha).length, toolCalls(beta).length]).toEqual(before);
    expect(host.client("local")?.server.serverInfo?.name).toBe("mcp-tasks-reference-server");
  });

  it("has no public emit: callers listen through on, once and off, only the host emits", async () => {
    // @ts-expect-error `emit` is not part of TaskHost's type
    expect(host.emit).toBeUndefined();
    expect("emit" in host).toBe(false);
    // @ts-expect-error nor are the rest of EventEmitter's members
    expect(host.removeAllListeners).toBeUndefined();

    const other = await TaskHost.connect({ servers: { alpha: alpha.url }, ...fastClient });
    const seen: string[] = [];
    const removed: string[] = [];
    const onRemoved = (status: ServerStatus) => void removed.push(status.name);
    const first = new Promise<ServerStatus>((resolve) => {
      expect(
        other
          .on("server", (status) => void seen.push(`${status.name}:${status.state}`))
          .once("server", resolve)
          .on("server", onRemoved)
          .off("server", onRemoved),
      ).toBe(other);
    });
    await other.close();
    expect(await first).toMatchObject({ name: "alpha", state: "closed" });
    expect(seen).toEqual(["alpha:closed"]);
    expect(removed).toEqual([]);
  });

  it("refuses a name no server has", () => {
    expect(() => host.callTool("alpha__nope")).toThrow('TaskHost: no server has a tool named "alpha__nope"');
  });
});

describe("failures", () => {
  it("refuses two tools that map to one name, naming both, and closes what it opened", async () => {
    const connecting = TaskHost.connect({
      servers: { alpha: alpha.url, beta: beta.url },
      toolName: (_server, tool) => tool,
      ...fastClient,
    });
    await expect(connecting).rejects.toThrow(
      'TaskHost: tool "greet" of server "alpha" and tool "greet" of server "beta" both map to "greet"',
    );
  });

  it("connects the others when one server is down at start; its tools reject at once naming it", async () => {
    const host = await TaskHost.connect({
      servers: { alpha: alpha.url, down: downUrl, local: STDIO },
      ...fastClient,
    });
    onTestFinished(() => host.close());
    const [first, down, third] = host.servers as [ServerStatus, ServerStatus, ServerStatus];
    expect(first).toEqual({ name: "alpha", state: "ready", supportsTasks: true });
    expect(third).toEqual({ name: "local", state: "ready", supportsTasks: true });
    expect(down.state).toBe("failed");
    expect(down.error).toBeInstanceOf(TransportError);
    expect(host.client("down")).toBeUndefined();

    const call = () => host.callTool("down__greet", { name: "Ada" });
    expect(call).toThrow(TransportError);
    expect(call).toThrow('server "down" is failed');
    expect(textOf(await host.callTool("alpha__greet", { name: "Ada" }))).toBe("Hello, Ada!");
    expect(textOf(await host.callTool("local__greet", { name: "Ada" }))).toBe("Hello, Ada!");
  });

  it("close() ends every server's tasks and reports each server closed", async () => {
    const host = await TaskHost.connect({
      servers: { alpha: alpha.url, beta: beta.url, local: STDIO },
      ...fastClient,
    });
    const changes: string[] = [];
    host.on("server", (status) => changes.push(`${status.name}:${status.state}`));
    const handles = ["alpha", "beta", "local"].map((server) =>
      host.callTool(`${server}__slow_compute`, { seconds: 600 }),
    );
    const outcomes = handles.map((handle) => handle.outcome());
    await host.close();
    expect((await Promise.all(outcomes)).map((outcome) => outcome.kind)).toEqual([
      "closed",
      "closed",
      "closed",
    ]);
    expect(host.servers.map((server) => server.state)).toEqual(["closed", "closed", "closed"]);
    expect(changes.sort()).toEqual(["alpha:closed", "beta:closed", "local:closed"]);
    expect(() => host.callTool("alpha__greet")).toThrow("closed");
  });

  it("close() returns after closeTimeoutMs even when a server's connection never finishes closing", async () => {
    const warnings: string[] = [];
    const transport = await resolveTransport(alpha.url);
    // The real transport, except that its close never resolves (it still closes underneath).
    const hanging = new Proxy(transport, {
      get(target, property) {
        if (property === "close") {
          return () => {
            void target.close();
            return new Promise<void>(() => undefined);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? (value as () => unknown).bind(target) : value;
      },
      set(target, property, value) {
        return Reflect.set(target, property, value, target);
      },
    });
    const host = await TaskHost.connect({
      servers: { hanging, beta: beta.url },
      closeTimeoutMs: 200,
      ...fastClient,
      logger: { ...console, warn: (message: string) => warnings.push(message) },
    });
    const started = performance.now();
    await host.close();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(warnings.filter((message) => message.startsWith("TaskHost:"))).toEqual([
      "TaskHost: closing servers hanging took over 200 ms",
    ]);
  });
});

describe("TaskHost.fromConfig", () => {
  it("connects to the enabled servers of a Claude-style file, expanding ${env:NAME}", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-host-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "claude_desktop_config.json");
    process.env["MCP_TASKS_HOST_TEST_SCALE"] = String(TIME_SCALE);
    onTestFinished(() => {
      delete process.env["MCP_TASKS_HOST_TEST_SCALE"];
    });
    writeFileSync(
      path,
      JSON.stringify({
        mcpServers: {
          alpha: { url: alpha.url },
          local: {
            command: process.execPath,
            args: [BIN, "--stdio", "--time-scale", "${env:MCP_TASKS_HOST_TEST_SCALE}"],
          },
          off: { command: "never-started", disabled: true },
        },
      }),
    );
    const host = await TaskHost.fromConfig(path, fastClient);
    onTestFinished(() => host.close());
    expect(host.servers.map((server) => `${server.name}:${server.state}`)).toEqual([
      "alpha:ready",
      "local:ready",
    ]);
    expect(textOf(await host.callTool("local__slow_compute", { seconds: 1, label: "from config" }))).toBe(
      'Computed "from config" in 1s',
    );
  });

  it("connects to the servers of a VS Code config object", async () => {
    const host = await TaskHost.fromConfig(
      { servers: { beta: { type: "http", url: beta.url } } },
      fastClient,
    );
    onTestFinished(() => host.close());
    expect(textOf(await host.callTool("beta__whoami"))).toBe("beta");
  });

  it("rejects a malformed file naming the file and the field", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-host-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "mcp.json");
    writeFileSync(path, JSON.stringify({ mcpServers: { bad: { command: "x", args: "not-a-list" } } }));
    await expect(TaskHost.fromConfig(path)).rejects.toThrow(
      `${path}: mcpServers.bad.args must be an array of strings`,
    );
    await expect(TaskHost.fromConfig(join(dir, "missing.json"))).rejects.toThrow(
      `TaskHost.fromConfig: cannot read ${join(dir, "missing.json")}`,
    );
  });
});
