/**
 * `mcp-tasks/temporal` in a real Temporal activity context (`@temporalio/testing`'s MockActivityEnvironment:
 * heartbeats, cancellation, attempts and recorded heartbeat details as the worker gives them) against the
 * reference server over HTTP on 127.0.0.1. A worker killed mid-task (SIGKILL, in a child process) leaves its
 * heartbeat details behind; the retry, given those details as Temporal would give them, follows the same task,
 * and the server's request log proves the tool was called once.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ActivityCancellationDetails } from "@temporalio/common";
import { ApplicationFailure, CancelledFailure } from "@temporalio/common";
import { MockActivityEnvironment } from "@temporalio/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type CallToolResult } from "mcp-tasks";
import { callToolInActivity, type ToolActivityDetails } from "mcp-tasks/temporal";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { startFaultProxy } from "../lifecycle/fault-proxy.js";
import { callsOf, cancelsOf, engineTools } from "./tools.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const child = fileURLToPath(new URL("./temporal-child.ts", import.meta.url));
/** A TypeScript process that loads the Temporal SDK may take several seconds to boot on a loaded machine. */
const CHILD_MS = 90_000;

const POLLING = { polling: { defaultIntervalMs: 30, minIntervalMs: 10, jitter: 0 } };

let server: HttpTaskServer;
let client: TaskClient;

