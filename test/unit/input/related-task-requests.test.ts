/**
 * A server request that names a task in `_meta["io.modelcontextprotocol/related-task"]` (how 2025-11-25 servers ask
 * for a task's input) goes to the handle that follows that task: its `input` event, its handlers, `respond()`, its
 * ledger and the unanswered-input policy. Driven through a real `TaskClient` over an in-memory transport, with the
 * task id of a task the client created.
 */
import { describe, expect, it } from "vitest";
import { InputUnansweredError, TaskClient, tasksFor, type TaskClientOptions } from "mcp-tasks";
import type { InputRequestEvent } from "../../../src/task/types.js";
import { DISCOVER_RESULT, FakeTransport } from "../session/fake-transport.js";

const TASK_ID = "task-related-1";
const task = {
  taskId: TASK_ID,
  status: "working",
  createdAt: "2026-07-28T10:00:00Z",
  lastUpdatedAt: "2026-07-28T10:00:00Z",
  ttlMs: null,
  pollIntervalMs: 60_000,
};

/** A tasks server: every tools/call creates TASK_ID, which stays `working`. */
function taskServer(): FakeTransport {
  return new FakeTransport((message, transport) => {
    const reply = (result: unknown) => queueMicrotask(() => transport.answer(message.id, result));
    if (message.method === "server/discover") reply(DISCOVER_RESULT);
    else if (message.method === "tools/call") reply({ resultType: "task", ...task });
    else if (message.method === "tasks/get") reply({ resultType: "complete", ...task });
    else if (message.method === "tasks/cancel") reply({});
  });
}

