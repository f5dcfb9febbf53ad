/**
 * Polling cadence through a real TaskClient, measured in fake time at a scripted server: the server's
 * `pollIntervalMs` is followed and bounded, jitter stays in its window, terminal seeds are fetched at once,
 * and the in-flight cap holds.
 */
import { describe, expect, it, vi } from "vitest";
import { TransportError } from "mcp-tasks";
import {
  ScriptedServer,
  connect,
  frame,
  gaps,
  inOrder,
  useFakeTime,
  type Reply,
  type Script,
} from "./scripted-server.js";

useFakeTime();

describe("polling follows the server's pollIntervalMs", () => {
  it("polls at the interval the server suggests and follows it when it changes", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 500 }),
      "tasks/get": inOrder(
        frame.working({ pollIntervalMs: 500 }),
        frame.working({ pollIntervalMs: 2000, statusMessage: "slower now" }),
        frame.working({ pollIntervalMs: 2000, statusMessage: "slower now" }),
        frame.working({ pollIntervalMs: 300, statusMessage: "almost" }),
        frame.completed("42"),
      ),
    });
    const client = await connect(server);
    const handle = client.callTool("compute");

    await vi.advanceTimersByTimeAsync(6000);
    expect(server.times("tasks/get")).toEqual([500, 1000, 3000, 5000, 5300]);
    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "42" }] });
  });

  it("uses the creation-time hint only until the first tasks/get answers", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 3000 }),
      "tasks/get": inOrder(frame.working({ pollIntervalMs: 200 }), frame.completed()),
    });
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(3200);
    expect(server.times("tasks/get")).toEqual([3000, 3200]);
    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "done" }] });
  });
});

describe("a wild pollIntervalMs is bounded by the polling option", () => {
  const polling = { minIntervalMs: 50, defaultIntervalMs: 300, maxIntervalMs: 5000, jitter: 0 };
  const cases: Array<[string, number | undefined, number]> = [
    ["0 polls at the floor", 0, 50],
    ["a negative interval polls at the floor", -250, 50],
    ["a huge interval polls at the ceiling", 10 ** 12, 5000],
    ["an absent interval polls at the default", undefined, 300],
    ["a fractional interval is rounded", 120.6, 121],
  ];

  it.each(cases)("%s", async (_label, suggested, expected) => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: suggested }),
      "tasks/get": () => frame.working({ pollIntervalMs: suggested }),
    });
    const client = await connect(server, { polling });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(expected * 3);
    expect(server.times("tasks/get")).toEqual([expected, expected * 2, expected * 3]);
    handle.detach();
  });
});

describe("jitter", () => {
  it("keeps every gap between polls within [interval, interval + jitter]: never early", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000 }),
      "tasks/get": () => frame.working({ pollIntervalMs: 1000 }),
    });
    const client = await connect(server, { polling: { jitter: 0.5 } });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(40_000);

    const measured = gaps([0, ...server.times("tasks/get")]);
    expect(measured.length).toBeGreaterThanOrEqual(26); // at most 1500 ms apart over 40 s
    for (const gap of measured) {
      expect(gap).toBeGreaterThanOrEqual(1000);
      expect(gap).toBeLessThanOrEqual(1500);
    }
    // Jitter is applied, not only bounded: 27+ random gaps are not all the same.
    expect(new Set(measured).size).toBeGreaterThan(1);
    handle.detach();
  });

  it("reaches both ends of the window and no further", async () => {
    const randoms = [0, 1, 0, 1];
    vi.spyOn(Math, "random").mockImplementation(() => randoms.shift() ?? 0.5);
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000 }),
      "tasks/get": () => frame.working({ pollIntervalMs: 1000 }),
    });
    const client = await connect(server, { polling: { jitter: 0.5 } });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(5000);
    expect(gaps([0, ...server.times("tasks/get")])).toEqual([1000, 1500, 1000, 1500]);
    handle.detach();
  });
});

