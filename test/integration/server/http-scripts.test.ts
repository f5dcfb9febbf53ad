import { afterEach, describe, expect, it, vi } from "vitest";
import type { Clock, HttpTaskServer, ToolDefinition } from "../../../src/testing/index.js";
import {
  defineTool,
  elicitForm,
  ScriptError,
  startTaskServer,
  step,
  systemClock,
  textResult,
} from "../../../src/testing/index.js";
import { call, callError, post } from "./rawRpc.js";

let server: HttpTaskServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.useRealTimers();
});

async function serve(tools: ToolDefinition[], onError?: (error: Error) => void): Promise<HttpTaskServer> {
  server = await startTaskServer({ tools, onError });
  return server;
}

async function createTask(url: string, name: string, declared = true): Promise<string> {
  return (await call(url, "tools/call", { name }, { tasks: declared }))["taskId"] as string;
}

const poll = (url: string, taskId: string) => call(url, "tasks/get", { taskId });

/** The real clock API (so fake timers drive it), noting each timer the server arms. */
function watchedClock(armed: number[]): Clock {
  return {
    now: () => systemClock.now(),
    setTimeout: (callback, ms) => (armed.push(ms), systemClock.setTimeout(callback, ms)),
    clearTimeout: (handle) => systemClock.clearTimeout(handle),
  };
}

/** Let real I/O run (setImmediate is not faked) until the server has armed a timer; bounded. */
async function untilArmed(armed: number[]): Promise<void> {
  for (let turn = 0; turn < 1000 && armed.length === 0; turn++)
    await new Promise((resolve) => setImmediate(resolve));
  expect(armed.length).toBeGreaterThan(0);
}

describe("poll-advanced scripts", () => {
  it("apply exactly one step per tasks/get", async () => {
    const { url } = await serve([
      defineTool({
        name: "stepwise",
        steps: [
          step.working("one"),
          step.message("two"),
          step.pollInterval(250),
          step.ttl(null),
          step.complete(textResult("done")),
        ],
      }),
    ]);
    const taskId = await createTask(url, "stepwise");
    expect(await poll(url, taskId)).toMatchObject({
      status: "working",
      statusMessage: "one",
      pollIntervalMs: 100,
      ttlMs: 300_000,
    });
    expect(await poll(url, taskId)).toMatchObject({ statusMessage: "two" });
    expect(await poll(url, taskId)).toMatchObject({ pollIntervalMs: 250 });
    expect(await poll(url, taskId)).toMatchObject({ ttlMs: null });
    expect(await poll(url, taskId)).toMatchObject({
      status: "completed",
      result: { content: [{ text: "done" }] },
    });
    expect(server?.tasks.inspect(taskId)).toMatchObject({ polls: 5, stepsApplied: 5 });
  });

  it("hold the task for as many polls as an idle step says", async () => {
    const { url } = await serve([
      defineTool({ name: "slow", steps: [step.idle(2), step.complete(textResult("done"))] }),
    ]);
    const taskId = await createTask(url, "slow");
    expect((await poll(url, taskId))["status"]).toBe("working");
    expect((await poll(url, taskId))["status"]).toBe("working");
    expect((await poll(url, taskId))["status"]).toBe("completed");
  });
});

describe("time-advanced scripts under fake timers", () => {
  it("move one step per interval of the fake clock", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { url } = await serve([
      defineTool({
        name: "timed",
        advance: { everyMs: 1000 },
        steps: [step.working("halfway"), step.complete(textResult("done"))],
      }),
    ]);
    const taskId = await createTask(url, "timed");
    expect(await poll(url, taskId)).toMatchObject({ status: "working" });
    expect((await poll(url, taskId))["statusMessage"]).toBeUndefined();
    vi.advanceTimersByTime(1000);
    expect(await poll(url, taskId)).toMatchObject({ status: "working", statusMessage: "halfway" });
    vi.advanceTimersByTime(999);
    expect((await poll(url, taskId))["status"]).toBe("working");
    vi.advanceTimersByTime(1);
    expect(await poll(url, taskId)).toMatchObject({
      status: "completed",
      lastUpdatedAt: new Date(Date.now()).toISOString(),
    });
  });

  it("answer a call without a task only after the script's time has passed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const armed: number[] = [];
    server = await startTaskServer({
      clock: watchedClock(armed),
      tools: [
        defineTool({
          name: "timed",
          advance: { everyMs: 500 },
          steps: [step.idle(), step.complete(textResult("late"))],
        }),
      ],
    });
    const { url } = server;
    let settled = false;
    const answer = call(url, "tools/call", { name: "timed" }, { tasks: false }).finally(
      () => (settled = true),
    );
    await untilArmed(armed);
    expect(armed).toEqual([500]);
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toMatchObject({ resultType: "complete", content: [{ text: "late" }] });
  });

  it("expire a task once createdAt + ttlMs has passed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { url } = await serve([defineTool({ name: "short_lived", ttlMs: 5000, steps: [step.stall()] })]);
    const taskId = await createTask(url, "short_lived");
    vi.advanceTimersByTime(4999);
    expect((await poll(url, taskId))["status"]).toBe("working");
    vi.advanceTimersByTime(1);
    expect(await callError(url, "tasks/get", { taskId })).toMatchObject({
      code: -32602,
      message: "Failed to retrieve task: Task has expired",
    });
    expect(server?.tasks.size).toBe(0);
  });
});

