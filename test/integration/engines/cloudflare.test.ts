/**
 * `mcp-tasks/cloudflare` in workerd, Cloudflare Workers' runtime: a Durable Object whose storage is on disk, so it
 * survives workerd being killed (SIGKILL: the object is evicted without a word) and started again. The object
 * calls a tool of the reference server, workerd is killed mid-task, and after the restart the object's alarm,
 * with no request sent to the object, resumes the task and reports its result; the server saw one `tools/call`.
 * A cancel, or an input answer, stored while the server is unreachable survives a kill too and goes out once.
 * Killed after the server created a task but before its answer to `tools/call` reached the object (a proxy holds
 * it), the object holds nothing of the task: no record, no alarm, no event, and the task runs on unfollowed.
 * workerd comes from its devDependency; a missing binary fails the test.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../fixtures/free-port.js";
import { bundleWorker, startWorker, type RunningWorker } from "../../runtimes/workerd.js";
import { startFaultProxy } from "../lifecycle/fault-proxy.js";
import { agentTools } from "./cloudflare-tools.js";
import { heldAnswer } from "./tools.js";

const ROOT = resolve(import.meta.dirname, "../../..");

let dir: string;
let server: HttpTaskServer | undefined;
let workerd: RunningWorker | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcp-tasks-do-"));
  // The source entries, bundled as wrangler would (the `workerd` conditions; the Node-only imports swapped).
  await bundleWorker(dir, join(import.meta.dirname, "cloudflare-worker.ts"), {
    "mcp-tasks/cloudflare": join(ROOT, "src/engines/cloudflare.ts"),
    "mcp-tasks": join(ROOT, "src/index.ts"),
    "#http": join(ROOT, "src/session/http-undici-unavailable.ts"),
    "#stdio": join(ROOT, "src/session/stdio-unavailable.ts"),
  });
}, 60_000);

afterEach(async () => {
  await workerd?.kill();
  workerd = undefined;
  await server?.close();
  server = undefined;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a Durable Object's tasks, followed by its alarm (workerd, storage on disk)", () => {
  it("workerd killed mid-task: after the restart the alarm resumes the task and reports its result; one tools/call", async () => {
    server = await startTaskServer({ tools: agentTools(200) });
    const storage = freshStorage("resume");
    workerd = await startAgent(storage, server.url);
    const call = (await get(workerd, "/call?tool=build_report")) as { taskId: string };
    expect(call.taskId).toEqual(expect.any(String));
    // The alarm polls once (the task moves to "Writing"); then the object is evicted without a word.
    await until(() => server!.requests.forMethod("tasks/get").length >= 1, "the first alarm poll");
    await workerd.kill();
    const pollsBefore = server.requests.forMethod("tasks/get").length;

    workerd = await startAgent(storage, server.url);
    // No request reaches the object: its alarm, stored on disk, fires and polls the task to its end.
    await until(
      () => server!.requests.forMethod("tasks/get").length >= pollsBefore + 2,
      "the alarm's polls after the restart",
    );
    const events = await untilEvent(workerd, (event) => event.type === "settled");
    expect(events.filter((event) => event.type === "settled")).toEqual([
      { type: "settled", taskId: call.taskId, kind: "completed", text: "report ready" },
    ]);
    expect(server.requests.forMethod("tools/call")).toHaveLength(1);
    // The record is gone and no alarm is left for it.
    expect(await get(workerd, "/tasks")).toEqual([]);
  }, 90_000);

  it("a cancel stored while the server is unreachable survives a kill and goes out once", async () => {
    server = await startTaskServer({ tools: agentTools(200) });
    const storage = freshStorage("cancel");
    workerd = await startAgent(storage, server.url);
    const call = (await get(workerd, "/call?tool=endless_job")) as { taskId: string };
    await workerd.kill();

    await whileOffline(storage, `/cancel?taskId=${encodeURIComponent(call.taskId)}`);
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(0);

    workerd = await startAgent(storage, server.url);
    const events = await untilEvent(workerd, (event) => event.type === "settled");
    expect(events.filter((event) => event.type === "settled")).toEqual([
      { type: "settled", taskId: call.taskId, kind: "cancelled" },
    ]);
    const cancels = server.requests.forMethod("tasks/cancel");
    expect(cancels).toHaveLength(1);
    expect((cancels[0]?.body as { params?: { taskId?: string } }).params?.taskId).toBe(call.taskId);
    expect(server.requests.forMethod("tools/call")).toHaveLength(1);
  }, 90_000);

  it("an input answer stored while the server is unreachable survives a kill and is sent once", async () => {
    server = await startTaskServer({ tools: agentTools(200) });
    const storage = freshStorage("input");
    workerd = await startAgent(storage, server.url);
    const call = (await get(workerd, "/call?tool=deploy")) as { taskId: string };
    const asked = await untilEvent(workerd, (event) => event.type === "input");
    expect(asked.filter((event) => event.type === "input")).toEqual([
      { type: "input", taskId: call.taskId, key: "approval", kind: "elicitation" },
    ]);
    await workerd.kill();

    const answer = { action: "accept", content: { ok: true } };
    await whileOffline(storage, `/respond?taskId=${encodeURIComponent(call.taskId)}&key=approval`, answer);
    expect(server.requests.forMethod("tasks/update")).toHaveLength(0);

    workerd = await startAgent(storage, server.url);
    const events = await untilEvent(workerd, (event) => event.type === "settled");
    expect(events.filter((event) => event.type === "settled")).toEqual([
      { type: "settled", taskId: call.taskId, kind: "completed", text: "deployed" },
    ]);
    // Asked once, answered once.
    expect(events.filter((event) => event.type === "input")).toHaveLength(1);
    const updates = server.requests.forMethod("tasks/update");
    expect(updates).toHaveLength(1);
    expect((updates[0]?.body as { params?: unknown }).params).toMatchObject({
      taskId: call.taskId,
      inputResponses: { approval: answer },
    });
    expect(server.requests.forMethod("tools/call")).toHaveLength(1);
  }, 90_000);

  it("workerd killed before the call's answer reached the object: nothing stored, the task runs on unfollowed", async () => {
    server = await startTaskServer({ tools: agentTools(200) });
    const proxy = await startFaultProxy(server.url);
    try {
      // The server creates the task and answers; the proxy never passes the answer on.
      proxy.fault("tools/call", heldAnswer(server.url, new Promise(() => {})), 1);
      const storage = freshStorage("unanswered");
      workerd = await startAgent(storage, proxy.url);
      const call = get(workerd, "/call?tool=endless_job").then(
        () => "answered",
        () => "failed",
      );
      await until(() => server!.tasks.ids().length === 1, "the task on the server");
      const [taskId] = server.tasks.ids();
      await workerd.kill();
      expect(await call).toBe("failed");

      workerd = await startAgent(storage, server.url);
      // The object never learnt the task's id: no record, no alarm to follow it, nothing told to its author.
      expect(await get(workerd, "/tasks")).toEqual([]);
      expect(await get(workerd, "/alarm")).toBeNull();
      expect(await get(workerd, "/events")).toEqual([]);
      expect(server.requests.forMethod("tools/call")).toHaveLength(1);
      expect(server.requests.forMethod("tasks/get")).toHaveLength(0);
      expect(server.tasks.inspect(taskId!)?.task.status).toBe("working");
    } finally {
      await proxy.close();
    }
  }, 90_000);
});

type Event = { type: string; taskId?: string; kind?: string; text?: string };

function freshStorage(name: string): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  return path;
}

/**
 * Offline: the object's MCP_URL is a closed port. The request at `path` is stored, the alarm cannot send it
 * (an `error` event says so), and the object is evicted.
 */