beforeAll(async () => {
  server = await startTaskServer({
    tools: engineTools(10),
  });
  client = await TaskClient.connect(server.url, POLLING);
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

/** Temporal's worker logs every failed activity as a warning; these fail on purpose. */
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** An activity environment that records its heartbeats. */
function activity(info: ConstructorParameters<typeof MockActivityEnvironment>[0] = {}) {
  const environment = new MockActivityEnvironment({ heartbeatTimeoutMs: 300, ...info }, { logger: quiet });
  const beats: ToolActivityDetails[] = [];
  environment.on("heartbeat", (details: ToolActivityDetails) => beats.push(details));
  return { environment, beats };
}

/** Runs the activity (MockActivityEnvironment types what `run` resolves with as unknown). */
function callIn(
  environment: MockActivityEnvironment,
  ...args: Parameters<typeof callToolInActivity>
): Promise<CallToolResult> {
  return environment.run(callToolInActivity, ...args) as Promise<CallToolResult>;
}

/** Resolves once `check` holds, looking every 10 ms. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (const end = Date.now() + 15_000; !check();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface ChildRun {
  signal: NodeJS.Signals | null;
  lines: ToolActivityDetails[];
  output: string;
}

function runChild(tool: string, killAt: string): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--import", "tsx", child, server.url, tool, killAt], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on("error", reject);
    proc.on("close", (_code, signal) => {
      const lines = stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as ToolActivityDetails);
      resolve({ signal, lines, output: stdout + stderr });
    });
  });
}

describe("a worker killed mid-task: the retry follows the same task", () => {
  it.each([
    ["created", undefined],
    ["working", "half way"],
  ])(
    "killed at the heartbeat %s: the retry completes with the task's result after one tools/call",
    async (killAt, status) => {
      const callsBefore = callsOf(server, "deploy");
      const first = await runChild("deploy", killAt);
      expect(first.signal, first.output).toBe("SIGKILL");
      // What Temporal's server holds: the last heartbeat the dead attempt sent.
      const recorded = first.lines.at(-1)!;
      expect(recorded.mcpTasks).toBe(1);
      expect(recorded.tool).toBe("deploy");
      expect(recorded.ref?.toolName).toBe("deploy");
      expect(recorded.statusMessage).toBe(status);
      const taskId = recorded.ref!.taskId;
      expect(server.tasks.ids()).toContain(taskId);
      expect(callsOf(server, "deploy")).toBe(callsBefore + 1);

      const { environment, beats } = activity({ attempt: 2, heartbeatDetails: recorded });
      const result = await callIn(environment, client, "deploy", { env: "prod" });

      expect(result.content).toEqual([{ type: "text", text: 'deployed {"env":"prod"}' }]);
      expect(callsOf(server, "deploy")).toBe(callsBefore + 1);
      expect(beats[0]?.ref?.taskId).toBe(taskId);
      expect(new Set(beats.map((beat) => beat.ref?.taskId))).toEqual(new Set([taskId]));
      expect(cancelsOf(server, taskId)).toBe(0);
    },
    CHILD_MS,
  );
});

describe("heartbeats", () => {
  it("the ref is recorded the moment the server names the task, not at the next interval", async () => {
    const { environment, beats } = activity();
    const options = { heartbeatEveryMs: 10_000 };
    await callIn(environment, client, "deploy", { env: "ci" }, options);
    expect(beats).toHaveLength(1);
    expect(beats[0]?.ref?.taskId).toEqual(expect.any(String));
  });

  it("the first carries the task's ref; the next ones its status", async () => {
    const { environment, beats } = activity({ heartbeatTimeoutMs: 300 });
    const result = await callIn(environment, client, "deploy", { env: "dev" });
    expect(result.content).toEqual([{ type: "text", text: 'deployed {"env":"dev"}' }]);
    const [first] = beats;
    expect(first?.ref?.taskId).toBeDefined();
    expect(first?.ref?.server.url).toBe(server.url);
    expect(first?.ref).not.toHaveProperty("pendingInputAnswers");
    expect(beats.map((beat) => beat.statusMessage)).toContain("half way");
    // 22 polls 30 ms apart: several intervals of 100 ms, a third of the timeout, each with a beat (the cadence
    // itself is test/unit/engines/temporal-heartbeat.test.ts's, on literals: no clock here).
    expect(beats.length).toBeGreaterThan(3);
    expect(beats.every((beat) => beat.ref?.taskId === first?.ref?.taskId)).toBe(true);
  });
});

describe("cancellation", () => {
  it("asked for by the workflow: one tasks/cancel, then CancelledFailure", async () => {
    const { environment, beats } = activity();
    const run = callIn(environment, client, "forever", {});
    await until(() => beats.some((beat) => beat.ref !== undefined), "the ref's heartbeat");
    const taskId = beats[0]!.ref!.taskId;
    environment.cancel(); // CANCELLED, cancelRequested: what a workflow's cancellation delivers
    const failure = await run.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CancelledFailure);
    expect((failure as CancelledFailure).details).toEqual([{ taskId, outcome: "cancelled" }]);
    expect(cancelsOf(server, taskId)).toBe(1);
    expect(server.tasks.inspect(taskId)?.task.status).toBe("cancelled");
  });

  it("by a worker shutdown: no tasks/cancel; the next attempt follows the task", async () => {
    const { environment, beats } = activity();
    const run = callIn(environment, client, "deploy", { env: "stage" });
    await until(() => beats.some((beat) => beat.ref !== undefined), "the ref's heartbeat");
    const taskId = beats[0]!.ref!.taskId;
    const callsBefore = callsOf(server, "deploy");
    environment.cancel("WORKER_SHUTDOWN", new ActivityCancellationDetails({ workerShutdown: true }));
    const failure = await run.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CancelledFailure);
    expect(cancelsOf(server, taskId)).toBe(0);

    const retry = activity({ attempt: 2, heartbeatDetails: beats.at(-1) });
    const result = await callIn(retry.environment, client, "deploy", { env: "stage" });
    expect(result.content).toEqual([{ type: "text", text: 'deployed {"env":"stage"}' }]);
    expect(callsOf(server, "deploy")).toBe(callsBefore);
    expect(cancelsOf(server, taskId)).toBe(0);
  });
});

describe("endings Temporal can classify", () => {
  it("a failed task: a non-retryable ApplicationFailure carrying the JSON-RPC error", async () => {
    const { environment } = activity();
    const failure = await callIn(environment, client, "broken", {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const application = failure as ApplicationFailure;
    expect(application.type).toBe("TaskFailedError");
    expect(application.nonRetryable).toBe(true);
    expect(application.details).toEqual([
      { taskId: expect.any(String), code: -32000, rpcMessage: "disk full", data: { free: 0 } },
    ]);
  });

  it("a transport fault past the client's retries: retryable, and the retry follows the same task", async () => {
    const proxy = await startFaultProxy(server.url);
    const flaky = await TaskClient.connect(proxy.url, {
      ...POLLING,
      retry: { retries: 1, minTimeoutMs: 10, maxTimeoutMs: 20 },
    });
    try {
      const callsBefore = callsOf(server, "deploy");
      proxy.fault("tasks/get", { status: 503 });
      const { environment, beats } = activity();
      const failure = await callIn(environment, flaky, "deploy", { env: "qa" }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect((failure as ApplicationFailure).type).toBe("TransportError");
      expect((failure as ApplicationFailure).nonRetryable).toBe(false);
      const taskId = beats[0]!.ref!.taskId;
      expect((failure as ApplicationFailure).details).toEqual([{ taskId }]);

      proxy.heal("tasks/get");
      const retry = activity({ attempt: 2, heartbeatDetails: beats.at(-1) });
      const result = await callIn(retry.environment, flaky, "deploy", { env: "qa" });
      expect(result.content).toEqual([{ type: "text", text: 'deployed {"env":"qa"}' }]);
      expect(callsOf(server, "deploy")).toBe(callsBefore + 1);
    } finally {
      await flaky.close();
      await proxy.close();
    }
  });
});

describe("what a retry refuses, without calling the tool", () => {
  it("a call whose answer never came: a heartbeat without a ref, then UnconfirmedToolCall on the retry", async () => {
    const proxy = await startFaultProxy(server.url);
    const slow = await TaskClient.connect(proxy.url, POLLING);
    try {
      proxy.fault("tools/call", "hang");
      const { environment, beats } = activity({ heartbeatTimeoutMs: 60 });
      const run = callIn(environment, slow, "deploy", { env: "x" });
      await until(() => beats.length > 0, "a heartbeat while the call is unanswered");
      expect(beats[0]).toEqual({ mcpTasks: 1, tool: "deploy" });
      environment.cancel("TIMED_OUT", new ActivityCancellationDetails({ timedOut: true }));
      await expect(run).rejects.toBeInstanceOf(CancelledFailure);

      const seen = proxy.seen.length;
      const retry = activity({ attempt: 2, heartbeatDetails: beats.at(-1) });
      const failure = await callIn(retry.environment, slow, "deploy", { env: "x" }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect((failure as ApplicationFailure).type).toBe("UnconfirmedToolCall");
      expect((failure as ApplicationFailure).nonRetryable).toBe(true);
      expect(proxy.seen.length).toBe(seen);
    } finally {
      await slow.close();
      await proxy.close();
    }
  });

  it.each([
    ["details another activity wrote", { progress: 3 }],
    ["details for another tool", { mcpTasks: 1, tool: "forever" }],
    ["a malformed ref", { mcpTasks: 1, tool: "deploy", ref: { v: 1, taskId: 7 } }],
  ])("%s: a non-retryable ActivityDetailsError", async (_what, heartbeatDetails) => {
    const callsBefore = server.requests.forMethod("tools/call").length;
    const { environment } = activity({ attempt: 2, heartbeatDetails });
    const failure = await callIn(environment, client, "deploy", {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe("ActivityDetailsError");
    expect((failure as ApplicationFailure).nonRetryable).toBe(true);
    expect(server.requests.forMethod("tools/call").length).toBe(callsBefore);
  });

  it("a local activity (no heartbeat details): refused before anything is sent", async () => {
    const callsBefore = server.requests.forMethod("tools/call").length;
    const { environment } = activity({ isLocal: true });
    const failure = await callIn(environment, client, "deploy", {}).catch((error: unknown) => error);
    expect((failure as ApplicationFailure).type).toBe("LocalActivityRefused");
    expect(server.requests.forMethod("tools/call").length).toBe(callsBefore);
  });
});