describe("cancellation", () => {
  it("lets a tool that ignores tasks/cancel finish anyway", async () => {
    const { url } = await serve([
      defineTool({
        name: "stubborn",
        onCancel: "ignore",
        steps: [
          step.working("still going"),
          step.complete((c) => textResult(c.cancelRequested ? "finished despite cancel" : "finished")),
        ],
      }),
    ]);
    const taskId = await createTask(url, "stubborn");
    expect(await call(url, "tasks/cancel", { taskId })).toMatchObject({ resultType: "complete" });
    expect(await poll(url, taskId)).toMatchObject({ status: "working", statusMessage: "still going" });
    expect(await poll(url, taskId)).toMatchObject({
      status: "completed",
      result: { content: [{ text: "finished despite cancel" }] },
    });
    expect(server?.tasks.inspect(taskId)?.cancelRequested).toBe(true);
  });

  it("ends a tool that honours tasks/cancel as cancelled at once, even while it waits for input", async () => {
    const { url } = await serve([
      defineTool({
        name: "asking",
        steps: [
          step.input({ q: elicitForm("?", { a: { type: "string" } }) }),
          step.complete(textResult("x")),
        ],
      }),
    ]);
    const taskId = await createTask(url, "asking");
    expect((await poll(url, taskId))["status"]).toBe("input_required");
    await call(url, "tasks/cancel", { taskId });
    const task = await poll(url, taskId);
    expect(task).toMatchObject({ status: "cancelled" });
    expect(task["inputRequests"]).toBeUndefined();
  });
});

describe("scripts that misbehave on purpose", () => {
  it("send a completed task without its result", async () => {
    const { url } = await serve([defineTool({ name: "hollow", steps: [step.raw({ status: "completed" })] })]);
    const taskId = await createTask(url, "hollow");
    const task = await poll(url, taskId);
    expect(task["status"]).toBe("completed");
    expect(task).not.toHaveProperty("result");
  });

  it("send wild pollIntervalMs values exactly as written", async () => {
    const wild = [0, -5, 1e12, 2.5];
    const { url } = await serve([
      defineTool({ name: "wild", steps: wild.map((ms) => step.pollInterval(ms)) }),
    ]);
    const taskId = await createTask(url, "wild");
    for (const ms of wild) expect((await poll(url, taskId))["pollIntervalMs"]).toBe(ms);
  });

  it("reuse an input key for another request when told to", async () => {
    const first = elicitForm("First?", { a: { type: "string" } });
    const second = elicitForm("Second?", { b: { type: "number" } });
    const { url } = await serve([
      defineTool({
        name: "reuse",
        steps: [step.input({ k: first }), step.input({ k: second }, { reuseKeys: true })],
      }),
    ]);
    const taskId = await createTask(url, "reuse");
    expect((await poll(url, taskId))["inputRequests"]).toEqual({ k: first });
    await call(url, "tasks/update", {
      taskId,
      inputResponses: { k: { action: "accept", content: { a: "x" } } },
    });
    expect((await poll(url, taskId))["inputRequests"]).toEqual({ k: second });
  });

  it("fail the task with a ScriptError when a key is reused by accident", async () => {
    const errors: Error[] = [];
    const request = elicitForm("Again?", { a: { type: "string" } });
    const { url } = await serve(
      [defineTool({ name: "oops", steps: [step.input({ k: request }), step.input({ k: request })] })],
      (e) => errors.push(e),
    );
    const taskId = await createTask(url, "oops");
    await poll(url, taskId);
    await call(url, "tasks/update", { taskId, inputResponses: { k: { action: "decline" } } });
    expect(await poll(url, taskId)).toMatchObject({ status: "failed", error: { code: -32603 } });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ScriptError);
  });

  it("stall forever", async () => {
    const { url } = await serve([
      defineTool({ name: "stuck", steps: [step.stall(), step.complete(textResult("never"))] }),
    ]);
    const taskId = await createTask(url, "stuck");
    for (let i = 0; i < 5; i++) expect((await poll(url, taskId))["status"]).toBe("working");
  });

  it("answer some polls with -32603 while the task moves on underneath", async () => {
    const { url } = await serve([
      defineTool({ name: "flaky", steps: [step.pollErrors(2), step.complete(textResult("ok"))] }),
    ]);
    const taskId = await createTask(url, "flaky");
    expect(await callError(url, "tasks/get", { taskId })).toMatchObject({
      code: -32603,
      message: "Internal error",
    });
    expect(await callError(url, "tasks/get", { taskId })).toMatchObject({ code: -32603 });
    expect((await poll(url, taskId))["status"]).toBe("completed");
  });

  it("answer prompts/get, which tasks do not support, with a CreateTaskResult when asked to", async () => {
    server = await startTaskServer({ tools: [], taskShapedPrompt: true });
    const { prompts } = (await call(server.url, "prompts/list")) as { prompts: { name: string }[] };
    expect(prompts.map((prompt) => prompt.name)).toEqual(["task_shaped_prompt"]);
    const reply = await call(server.url, "prompts/get", { name: "task_shaped_prompt" });
    expect(reply).toMatchObject({ resultType: "task", status: "working" });
  });

  it("return a CreateTaskResult to a request that did not declare the extension", async () => {
    const { url } = await serve([
      defineTool({ name: "rude", createTaskWhenUndeclared: true, steps: [step.stall()] }),
    ]);
    const reply = await post(url, "tools/call", { name: "rude" }, { tasks: false });
    expect(reply.result).toMatchObject({ resultType: "task", status: "working" });
  });
});