function elicitation(id: number | string, taskId: string, message = "Proceed?") {
  return {
    jsonrpc: "2.0",
    id,
    method: "elicitation/create",
    params: {
      message,
      requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
      _meta: { "io.modelcontextprotocol/related-task": { taskId } },
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

function answersTo(transport: FakeTransport, id: number | string) {
  return transport.sent.filter((message) => "id" in message && message.id === id && !("method" in message));
}

async function startTask(options: TaskClientOptions) {
  const transport = taskServer();
  const client = await TaskClient.connect(transport, { notifications: "off", ...options });
  const handle = client.callTool("deploy", { env: "prod" });
  await handle.created;
  const inputs: InputRequestEvent[] = [];
  handle.on("input", (event) => inputs.push(event));
  return { transport, client, handle, inputs };
}

describe("server requests that name a task", () => {
  it("reach the task's handler once, with the task in the context, and show as an input event", async () => {
    const contexts: { taskId: string | undefined; toolName: string | undefined; key: string }[] = [];
    const { transport, client, inputs } = await startTask({
      inputHandlers: {
        elicitation: async (_params, { taskId, toolName, key }) => {
          contexts.push({ taskId, toolName, key });
          return { action: "accept", content: { ok: true } };
        },
      },
    });
    transport.deliver(elicitation(41, TASK_ID));
    await settle();
    expect(contexts).toEqual([{ taskId: TASK_ID, toolName: "deploy", key: "41" }]);
    expect(inputs).toEqual([
      { taskId: TASK_ID, key: "41", request: { method: "elicitation/create", params: expect.any(Object) } },
    ]);
    expect(answersTo(transport, 41)).toEqual([
      { jsonrpc: "2.0", id: 41, result: { action: "accept", content: { ok: true } } },
    ]);

    // Delivered again (a replayed stream): answered from the ledger, nobody is asked twice.
    transport.deliver(elicitation(41, TASK_ID));
    await settle();
    expect(contexts).toHaveLength(1);
    expect(inputs).toHaveLength(1);
    expect(answersTo(transport, 41)).toHaveLength(2);
    expect(answersTo(transport, 41)[1]).toEqual(answersTo(transport, 41)[0]);
    await client.close();
  });

  it("can be answered through respond() when no handler answers its kind", async () => {
    const { transport, client, handle } = await startTask({});
    const responded: Promise<void>[] = [];
    handle.on("input", ({ key }) => {
      responded.push(handle.respond(key, { action: "decline" }));
    });
    transport.deliver(elicitation("e-1", TASK_ID));
    await settle();
    await expect(responded[0]).resolves.toBeUndefined();
    expect(answersTo(transport, "e-1")).toEqual([
      { jsonrpc: "2.0", id: "e-1", result: { action: "decline" } },
    ]);
    await expect(handle.respond("e-1", { action: "accept" })).rejects.toMatchObject({
      problem: "already_answered",
    });
    expect(handle.isSettled).toBe(false);
    await client.close();
  });

  it("without a handler or an answer, the fail policy ends the handle and the server gets an error", async () => {
    const { transport, client, handle } = await startTask({});
    transport.deliver(elicitation(8, TASK_ID));
    await settle();
    const outcome = await handle.outcome();
    expect(outcome.kind !== "completed" && outcome.error).toBeInstanceOf(InputUnansweredError);
    expect(answersTo(transport, 8)).toEqual([
      { jsonrpc: "2.0", id: 8, error: { code: -32601, message: "no elicitation handler was given" } },
    ]);
    await client.close();
  });

  it("asks again when the server reuses an answered request's id for a different request", async () => {
    const keys: string[] = [];
    const { transport, client } = await startTask({
      inputHandlers: {
        elicitation: async (params, { key }) => {
          keys.push(key);
          return { action: "accept", content: { ok: params.message === "second" } };
        },
      },
    });
    transport.deliver(elicitation(5, TASK_ID, "first"));
    await settle();
    transport.deliver(elicitation(5, TASK_ID, "second"));
    await settle();
    expect(keys).toEqual(["5", "5#1"]);
    expect(answersTo(transport, 5).map((answer) => (answer as { result: unknown }).result)).toEqual([
      { action: "accept", content: { ok: false } },
      { action: "accept", content: { ok: true } },
    ]);
    await client.close();
  });

  it("under the decline policy, an elicitation nobody can answer is declined and the task goes on", async () => {
    const { transport, client, handle } = await startTask({ unansweredInput: "decline" });
    const unanswered: string[] = [];
    handle.on("inputUnanswered", ({ key, action }) => unanswered.push(`${key}:${action}`));
    transport.deliver(elicitation(6, TASK_ID));
    await settle();
    expect(unanswered).toEqual(["6:decline"]);
    expect(answersTo(transport, 6)).toEqual([{ jsonrpc: "2.0", id: 6, result: { action: "decline" } }]);
    expect(handle.isSettled).toBe(false);
    await client.close();
  });

  it("goes to the handlers without a task when it names a task this client does not follow", async () => {
    const seen: (string | undefined)[] = [];
    const { transport, client, inputs } = await startTask({
      inputHandlers: {
        elicitation: async (_params, context) => {
          seen.push(context.taskId);
          return { action: "cancel" };
        },
      },
    });
    transport.deliver(elicitation(3, "someone-elses-task"));
    await settle();
    expect(seen).toEqual([undefined]);
    expect(inputs).toEqual([]);
    expect(answersTo(transport, 3)).toEqual([{ jsonrpc: "2.0", id: 3, result: { action: "cancel" } }]);
    await client.close();
  });

  it("stops the handler when the server cancels its request, and sends no answer", async () => {
    let signal: AbortSignal | undefined;
    const { transport, client, handle } = await startTask({
      inputHandlers: {
        elicitation: (_params, context) => {
          signal = context.signal;
          return new Promise(() => undefined);
        },
      },
    });
    transport.deliver(elicitation(12, TASK_ID));
    await settle();
    transport.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 12 } });
    await settle();
    expect(signal?.aborted).toBe(true);
    expect(answersTo(transport, 12)).toEqual([]);
    expect(handle.isSettled).toBe(false);
    await client.close();
  });
});

describe("server requests on a connection shared with an SDK Client (tasksFor)", () => {
  it("go to exactly one party: ours when they name our task, the Client's otherwise", async () => {
    const inner = taskServer();
    const forClient: unknown[] = [];
    inner.onmessage = (message) => void forClient.push(message);
    const sdkClient = { transport: inner, getProtocolEra: () => "modern" as const };
    const handled: string[] = [];
    const tasks = tasksFor(sdkClient, {
      notifications: "off",
      inputHandlers: {
        elicitation: async (params) => {
          handled.push(params.message);
          return { action: "accept", content: { ok: true } };
        },
      },
    });
    const handle = tasks.callTool("deploy");
    await handle.created;

    inner.deliver(elicitation(1, TASK_ID, "ours"));
    inner.deliver(elicitation(2, "not-ours", "theirs"));
    inner.deliver({ jsonrpc: "2.0", id: 3, method: "roots/list" });
    await settle();

    expect(handled).toEqual(["ours"]);
    expect(answersTo(inner, 1)).toHaveLength(1);
    // The Client got the others (and answers them itself); we sent nothing for them.
    expect(forClient.map((message) => (message as { id?: unknown }).id)).toEqual([2, 3]);
    expect(answersTo(inner, 2)).toEqual([]);
    expect(answersTo(inner, 3)).toEqual([]);
    await tasks.close();
  });
});
