/**
 * Cancellation and detaching through a real TaskClient, in fake time: `tasks/cancel` (never
 * `notifications/cancelled`) sent exactly once, at the right moment, and the handle reporting what the server
 * finally said.
 */
import { describe, expect, it, vi } from "vitest";
import { TaskCancelledError, TransportError } from "mcp-tasks";
import { ScriptedServer, TASK_ID, connect, frame, inOrder, settle, useFakeTime } from "./scripted-server.js";
import { endedAs } from "../../fixtures/errors.js";

useFakeTime();

/** A task that works until it is cancelled, then reports `afterCancel` on every poll. */
function cancellableTask(afterCancel: () => ReturnType<typeof frame.working>) {
  let cancelled = false;
  return new ScriptedServer({
    "tools/call": () => frame.created({ pollIntervalMs: 1000 }),
    "tasks/get": () => (cancelled ? afterCancel() : frame.working({ pollIntervalMs: 1000 })),
    "tasks/cancel": () => {
      cancelled = true;
      return { result: {} };
    },
  });
}

describe("aborting before the task id is known", () => {
  it("sends tasks/cancel once the id arrives, exactly once, and never notifications/cancelled", async () => {
    const server = new ScriptedServer({
      "tools/call": () => ({ afterMs: 1000, reply: frame.created({ pollIntervalMs: 1000 }) }),
      "tasks/get": () => frame.cancelled(),
    });
    const client = await connect(server);
    const controller = new AbortController();
    const handle = client.callTool("compute", {}, { signal: controller.signal });

    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new Error("user gave up"));
    void handle.cancel("again"); // a second request to cancel changes nothing
    await vi.advanceTimersByTimeAsync(100);
    expect(server.sent("tasks/cancel")).toEqual([]); // nothing to name yet

    await vi.advanceTimersByTimeAsync(800);
    expect(server.sent("tasks/cancel").map((request) => [request.at, request.params.taskId])).toEqual([
      [1000, TASK_ID],
    ]);
    const outcome = await settle(handle.outcome());
    expect(outcome.kind === "cancelled" && outcome.error).toBeInstanceOf(TaskCancelledError);
    expect(outcome).toMatchObject({ kind: "cancelled", error: { confirmed: true, taskId: TASK_ID } });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.sent("tasks/cancel")).toHaveLength(1);
    expect(server.notifications).not.toContain("notifications/cancelled");
  });

  it("a call aborted while tools/call never answers ends as an unconfirmed cancellation", async () => {
    const server = new ScriptedServer({ "tools/call": () => ({ silent: true }) });
    const client = await connect(server, { requestTimeoutMs: 5000 });
    const controller = new AbortController();
    const handle = client.callTool("compute", {}, { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    const outcome = await settle(handle.outcome());
    expect(outcome).toMatchObject({ kind: "cancelled", taskId: undefined, error: { confirmed: false } });
    expect(server.sent("tasks/cancel")).toEqual([]);
  });

  it("an already-aborted signal sends nothing at all", async () => {
    const server = new ScriptedServer({ "tools/call": () => frame.created() });
    const client = await connect(server);
    const handle = client.callTool("compute", {}, { signal: AbortSignal.abort() });
    await expect(handle.outcome()).resolves.toMatchObject({
      kind: "cancelled",
      error: { confirmed: false },
    });
    expect(server.sent("tools/call")).toEqual([]);
  });
});