describe("terminal and input seeds", () => {
  it.each(["completed", "failed", "cancelled"])(
    "a CreateTaskResult already %s is followed at once by tasks/get, whatever its interval",
    async (status) => {
      const server = new ScriptedServer({
        "tools/call": () => frame.created({ status, pollIntervalMs: 60_000 }),
        "tasks/get": () => frame.completed("from tasks/get"),
      });
      const client = await connect(server);
      const handle = client.callTool("compute");
      await vi.advanceTimersByTimeAsync(0);
      expect(server.times("tasks/get")).toEqual([0]);
      // The payload comes from tasks/get, never from the seed.
      await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "from tasks/get" }] });
    },
  );

  it("a working seed is shown at once and polled at its interval", async () => {
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 700, statusMessage: "queued" }),
      "tasks/get": () => frame.completed(),
    });
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(0);
    expect(handle.status).toBe("working");
    expect(server.times("tasks/get")).toEqual([]);
    await vi.advanceTimersByTimeAsync(700);
    expect(server.times("tasks/get")).toEqual([700]);
  });
});

describe("the in-flight cap", () => {
  it("is not held by a poll waiting out its backoff: another task is polled meanwhile", async () => {
    vi.spyOn(Math, "random").mockReturnValue(1); // the full backoff
    const server = new ScriptedServer({
      "tools/call": (request) => frame.created({ taskId: String(request.params.name), pollIntervalMs: 100 }),
      "tasks/get": (request) =>
        request.params.taskId === "flaky"
          ? frame.rpcError(-32603, "Internal error")
          : frame.working({ taskId: "healthy", pollIntervalMs: 100 }),
    });
    const client = await connect(server, {
      maxInFlight: 1,
      retry: { retries: 3, minTimeoutMs: 2000, maxTimeoutMs: 2000 },
    });
    client.callTool("flaky");
    await vi.advanceTimersByTimeAsync(150); // flaky's poll at 100 failed: it waits out a 2 s backoff
    client.callTool("healthy");
    await vi.advanceTimersByTimeAsync(1000);
    const polled = (taskId: string) =>
      server
        .sent("tasks/get")
        .filter((request) => request.params.taskId === taskId)
        .map((r) => r.at);
    expect(polled("flaky")).toEqual([100]);
    expect(polled("healthy")).toEqual([250, 350, 450, 550, 650, 750, 850, 950, 1050, 1150]);
  });

  it("never has more than maxInFlight tasks/get awaiting an answer, and every task still completes", async () => {
    const pollsPerTask = new Map<string, number>();
    const server = new ScriptedServer({
      "tools/call": (request) => {
        const id = `task-${String((request.params.arguments as { n: number }).n).padStart(4, "0")}-x`;
        return frame.created({ taskId: id, pollIntervalMs: 100 });
      },
      "tasks/get": (request) => {
        const taskId = request.params.taskId as string;
        const polls = (pollsPerTask.get(taskId) ?? 0) + 1;
        pollsPerTask.set(taskId, polls);
        const reply =
          polls < 3 ? frame.working({ taskId, pollIntervalMs: 100 }) : frame.completed(taskId, { taskId });
        return { afterMs: 250, reply }; // a slow server: polls pile up against the cap
      },
    });
    const client = await connect(server, { maxInFlight: 2, polling: { minIntervalMs: 10 } });
    const handles = Array.from({ length: 6 }, (_, n) => client.callTool("compute", { n }));

    await vi.advanceTimersByTimeAsync(20_000);
    expect(server.peakInFlight.get("tasks/get")).toBe(2);
    const results = await Promise.all(handles);
    expect(results.map((result) => (result.content[0] as { text: string }).text)).toEqual(
      [...pollsPerTask.keys()].sort(),
    );
    expect(server.sent("tasks/get")).toHaveLength(18);
  });

  it("frees a poll's slot when the transport answers inside send(), so every task keeps its interval", async () => {
    const polls = new Map<string, number>();
    const server = new ScriptedServer({
      "tools/call": (request) => frame.created({ taskId: String(request.params.name), pollIntervalMs: 100 }),
      "tasks/get": (request): Reply => {
        const taskId = request.params.taskId as string;
        polls.set(taskId, (polls.get(taskId) ?? 0) + 1);
        return {
          atOnce:
            (polls.get(taskId) ?? 0) < 3
              ? frame.working({ taskId, pollIntervalMs: 100 })
              : frame.completed(taskId, { taskId }),
        };
      },
    });
    const client = await connect(server, { maxInFlight: 1 });
    const handles = [client.callTool("a"), client.callTool("b")];
    await vi.advanceTimersByTimeAsync(1000);
    const polled = (taskId: string) =>
      server
        .sent("tasks/get")
        .filter((request) => request.params.taskId === taskId)
        .map((r) => r.at);
    expect(polled("a")).toEqual([100, 200, 300]);
    expect(polled("b")).toEqual([100, 200, 300]);
    const results = await Promise.all(handles);
    expect(results.map((result) => (result.content[0] as { text: string }).text)).toEqual(["a", "b"]);
  });
});

