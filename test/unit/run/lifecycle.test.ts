/**
 * What a handle shows from start to end, and what the client leaves behind: one terminal update for an
 * immediate result, no timer and no request after `close()`, and task ids never whole in error messages.
 */
import { describe, expect, it, vi } from "vitest";
import { type TaskClient, type TaskOutcome, type TaskUpdate } from "mcp-tasks";
import {
  ScriptedServer,
  TASK_ID,
  connect,
  frame,
  inOrder,
  settle,
  textResult,
  useFakeTime,
} from "./scripted-server.js";
import { endedAs } from "../../fixtures/errors.js";

useFakeTime();

describe("an immediate result", () => {
  it("yields exactly one terminal update and resolves with the result", async () => {
    const server = new ScriptedServer({ "tools/call": () => ({ result: textResult("hello") }) });
    const client = await connect(server);
    const handle = client.callTool("greet", { name: "Ada" });
    const events: TaskUpdate[] = [];
    handle.on("update", (update) => events.push(update));

    const updates: TaskUpdate[] = [];
    for await (const update of handle) updates.push(update);

    expect(updates).toEqual([
      expect.objectContaining({
        taskId: undefined,
        status: "completed",
        terminal: true,
        result: textResult("hello"),
      }),
    ]);
    expect(events).toHaveLength(1);
    await expect(handle).resolves.toEqual(textResult("hello"));
    expect(handle.taskId).toBeUndefined();
    await expect(handle.created).resolves.toBeUndefined();
    expect(server.sent("tasks/get")).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("a task's updates", () => {
  it("are seen by every consumer, each ending with the one terminal update", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 100 }),
      "tasks/get": inOrder(
        frame.working({ pollIntervalMs: 100, statusMessage: "step 1" }),
        frame.working({ pollIntervalMs: 100, statusMessage: "step 2" }),
        frame.completed("42"),
      ),
    });
    const client = await connect(server);
    const handle = client.callTool("compute");
    const read = async () => {
      const seen: string[] = [];
      for await (const update of handle) seen.push(`${update.status}:${update.statusMessage ?? ""}`);
      return seen;
    };
    const consumers = Promise.all([read(), read()]);
    await vi.advanceTimersByTimeAsync(300);
    const expected = ["working:", "working:step 1", "working:step 2", "completed:"];
    await expect(consumers).resolves.toEqual([expected, expected]);
  });
});

describe("task(taskId)", () => {
  it("polls a known task at once and follows it to its result", async () => {
    const server = new ScriptedServer({
      "tasks/get": inOrder(frame.working({ pollIntervalMs: 400 }), frame.completed("resumed")),
    });
    const client = await connect(server);
    const handle = client.task(TASK_ID);
    expect(handle.taskId).toBe(TASK_ID);
    await vi.advanceTimersByTimeAsync(400);
    expect(server.times("tasks/get")).toEqual([0, 400]);
    await expect(handle).resolves.toEqual(textResult("resumed"));
    expect(server.sent("tools/call")).toEqual([]);
  });

  it("rejects an empty id at the call site", async () => {
    const client = await connect(new ScriptedServer());
    expect(() => client.task("")).toThrow(TypeError);
  });
});

