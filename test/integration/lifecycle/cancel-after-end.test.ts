/**
 * `handle.cancel()` after the handle already ended without the server's last word (deadline,
 * unconfirmed cancel, error, detach) still sends `tasks/cancel` when the task id is known, and resolves with
 * the server's acknowledgement. A real TaskClient against the reference server over Streamable HTTP.
 */
import { describe, expect, it } from "vitest";
import { TaskClient, TaskCancelledError } from "../../../src/index.js";
import { defineTool, startTaskServer, step, textResult } from "../../../src/testing/index.js";
import { FAST, closesAfterEach, question, when, yes } from "./helpers.js";

const track = closesAfterEach();

const tools = [
  defineTool({ name: "stalls", task: "required", pollIntervalMs: 10, steps: [step.stall()] }),
  defineTool({
    name: "ignores_cancel",
    task: "required",
    pollIntervalMs: 10,
    onCancel: "ignore",
    steps: [step.stall()],
  }),
  defineTool({
    name: "breaks",
    task: "required",
    pollIntervalMs: 10,
    steps: [step.pollErrors(1, { code: -32000, message: "poll exploded" }), step.stall()],
  }),
  defineTool({
    name: "asks_then_stalls",
    task: "required",
    pollIntervalMs: 10,
    steps: [step.input({ q: question }), step.working("answered"), step.stall()],
  }),
  defineTool({
    name: "flaky_then_stalls",
    task: "required",
    pollIntervalMs: 10,
    steps: [step.pollErrors(2), step.stall()],
  }),
  defineTool({
    name: "finishes",
    task: "required",
    pollIntervalMs: 10,
    steps: [step.complete(textResult("ok"))],
  }),
];

async function setup(options: Parameters<typeof TaskClient.connect>[1] = {}) {
  const server = track(await startTaskServer({ tools }));
  const client = track(await TaskClient.connect(server.url, { ...FAST, ...options }));
  // Warm up the code paths, so a short deadline is not spent on the first call's module loading.
  await client.callTool("finishes");
  server.requests.clear();
  return { server, client };
}

describe("handle.cancel() after the handle ended", () => {
  it("sends tasks/cancel after a deadline and resolves with the server's ack", async () => {
    const { server, client } = await setup();
    const handle = client.callTool("stalls", {}, { timeoutMs: 300 });
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("deadline_exceeded");
    expect(outcome.taskId).toBeDefined();

    const cancelled = await handle.cancel();
    expect(cancelled.error).toBeUndefined();
    expect(cancelled.ack).toBeTypeOf("object");
    expect(cancelled.outcome.kind).toBe("deadline_exceeded");
    const sent = server.requests.forMethod("tasks/cancel");
    expect(sent).toHaveLength(1);
    expect((sent[0]?.body as { params: { taskId: string } }).params.taskId).toBe(outcome.taskId);
    expect(server.tasks.inspect(outcome.taskId as string)?.cancelRequested).toBe(true);
  });

  // After an unconfirmed cancel the tasks/cancel already went out before the end, so the wire looks the same
  // before and after the fix (checked on 291ebfb); what the defect took away is the answer cancel() returns.
  it("resolves with the server's ack after an unconfirmed cancel, and the server received tasks/cancel", async () => {
    const { server, client } = await setup({ cancelGraceMs: 200 });
    const abort = new AbortController();
    const handle = client.callTool("ignores_cancel", {}, { signal: abort.signal });
    await handle.created;
    abort.abort("stop");
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("cancelled");
    expect((outcome as { error: TaskCancelledError }).error.confirmed).toBe(false);

    const cancelled = await handle.cancel();
    expect(cancelled.error).toBeUndefined();
    expect(cancelled.ack).toBeTypeOf("object");
    expect(cancelled.outcome.kind).toBe("cancelled");
    expect(server.requests.forMethod("tasks/cancel").length).toBeGreaterThanOrEqual(1);
  });

  it("resolves with the server's ack when cancel() itself ran into the grace period", async () => {
    const { server, client } = await setup({ cancelGraceMs: 200 });
    const handle = client.callTool("ignores_cancel");
    await handle.created;
    const first = await handle.cancel();
    expect(first.outcome.kind).toBe("cancelled");
    expect((first.outcome as { error: TaskCancelledError }).error.confirmed).toBe(false);
    expect(first.ack).toBeTypeOf("object");

    const again = await handle.cancel();
    expect(again.ack).toBeTypeOf("object");
    expect(again.error).toBeUndefined();
    expect(server.requests.forMethod("tasks/cancel").length).toBeGreaterThanOrEqual(1);
  });

  it("sends tasks/cancel after the handle ended with an error and resolves with the server's ack", async () => {
    const { server, client } = await setup();
    const handle = client.callTool("breaks");
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("error");
    expect(outcome.taskId).toBeDefined();

    const cancelled = await handle.cancel();
    expect(cancelled.error).toBeUndefined();
    expect(cancelled.ack).toBeTypeOf("object");
    expect(cancelled.outcome.kind).toBe("error");
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect(server.tasks.get(outcome.taskId as string)?.status).toBe("cancelled");
  });

  it("sends nothing when the server already said its last word", async () => {
    const { server, client } = await setup();
    const handle = client.callTool("finishes");
    expect((await handle.outcome()).kind).toBe("completed");
    const cancelled = await handle.cancel();
    expect(cancelled.ack).toBeUndefined();
    expect(cancelled.outcome.kind).toBe("completed");
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(0);
  });
});

describe("cancelling after detach()", () => {
  it("sends tasks/cancel for a detached task and resolves with the server's ack", async () => {
    const { server, client } = await setup();
    const handle = client.callTool("stalls");
    const taskId = await handle.created;
    handle.detach();
    expect((await handle.outcome()).kind).toBe("detached");

    const cancelled = await handle.cancel();
    expect(cancelled.ack).toBeTypeOf("object");
    expect(cancelled.outcome.kind).toBe("detached");
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect(server.tasks.get(taskId as string)?.status).toBe("cancelled");
  });

  it("sends tasks/cancel for a detached task that had input answered by a handler", async () => {
    let asked = 0;
    const { server, client } = await setup({
      inputHandlers: {
        elicitation: () => {
          asked += 1;
          return Promise.resolve(yes);
        },
      },
    });
    const handle = client.callTool("asks_then_stalls");
    const taskId = await handle.created;
    // The answer went in: the server moved on past the input step.
    await when<[{ status: string; statusMessage: string | undefined }]>(
      (listener) => handle.on("update", listener),
      (update) => update.status === "working" && update.statusMessage === "answered",
    );
    expect(asked).toBe(1);
    handle.detach();
    expect((await handle.outcome()).kind).toBe("detached");

    const cancelled = await handle.cancel();
    expect(cancelled.error).toBeUndefined();
    expect(cancelled.ack).toBeTypeOf("object");
    expect(server.requests.forMethod("tasks/update")).toHaveLength(1);
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect(server.tasks.get(taskId as string)?.status).toBe("cancelled");
  });

  it("sends tasks/cancel for a task detached while a failed poll was being retried", async () => {
    const { server, client } = await setup();
    const handle = client.callTool("flaky_then_stalls");
    const taskId = await handle.created;
    await when((listener) => handle.on("retry", listener));
    handle.detach();
    expect((await handle.outcome()).kind).toBe("detached");

    const cancelled = await handle.cancel();
    expect(cancelled.error).toBeUndefined();
    expect(cancelled.ack).toBeTypeOf("object");
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect(server.tasks.get(taskId as string)?.status).toBe("cancelled");
  });
});