async function whileOffline(storage: string, path: string, body?: unknown): Promise<void> {
  workerd = await startAgent(storage, `http://127.0.0.1:${await freePort()}/mcp`);
  const init = body === undefined ? {} : { method: "POST", body: JSON.stringify(body) };
  expect(await get(workerd, path, init)).toBe(true);
  await untilEvent(workerd, (event) => event.type === "error");
  await workerd.kill();
  workerd = undefined;
}

/** workerd serving the agent, its Durable Object storage in `storage` (a disk service). */
function startAgent(storage: string, mcpUrl: string): Promise<RunningWorker> {
  return startWorker(
    dir,
    (port) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .agent),
    (name = "loopback", network = (allow = ["local"])),
    (name = "do-disk", disk = (path = ${JSON.stringify(storage)}, writable = true)),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const agent :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2025-09-01",
  globalOutbound = "loopback",
  durableObjectNamespaces = [(className = "Agent", uniqueKey = "mcp-tasks-agent")],
  durableObjectStorage = (localDisk = "do-disk"),
  bindings = [
    (name = "AGENT", durableObjectNamespace = "Agent"),
    (name = "MCP_URL", text = ${JSON.stringify(mcpUrl)}),
  ],
);
`,
  );
}

async function get(running: RunningWorker, path: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(`${running.url}${path}`, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}\n${running.output()}`);
  return JSON.parse(text) as unknown;
}

async function untilEvent(running: RunningWorker, wanted: (event: Event) => boolean): Promise<Event[]> {
  let events: Event[] = [];
  await until(
    async () => {
      events = (await get(running, "/events")) as Event[];
      return events.some(wanted);
    },
    `an event in ${JSON.stringify(events)}\n${running.output()}`,
  );
  return events;
}

/** Polls `check` every 50 ms for at most 30 s (real processes: fake timers cannot drive workerd). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}
