/**
 * The client and its store, through the real `TaskClient` against the reference server: a write the store did
 * not make is never taken for one it made (decision 15). Each test names the case it guards; each failed on the
 * commit before the store contract was made honest.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type TaskRef } from "mcp-tasks";
import type { TaskStore } from "mcp-tasks/store";
import { fileStore, memoryStore } from "mcp-tasks/store";
import { LeaseLostError } from "mcp-tasks/store/redis";
import {
  defineTool,
  elicitForm,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "mcp-tasks/testing";

let server: HttpTaskServer;
const question = elicitForm("Proceed?", { ok: { type: "boolean" } }, ["ok"]);

beforeAll(async () => {
  server = await startTaskServer({
    tools: [
      defineTool({
        name: "slow",
        task: "required",
        pollIntervalMs: 50,
        steps: [step.working("busy"), step.idle(1000), step.complete(textResult("late"))],
      }),
      defineTool({
        name: "stubborn",
        task: "required",
        pollIntervalMs: 50,
        onCancel: "ignore",
        steps: [step.working("busy"), step.stall()],
      }),
      defineTool({
        name: "ask",
        task: "required",
        pollIntervalMs: 50,
        steps: [step.working("starting"), step.input({ q: question }), step.complete(textResult("answered"))],
      }),
    ],
  });
});
afterAll(async () => {
  await server?.close();
});

/** The requests of `method` the server received for one task. */
function requestsFor(method: string, taskId: string | undefined): unknown[] {
  return server.requests
    .forMethod(method)
    .filter((request) => (request.body as { params: { taskId?: string } }).params.taskId === taskId);
}

const polling = { defaultIntervalMs: 50, minIntervalMs: 20, jitter: 0 };
const accept = () => Promise.resolve({ action: "accept" as const, content: { ok: true } });

describe("a cancel while the new task's ref is being stored", () => {
  it("still gets the server's confirmation, and the ref leaves the store", async () => {
    const inner = memoryStore();
    let cancelWhileStoring: (() => void) | undefined;
    const store: TaskStore = {
      put: async (ref) => {
        cancelWhileStoring?.(); // the caller cancels while the first write is on its way
        cancelWhileStoring = undefined;
        await new Promise((resolve) => setTimeout(resolve, 200));
        await inner.put(ref);
      },
      remove: (ref) => inner.remove(ref),
      list: (of) => inner.list(of),
    };
    const client = await TaskClient.connect(server.url, { store, polling, cancelGraceMs: 3000 });
    const handle = client.callTool("slow");
    cancelWhileStoring = () => void handle.cancel("changed my mind");
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("cancelled");
    expect((outcome as { error: { confirmed: boolean } }).error.confirmed).toBe(true);
    expect(server.tasks.get(outcome.taskId as string)?.status).toBe("cancelled");
    await client.close();
    expect(await inner.list()).toEqual([]);
  });
});

describe("decision 12: a task whose handle ends before it knew the id is stored first", () => {
  /** A memory store whose puts take 50 ms, recording when each begins and ends. */
  function slowStore(events: string[]): { store: TaskStore; inner: TaskStore } {
    const inner = memoryStore();
    const store: TaskStore = {
      put: async (ref) => {
        events.push("put");
        await new Promise((resolve) => setTimeout(resolve, 50));
        await inner.put(ref);
        events.push("stored");
      },
      remove: (ref) => inner.remove(ref),
      list: (of) => inner.list(of),
    };
    return { store, inner };
  }

  it("a cancel asked before the id arrived: stored before it is reported, and kept when the server never confirms", async () => {
    const events: string[] = [];
    const { store, inner } = slowStore(events);
    // The grace counts from cancel(), before the call is even answered: it must cover the answer, the 50 ms
    // write and the tasks/cancel on a loaded machine, or the handle ends before the cancel is sent.
    const client = await TaskClient.connect(server.url, { store, polling, cancelGraceMs: 1_500 });
    const handle = client.callTool("stubborn");
    handle.on("task", () => void events.push("task"));
    void handle.cancel("no longer needed"); // the call is still unanswered: no id yet
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("cancelled");
    expect((outcome as { error: { confirmed: boolean } }).error.confirmed).toBe(false);
    expect(requestsFor("tasks/cancel", outcome.taskId)).toHaveLength(1);
    expect(events).toEqual(["put", "stored", "task"]);
    await client.close();
    // The task runs on; its ref stays, and another process picks it up.
    expect((await inner.list()).map((ref) => ref.taskId)).toEqual([outcome.taskId]);
    const next = await TaskClient.connect(server.url, { store: inner, polling });
    const resumed = await next.resume();
    expect(resumed.map((each) => each.taskId)).toEqual([outcome.taskId]);
    await next.close();
  });

  it("a detach asked before the id arrived: the handle ends detached once the ref is stored", async () => {
    const events: string[] = [];
    const { store, inner } = slowStore(events);
    const client = await TaskClient.connect(server.url, { store, polling });
    const handle = client.callTool("slow");
    handle.on("task", () => void events.push("task"));
    handle.on("settled", () => void events.push("settled"));
    handle.detach(); // before the id arrived
    const outcome = await handle.outcome();
    expect(outcome).toMatchObject({ kind: "detached", taskId: expect.any(String) });
    expect(events).toEqual(["put", "stored", "task", "settled"]);
    expect(requestsFor("tasks/cancel", outcome.taskId)).toHaveLength(0);
    await client.close();
    expect((await inner.list()).map((ref) => ref.taskId)).toEqual([outcome.taskId]);
  });
});

