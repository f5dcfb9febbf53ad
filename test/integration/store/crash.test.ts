/**
 * Durable tasks survive SIGKILL. A child process calls a task-backed tool with a `fileStore` and kills itself
 * at one point of the task's life; a second process's `client.resume()` finishes the task. The reference
 * server runs here, on 127.0.0.1, and its request log proves the input was answered exactly once.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  defineTool,
  elicitForm,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "mcp-tasks/testing";
import { startFaultProxy } from "../lifecycle/fault-proxy.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const child = fileURLToPath(new URL("./crash-child.ts", import.meta.url));
/** Each test starts two TypeScript processes; on a loaded machine each may take several seconds to boot. */
const TWO_PROCESSES_MS = 120_000;

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the crash child to its end (or its death). */
function runChild(args: string[], env: Record<string, string> = {}): Promise<ChildRun> {
  return startChild(args, env).done;
}

function startChild(
  args: string[],
  env: Record<string, string> = {},
): { done: Promise<ChildRun>; pid: number | undefined; output: () => string; kill(): void } {
  let stdout = "";
  let stderr = "";
  const proc = spawn(process.execPath, ["--import", "tsx", child, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<ChildRun>((resolve, reject) => {
    proc.on("error", reject);
    proc.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { done, pid: proc.pid, output: () => stdout, kill: () => proc.kill("SIGKILL") };
}

/** Waits until `check` holds, polling every 50 ms. */
async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const question = elicitForm("Proceed?", { ok: { type: "boolean" } }, ["ok"]);
let server: HttpTaskServer;

beforeAll(async () => {
  server = await startTaskServer({
    tools: [
      defineTool({
        name: "job",
        task: "required",
        pollIntervalMs: 50,
        steps: [
          step.working("starting"),
          step.idle(3),
          step.input({ q: question }),
          step.pollErrors(2),
          step.working("finishing"),
          step.complete((call) => textResult(`done with ${JSON.stringify(call.responses["q"] ?? null)}`)),
        ],
      }),
    ],
  });
});

afterAll(async () => {
  await server?.close();
});

/** The input keys each `tasks/update` carried, for the task with this id. */
function answersSent(taskId: string): string[] {
  return server.requests
    .forMethod("tasks/update")
    .map((request) => (request.body as { params: { taskId: string; inputResponses: object } }).params)
    .filter((params) => params.taskId === taskId)
    .flatMap((params) => Object.keys(params.inputResponses));
}

function createdTaskIds(): string[] {
  return server.tasks.ids();
}

describe("a task survives its process being killed", () => {
  it.each(["created", "input", "answered", "backoff", "terminal"])(
    "killed at %s: a new process's resume() gets the result, and the input was answered once",
    async (point) => {
      const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-crash-"));
      const before = new Set(createdTaskIds());
      const first = await runChild([server.url, dir, "call"], { KILL_AT: point });
      expect(first.signal, first.stdout + first.stderr).toBe("SIGKILL");
      const [taskId] = createdTaskIds().filter((id) => !before.has(id));
      expect(taskId).toBeDefined();

      const second = await runChild([server.url, dir, "resume"]);
      expect(second.code, second.stderr).toBe(0);
      const report = JSON.parse(second.stdout.trim().split("\n").pop() as string) as {
        results: unknown[];
        asked: string[];
      };
      expect(report.results).toEqual([textResult(`done with {"action":"accept","content":{"ok":true}}`)]);
      expect(answersSent(taskId as string)).toEqual(["q"]);
      // Asked again only if the first process died before the server had the answer.
      expect(report.asked).toEqual(point === "created" || point === "input" ? ["q"] : []);
      expect(readdirSync(dir).filter((name) => name.endsWith(".json"))).toEqual([]);
    },
    TWO_PROCESSES_MS,
  );
});

describe("two processes on one store directory", () => {
  it(
    "the second is refused while the first lives; after the first dies, resume() finishes its task",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-two-"));
      const before = new Set(createdTaskIds());
      const first = startChild([server.url, dir, "call"], { HOLD_INPUT: "1" });
      await until(() => first.output().includes("asked"), "the first process to be asked for input");

      const second = await runChild([server.url, dir, "resume"]);
      expect(second.code).not.toBe(0);
      expect(second.stderr).toMatch(new RegExp(`StoreLockedError.*in use by process ${String(first.pid)}`));

      first.kill();
      expect((await first.done).signal).toBe("SIGKILL");
      const third = await runChild([server.url, dir, "resume"]);
      expect(third.code, third.stderr).toBe(0);
      expect(JSON.parse(third.stdout.trim()).results).toHaveLength(1);
      const [taskId] = createdTaskIds().filter((id) => !before.has(id));
      expect(answersSent(taskId as string)).toEqual(["q"]);
    },
    2 * TWO_PROCESSES_MS,
  );
});

describe("an answer on its way when the process dies", () => {
  it(
    "is stored before the tasks/update leaves, and the resumed task re-sends it without asking again",
    async () => {
      // The proxy holds every tasks/update unanswered and unforwarded: the server never gets the first one.
      const proxy = await startFaultProxy(server.url);
      try {
        proxy.fault("tasks/update", "hang");
        const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-pending-"));
        const before = new Set(createdTaskIds());
        const first = startChild([proxy.url, dir, "call"]);
        await until(() => proxy.seen.includes("tasks/update"), "the answer to be on its way");
        first.kill();
        expect((await first.done).signal).toBe("SIGKILL");
        const [taskId] = createdTaskIds().filter((id) => !before.has(id));
        expect(answersSent(taskId as string)).toEqual([]);

        // What the dead process left: its ref, holding the answer that was never acknowledged.
        const files = readdirSync(dir).filter((name) => name.endsWith(".json"));
        expect(files).toHaveLength(1);
        const stored = JSON.parse(readFileSync(join(dir, files[0] as string), "utf8")) as {
          ref: { answeredInputKeys: string[]; pendingInputAnswers?: Record<string, unknown> };
        };
        expect(stored.ref.answeredInputKeys).toEqual([]);
        expect(stored.ref.pendingInputAnswers).toEqual({ q: { action: "accept", content: { ok: true } } });

        proxy.heal("tasks/update");
        const second = await runChild([proxy.url, dir, "resume"]);
        expect(second.code, second.stderr).toBe(0);
        const report = JSON.parse(second.stdout.trim().split("\n").pop() as string) as {
          results: unknown[];
          asked: string[];
        };
        expect(report.asked).toEqual([]); // the handler was not called again
        expect(report.results).toEqual([textResult(`done with {"action":"accept","content":{"ok":true}}`)]);
        expect(answersSent(taskId as string)).toEqual(["q"]); // the server had the answer once
      } finally {
        await proxy.close();
      }
    },
    2 * TWO_PROCESSES_MS,
  );
});