describe("cancel()", () => {
  it("twice sends one tasks/cancel", async () => {
    const server = cancellableTask(() => frame.cancelled());
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    const first = handle.cancel();
    const second = handle.cancel();
    await vi.advanceTimersByTimeAsync(0);
    await Promise.all([first, second]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(server.sent("tasks/cancel")).toHaveLength(1);
    expect(server.sent("tasks/cancel")[0]?.params.taskId).toBe(TASK_ID);
  });

  it("polls at once after the cancel is acknowledged", async () => {
    const server = cancellableTask(() => frame.cancelled());
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(300);
    void handle.cancel();
    await vi.advanceTimersByTimeAsync(0);
    expect(server.times("tasks/get")).toEqual([300]);
  });

  it("a task the server still completes resolves with its result", async () => {
    const server = cancellableTask(() => frame.completed("finished anyway"));
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    void handle.cancel();
    await vi.advanceTimersByTimeAsync(0);
    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "finished anyway" }] });
  });

  it("a task the server reports cancelled rejects with a confirmed TaskCancelledError", async () => {
    const server = cancellableTask(() => frame.cancelled());
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    const cancelling = handle.cancel("no longer needed");
    await vi.advanceTimersByTimeAsync(0);
    await expect(cancelling).resolves.toMatchObject({
      ack: {},
      error: undefined,
      outcome: { kind: "cancelled", taskId: TASK_ID },
    });
    const error = await handle.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(TaskCancelledError);
    expect(error).toMatchObject({ confirmed: true, taskId: TASK_ID, reason: "no longer needed" });
  });

  it("a server that stays silent past cancelGraceMs ends with an unconfirmed TaskCancelledError", async () => {
    const server = cancellableTask(() => frame.working({ pollIntervalMs: 1000 }));
    const client = await connect(server, { cancelGraceMs: 2500 });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    void handle.cancel();

    await vi.advanceTimersByTimeAsync(2499);
    expect(handle.isSettled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const outcome = await handle.outcome();
    expect(outcome).toMatchObject({ kind: "cancelled", taskId: TASK_ID, error: { confirmed: false } });
    const polls = server.sent("tasks/get").length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.sent("tasks/get")).toHaveLength(polls);
    expect(server.sent("tasks/cancel")).toHaveLength(1);
  });

  it("by default waits 10 s for the server's final word, then ends unconfirmed", async () => {
    const server = cancellableTask(() => frame.working({ pollIntervalMs: 1000 })); // ignores the cancel
    const client = await connect(server); // no cancelGraceMs: the documented default
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    void handle.cancel();
    await vi.advanceTimersByTimeAsync(9_999);
    expect(handle.isSettled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(handle.isSettled).toBe(true);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "cancelled", error: { confirmed: false } });
  });

  it("cancelGraceMs bounds a tasks/cancel that hangs", async () => {
    const server = cancellableTask(() => frame.working({ pollIntervalMs: 1000 }));
    server.on("tasks/cancel", () => ({ silent: true }));
    const client = await connect(server, { cancelGraceMs: 300, requestTimeoutMs: 60_000 });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    const cancelling = handle.cancel();
    await vi.advanceTimersByTimeAsync(299);
    expect(handle.isSettled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(cancelling).resolves.toMatchObject({
      ack: undefined,
      outcome: { kind: "cancelled", taskId: TASK_ID, error: { confirmed: false } },
    });
  });

  it("cancelGraceMs cuts short the retries of a tasks/cancel that keeps failing", async () => {
    vi.spyOn(Math, "random").mockReturnValue(1);
    const server = cancellableTask(() => frame.working({ pollIntervalMs: 1000 }));
    server.on("tasks/cancel", () => ({
      throws: new TransportError("tasks/cancel: HTTP 500", { status: 500, transient: true }),
    }));
    const client = await connect(server, {
      cancelGraceMs: 300,
      retry: { retries: 6, minTimeoutMs: 1000, maxTimeoutMs: 1000 },
    });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    const cancelling = handle.cancel();
    await vi.advanceTimersByTimeAsync(300);
    expect(handle.isSettled).toBe(true);
    const cancelled = await cancelling;
    expect(cancelled).toMatchObject({
      ack: undefined,
      outcome: { kind: "cancelled", error: { confirmed: false } },
      error: { status: 500 },
    });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.sent("tasks/cancel")).toHaveLength(1); // the retries stopped with the handle
  });

  it("after the task completed, sends nothing", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 100 }),
      "tasks/get": inOrder(frame.completed()),
    });
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(100);
    await handle;
    await expect(handle.cancel()).resolves.toMatchObject({ ack: undefined, outcome: { kind: "completed" } });
    expect(server.sent("tasks/cancel")).toEqual([]);
  });
});