describe("close()", () => {
  it("leaves no timer, sends nothing more, and ends open handles with a closed TaskEndedError", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 500 }),
      "tasks/get": () => frame.working({ pollIntervalMs: 500 }),
    });
    const client = await connect(server);
    const handles = [client.callTool("a"), client.callTool("b"), client.callTool("c")];
    await vi.advanceTimersByTimeAsync(1200);
    expect(vi.getTimerCount()).toBeGreaterThan(0);

    await client.close();
    expect(vi.getTimerCount()).toBe(0);
    const sent = server.requests.length;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(server.requests).toHaveLength(sent);
    for (const handle of handles) {
      const outcome = await handle.outcome();
      expect(outcome).toMatchObject({ kind: "closed", taskId: TASK_ID });
      expect(outcome.kind === "closed" && outcome.error).toSatisfy(endedAs("closed"));
    }
    expect(() => client.callTool("d")).toThrow(/closed/);
  });

  it("leaves no timer while a poll is backing off from a fault", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000 }),
      "tasks/get": () => frame.rpcError(-32603, "Internal error"),
    });
    const client = await connect(server, { retry: { retries: 8, minTimeoutMs: 1000, maxTimeoutMs: 30_000 } });
    client.callTool("compute");
    await vi.advanceTimersByTimeAsync(1500); // the first poll failed at 1000; its retry waits until 2000
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
    const sent = server.requests.length;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(server.requests).toHaveLength(sent);
  });

  it("leaves no timer while a poll is awaiting its answer", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000 }),
      "tasks/get": () => ({ silent: true }),
    });
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(1500);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "closed" });
  });
});

/** Every ending that carries an error, each produced through the client: how to serve it, and what to do. */
type Act = (handle: ReturnType<TaskClient["callTool"]>) => void;
const endings: Array<[string, () => ScriptedServer, Act]> = [
  ["failed", () => serverEnding(frame.failed(-32000, "backend down")), () => {}],
  ["not found", () => serverEnding(frame.rpcError(-32602, "Task not found")), () => {}],
  ["cancelled", () => serverEnding(frame.cancelled()), () => {}],
  ["expired", () => serverEnding(frame.working({ ttlMs: 1500 }), { ttlMs: 1500 }), () => {}],
  ["deadline", () => serverEnding(frame.working()), () => {}],
  ["detached", () => serverEnding(frame.working()), (handle) => handle.detach()],
  [
    "protocol error",
    () => serverEnding({ result: { resultType: "complete", taskId: TASK_ID, status: "bogus" } }),
    () => {},
  ],
];

/** Runs one ending through a fresh client and returns its outcome. */
async function endWith(
  label: string,
  serve: () => ScriptedServer,
  act: Act,
): Promise<{ client: TaskClient; outcome: TaskOutcome }> {
  const client = await connect(serve(), { ttlGraceMs: 0 });
  const handle = client.callTool("compute", {}, label === "deadline" ? { timeoutMs: 1500 } : {});
  await vi.advanceTimersByTimeAsync(0);
  act(handle);
  return { client, outcome: await settle(handle.outcome()) };
}

describe("an ended handle", () => {
  it.each(endings)("is forgotten by the client (%s)", async (label, serve, act) => {
    const { client } = await endWith(label, serve, act);
    expect(client.activeTasks).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("task ids in error messages", () => {
  it.each(endings)(
    "never appear whole in the %s error, which still carries the id",
    async (label, serve, act) => {
      const { outcome } = await endWith(label, serve, act);
      expect(outcome.kind).not.toBe("completed");
      if (outcome.kind === "completed") return;
      expect(outcome.taskId).toBe(TASK_ID);
      expect(outcome.error.message).not.toContain(TASK_ID);
      expect(String(outcome.error)).not.toContain(TASK_ID);
      if ("taskId" in outcome.error) expect(outcome.error.taskId).toBe(TASK_ID);
    },
  );

  it("never appear whole even when the server's own error text repeats the id", async () => {
    const server = serverEnding(frame.rpcError(-32602, `Task ${TASK_ID} not found`));
    const client = await connect(server);
    const outcome = await settle(client.callTool("compute").outcome());
    expect(outcome.kind).toBe("not_found");
    if (outcome.kind === "completed") return;
    expect(outcome.error.message).not.toContain(TASK_ID);
  });
});

/** A task created at 0 whose every poll (from 1000 on) answers `reply`. */
function serverEnding(
  reply: ReturnType<typeof frame.working>,
  fields: { ttlMs?: number } = {},
): ScriptedServer {
  return new ScriptedServer({
    "tools/call": () => frame.created({ pollIntervalMs: 1000, ...fields }),
    "tasks/get": () => reply,
  });
}