describe("what may bring a poll forward (the cadence owner's one-shots)", () => {
  /** A task polled every 1000 ms that reports `cancelled` once the server took the cancel. */
  function cancellableServer(cancel: Script, pollReply: (reply: Reply) => Reply = (reply) => reply) {
    const state = { cancelled: false };
    const server = new ScriptedServer({
      "tools/call": () => frame.created({ pollIntervalMs: 1000 }),
      "tasks/get": () =>
        pollReply(state.cancelled ? frame.cancelled({ pollIntervalMs: 1000 }) : frame.working()),
      "tasks/cancel": (request) => {
        const reply = cancel(request);
        if ("result" in reply) state.cancelled = true;
        return reply;
      },
    });
    return server;
  }

  it("the retries of a failing tasks/cancel bring no poll forward; its acknowledgement brings one", async () => {
    vi.spyOn(Math, "random").mockReturnValue(1); // full backoff: retries 100, 200 and 400 ms apart
    const dropped = (): Reply => ({
      throws: new TransportError("tasks/cancel: socket hang up", { transient: true }),
    });
    const server = cancellableServer(inOrder(dropped, dropped, dropped, { result: {} }));
    const client = await connect(server, { retry: { minTimeoutMs: 100, maxTimeoutMs: 10_000 } });
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(1500);
    const cancelled = handle.cancel("stop");
    await vi.advanceTimersByTimeAsync(1000);
    expect(server.times("tasks/cancel")).toEqual([1500, 1600, 1800, 2200]); // three dropped, one answered
    // The regular poll at 2000, then one right after the cancel's answer (fake timers run a 0 ms timer set
    // during a tick 1 ms later): none for the three retries.
    expect(server.times("tasks/get")).toEqual([1000, 2000, 2201]);
    await expect(cancelled).resolves.toMatchObject({ outcome: { kind: "cancelled" } });
  });

  it("a one-shot asked for while a tasks/get is in flight goes out as soon as that poll answers", async () => {
    const server = cancellableServer(
      () => ({ result: {} }),
      (reply) => ({ afterMs: 300, reply }),
    );
    const client = await connect(server);
    const handle = client.callTool("compute");
    await vi.advanceTimersByTimeAsync(1100); // the poll sent at 1000 answers at 1300
    const cancelled = handle.cancel("stop");
    await vi.advanceTimersByTimeAsync(0);
    expect(server.times("tasks/cancel")).toEqual([1100]);
    await vi.advanceTimersByTimeAsync(300);
    // The poll in flight may have been answered before the cancel landed: one more, at once, not at 2300.
    expect(server.times("tasks/get")).toEqual([1000, 1300]);
    await vi.advanceTimersByTimeAsync(300);
    await expect(cancelled).resolves.toMatchObject({ outcome: { kind: "cancelled" } });
  });
});