describe("cancel() when the server's final word comes before its acknowledgement", () => {
  /** A task reported cancelled on its first poll (at 1,000 ms), whose `tasks/cancel` is answered after `ackMs`. */
  function finalWordFirst(ack: { afterMs: number } | "never") {
    return new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000 }),
      "tasks/get": () => frame.cancelled(),
      "tasks/cancel": () =>
        ack === "never"
          ? { silent: true }
          : { afterMs: ack.afterMs, reply: { result: { note: "stopping" } } },
    });
  }

  it("still reports the acknowledgement, which comes after the handle ended", async () => {
    const client = await connect(finalWordFirst({ afterMs: 1500 }), { cancelGraceMs: 5000 });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    const cancelling = settle(handle.cancel());
    await vi.advanceTimersByTimeAsync(1000);
    expect(handle.isSettled).toBe(true); // the poll at 1,000 ms brought the final word
    await vi.advanceTimersByTimeAsync(500);
    await expect(cancelling).resolves.toMatchObject({
      ack: { note: "stopping" },
      error: undefined,
      outcome: { kind: "cancelled", taskId: TASK_ID, error: { confirmed: true } },
    });
  });

  it("still reports an acknowledgement to a retry sent before the handle ended", async () => {
    vi.spyOn(Math, "random").mockReturnValue(1);
    const server = finalWordFirst({ afterMs: 1500 });
    let attempts = 0;
    server.on("tasks/cancel", () =>
      ++attempts === 1
        ? { throws: new TransportError("tasks/cancel: HTTP 503", { status: 503, transient: true }) }
        : { afterMs: 1500, reply: { result: { note: "stopping" } } },
    );
    const client = await connect(server, {
      cancelGraceMs: 5000,
      retry: { retries: 3, minTimeoutMs: 100, maxTimeoutMs: 100 },
    });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    const cancelling = settle(handle.cancel());
    await vi.advanceTimersByTimeAsync(1000);
    expect(server.sent("tasks/cancel")).toHaveLength(2); // the retry is on the wire when the final word comes
    expect(handle.isSettled).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    await expect(cancelling).resolves.toMatchObject({ ack: { note: "stopping" }, error: undefined });
    expect(server.sent("tasks/cancel")).toHaveLength(2);
  });

  it("waits for it no longer than the cancel's grace, and leaves no timer behind", async () => {
    const client = await connect(finalWordFirst("never"), { cancelGraceMs: 3000, requestTimeoutMs: 60_000 });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    let resolvedAt: number | undefined;
    const cancelling = handle.cancel().then((result) => {
      resolvedAt = Date.now();
      return result;
    });
    const start = Date.now();
    await vi.advanceTimersByTimeAsync(1000);
    expect(handle.isSettled).toBe(true);
    await vi.advanceTimersByTimeAsync(2000);
    await expect(cancelling).resolves.toMatchObject({ ack: undefined, outcome: { kind: "cancelled" } });
    expect((resolvedAt as number) - start).toBe(3000);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("detach()", () => {
  it("stops polling without cancelling, and the outcome is detached", async () => {
    const server = cancellableTask(() => frame.cancelled());
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(2000);
    expect(server.sent("tasks/get")).toHaveLength(2);

    handle.detach();
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "detached", taskId: TASK_ID });
    await expect(handle).rejects.toSatisfy(endedAs("detached"));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.sent("tasks/get")).toHaveLength(2);
    expect(server.sent("tasks/cancel")).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    expect(client.activeTasks).toBe(0);
  });

  it("before the task id is known, waits for the answer so the detached outcome carries the id", async () => {
    const server = cancellableTask(() => frame.cancelled());
    server.on("tools/call", () => ({ afterMs: 500, reply: frame.created({ pollIntervalMs: 1000 }) }));
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(100);
    handle.detach();
    expect(handle.isSettled).toBe(false);

    await vi.advanceTimersByTimeAsync(400);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "detached", taskId: TASK_ID });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.sent("tasks/get")).toEqual([]);
    expect(server.sent("tasks/cancel")).toEqual([]);
    expect(client.activeTasks).toBe(0);
  });

  it("while a cancel waits for the server's final word, ends the handle at once, not after cancelGraceMs", async () => {
    const server = cancellableTask(() => frame.working({ pollIntervalMs: 1000 })); // ignores the cancel
    const client = await connect(server, { cancelGraceMs: 30_000 });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    const cancelling = handle.cancel();
    await vi.advanceTimersByTimeAsync(5000);
    expect(server.sent("tasks/cancel")).toHaveLength(1);
    expect(handle.isSettled).toBe(false);

    handle.detach();
    await vi.advanceTimersByTimeAsync(0);
    expect(handle.isSettled).toBe(true);
    await expect(handle.outcome()).resolves.toMatchObject({ kind: "detached", taskId: TASK_ID });
    await expect(cancelling).resolves.toMatchObject({ outcome: { kind: "detached" } });
  });

  it("stops a poll that is backing off from a fault", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000 }),
      "tasks/get": () => frame.rpcError(-32603, "Internal error"),
    });
    const client = await connect(server, { retry: { retries: 8, minTimeoutMs: 1000, maxTimeoutMs: 30_000 } });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(1500); // first poll at 1000 failed; its retry is due at 2000
    handle.detach();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(server.sent("tasks/get")).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
