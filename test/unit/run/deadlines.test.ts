/**
 * The two clocks that end waiting without ending the task: the caller's deadline (`timeoutMs` / `deadline`) and
 * the `createdAt + ttlMs` backstop (with `ttlGraceMs` for clock skew). Both are measured in fake time.
 */
import { describe, expect, it, vi } from "vitest";

import { ScriptedServer, START, TASK_ID, connect, frame, inOrder, useFakeTime } from "./scripted-server.js";
import { endedAs } from "../../fixtures/errors.js";

useFakeTime();

/** A task that works forever, polled every second, with this TTL. */
function endlessTask(ttlMs: number | null = null): ScriptedServer {
  return new ScriptedServer({
    "tools/call": () => frame.created({ pollIntervalMs: 1000, ttlMs }),
    "tasks/get": () => frame.working({ pollIntervalMs: 1000, ttlMs }),
  });
}

describe("the caller's deadline", () => {
  it("ends the handle with a deadline_exceeded TaskEndedError on time and leaves the task running", async () => {
    const server = endlessTask();
    const client = await connect(server);
    const handle = client.callTool("compute", {}, { timeoutMs: 2500 });
    const outcome = handle.outcome();

    await vi.advanceTimersByTimeAsync(2499);
    expect(handle.isSettled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(handle.isSettled).toBe(true);
    const ended = await outcome;
    expect(ended.kind).toBe("deadline_exceeded");
    expect(ended.kind === "deadline_exceeded" && ended.error).toSatisfy(endedAs("deadline_exceeded"));
    expect(ended).toMatchObject({ taskId: TASK_ID, error: { deadline: new Date(START + 2500) } });
    await expect(handle).rejects.toSatisfy(endedAs("deadline_exceeded"));

    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.sent("tasks/cancel")).toEqual([]);
    expect(server.notifications).not.toContain("notifications/cancelled");
    expect(server.times("tasks/get")).toEqual([1000, 2000]);
  });

  it("accepts an absolute deadline", async () => {
    const server = endlessTask();
    const client = await connect(server);
    const handle = client.callTool("compute", {}, { deadline: new Date(START + 1500) });
    await vi.advanceTimersByTimeAsync(1500);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "deadline_exceeded" });
  });

  it("ends the handle on time while the server has not answered tools/call yet", async () => {
    const server = new ScriptedServer({
      "tools/call": () => ({ afterMs: 30_000, reply: frame.created() }),
    });
    const client = await connect(server);
    const handle = client.callTool("compute", {}, { timeoutMs: 1000 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(handle.isSettled).toBe(true);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "deadline_exceeded" });
  });

  it("cancels a task the server creates after the deadline already ended the handle, since nobody holds its id", async () => {
    const server = new ScriptedServer({
      "tools/call": () => ({ afterMs: 5000, reply: frame.created() }),
    });
    const client = await connect(server);
    const handle = client.callTool("compute", {}, { timeoutMs: 1000 });
    await vi.advanceTimersByTimeAsync(1000);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "deadline_exceeded", taskId: undefined });

    await vi.advanceTimersByTimeAsync(4000);
    expect(server.sent("tasks/cancel").map((request) => request.params.taskId)).toEqual([TASK_ID]);
    expect(server.sent("tasks/get")).toEqual([]);
  });

  it("ends the handle on time while a poll hangs, not at the request timeout", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000 }),
      "tasks/get": () => ({ silent: true }),
    });
    const client = await connect(server, { requestTimeoutMs: 60_000 });
    const handle = client.callTool("compute", {}, { timeoutMs: 2500 });
    await vi.advanceTimersByTimeAsync(2499);
    expect(server.times("tasks/get")).toEqual([1000]); // still waiting for its answer
    expect(handle.isSettled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(handle.isSettled).toBe(true);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "deadline_exceeded", taskId: TASK_ID });
  });

  it("ends the handle on time while a poll is backing off from a fault", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000 }),
      "tasks/get": () => frame.rpcError(-32603, "Internal error"),
    });
    const client = await connect(server, { retry: { retries: 8, minTimeoutMs: 1000, maxTimeoutMs: 30_000 } });
    const handle = client.callTool("compute", {}, { timeoutMs: 2500 });
    await vi.advanceTimersByTimeAsync(2500);
    expect(handle.isSettled).toBe(true);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "deadline_exceeded" });
    const polls = server.sent("tasks/get").length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(server.sent("tasks/get")).toHaveLength(polls);
  });
});

describe("the createdAt + ttlMs backstop", () => {
  it("ends the handle with an expired TaskEndedError after ttlMs plus ttlGraceMs, without cancelling", async () => {
    const server = endlessTask(3000);
    const client = await connect(server, { ttlGraceMs: 500 });
    const handle = client.callTool("compute");
    const outcome = handle.outcome();

    await vi.advanceTimersByTimeAsync(3499);
    expect(handle.isSettled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const ended = await outcome;
    expect(ended.kind).toBe("expired");
    expect(ended.kind === "expired" && ended.error).toSatisfy(endedAs("expired"));
    // The error names when the TTL ended on the server's clock, not when the grace ran out.
    expect(ended).toMatchObject({ taskId: TASK_ID, error: { expiredAt: new Date(START + 3000) } });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.sent("tasks/cancel")).toEqual([]);
    expect(server.times("tasks/get")).toEqual([1000, 2000, 3000]);
  });

  it("ends the handle at the backstop while a poll hangs", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000, ttlMs: 3000 }),
      "tasks/get": () => ({ silent: true }),
    });
    const client = await connect(server, { ttlGraceMs: 0, requestTimeoutMs: 60_000 });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(2999);
    expect(server.times("tasks/get")).toEqual([1000]);
    expect(handle.isSettled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(handle.isSettled).toBe(true);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "expired", taskId: TASK_ID });
  });

  it("uses the default grace of 5 s when none is configured", async () => {
    const server = endlessTask(3000);
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(7999);
    expect(handle.isSettled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "expired" });
  });

  it("follows a TTL the server extends, and an unlimited TTL never expires", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000, ttlMs: 2000 }),
      "tasks/get": inOrder(
        frame.working({ pollIntervalMs: 1000, ttlMs: 10_000 }),
        frame.working({ pollIntervalMs: 1000, ttlMs: null }),
      ),
    });
    const client = await connect(server, { ttlGraceMs: 0 });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(handle.isSettled).toBe(false);
    handle.detach();
  });

  it("a terminal status that arrives before the backstop wins", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000, ttlMs: 3000 }),
      "tasks/get": inOrder(frame.working({ ttlMs: 3000 }), frame.completed("in time", { ttlMs: 3000 })),
    });
    const client = await connect(server, { ttlGraceMs: 0 });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(2000);
    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "in time" }] });
  });
});