describe("input answers go out only once they are stored", () => {
  it("a store that refuses the answers: no tasks/update is sent, and the policy ends the handle", async () => {
    const inner = memoryStore();
    const refused: TaskRef[] = [];
    const store: TaskStore = {
      put: (ref) => {
        if (ref.pendingInputAnswers === undefined) return inner.put(ref);
        refused.push(ref);
        return Promise.reject(new Error("disk full"));
      },
      remove: (ref) => inner.remove(ref),
      list: (of) => inner.list(of),
    };
    const client = await TaskClient.connect(server.url, {
      store,
      polling,
      inputHandlers: { elicitation: accept },
      logger: { error: () => undefined },
    });
    const handle = client.callTool("ask");
    const outcome = await handle.outcome();
    await client.close();
    expect(refused.length).toBeGreaterThan(0); // the answer was ready, and the store said no
    expect(requestsFor("tasks/update", outcome.taskId)).toEqual([]);
    // Three tries (one per snapshot still listing the key), then the default policy: fail.
    expect(refused).toHaveLength(3);
    expect(outcome).toMatchObject({ kind: "error", error: { name: "InputUnansweredError" } });
  });

  it("a lost lease (LeaseLostError on the answers' write): no update, no cancel, no poll after; the handle detaches", async () => {
    const inner = memoryStore();
    const store: TaskStore = {
      put: (ref) =>
        ref.pendingInputAnswers === undefined
          ? inner.put(ref)
          : Promise.reject(new LeaseLostError("another worker holds this task's lease")),
      remove: (ref) => inner.remove(ref),
      list: (of) => inner.list(of),
    };
    const client = await TaskClient.connect(server.url, {
      store,
      polling,
      inputHandlers: { elicitation: accept },
      logger: { error: () => undefined },
    });
    const handle = client.callTool("ask");
    const outcome = await handle.outcome();
    const pollsAtEnd = requestsFor("tasks/get", outcome.taskId).length;
    await new Promise((resolve) => setTimeout(resolve, 300)); // six poll intervals
    await client.close();
    expect(outcome.kind).toBe("detached");
    expect(requestsFor("tasks/update", outcome.taskId)).toEqual([]);
    expect(requestsFor("tasks/cancel", outcome.taskId)).toEqual([]);
    expect(pollsAtEnd).toBeGreaterThan(0);
    expect(requestsFor("tasks/get", outcome.taskId)).toHaveLength(pollsAtEnd);
    expect(server.tasks.get(outcome.taskId as string)?.status).toBe("input_required"); // left to its owner
  });
});

describe("a failed connect closes the store it opened", () => {
  it("leaves no lock file, and a fresh fileStore on the same directory connects", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-connect-store-"));
    await expect(
      TaskClient.connect("http://127.0.0.1:1/mcp", { store: fileStore(dir), requestTimeoutMs: 2000 }),
    ).rejects.toThrow();
    expect(readdirSync(dir).filter((name) => name.startsWith(".lock"))).toEqual([]);
    const client = await TaskClient.connect(server.url, { store: fileStore(dir) });
    expect(await client.resume()).toEqual([]);
    await client.close();
  });
});

describe("the adoption loop listing the store while new tasks are stored", () => {
  it("never loses a write: every task a handle reported is in the store", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-adopt-list-"));
    const client = await TaskClient.connect(server.url, {
      store: fileStore(dir),
      adopt: { everyMs: 2 }, // with a file store: resume(), a list() every few milliseconds
      polling: { defaultIntervalMs: 5000, minIntervalMs: 5000 },
      logger: { error: () => undefined },
    });
    const handles = Array.from({ length: 200 }, () => client.callTool("slow"));
    const refs = await Promise.all(handles.map((handle) => handle.ref));
    const reported = refs.filter((ref) => ref !== undefined).map((ref) => ref.taskId);
    expect(reported).toHaveLength(200);
    await client.close(); // the handles end `closed`: their tasks may still run, so their refs stay
    const store = fileStore(dir);
    const stored = new Set((await store.list()).map((ref) => ref.taskId));
    await store.close();
    expect(reported.filter((taskId) => !stored.has(taskId))).toEqual([]);
  }, 60_000);
});
