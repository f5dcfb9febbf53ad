/**
 * The host's one poll scheduler, through real `TaskClient`s on a real `TaskHost`, in fake time: a server that
 * stops answering `tasks/get` holds its share of the host's in-flight limit and no more, and every other
 * server's tasks are still polled exactly on their own `pollIntervalMs`; a server's `Retry-After` stays its own.
 */
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { TransportError } from "mcp-tasks";
import { TaskHost } from "mcp-tasks/host";
import { ScriptedServer, frame, inOrder, useFakeTime } from "../run/scripted-server.js";

useFakeTime();

/** Every scripted server here lists one tool, `job`. */
const TOOLS = { result: { tools: [{ name: "job", inputSchema: { type: "object" } }] } };

/** A server whose tasks poll every `intervalMs` and stay working. */
function steady(intervalMs: number): ScriptedServer {
  let next = 0;
  return new ScriptedServer({
    "tools/list": () => TOOLS,
    "tools/call": () => frame.created({ taskId: `task-${next++}`, pollIntervalMs: intervalMs }),
    "tasks/get": (request) =>
      frame.working({ taskId: String(request.params["taskId"]), pollIntervalMs: intervalMs }),
  });
}

/** A server that creates tasks and then never answers a `tasks/get`. */
function hanging(): ScriptedServer {
  let next = 0;
  return new ScriptedServer({
    "tools/list": () => TOOLS,
    "tools/call": () => frame.created({ taskId: `hung-${next++}`, pollIntervalMs: 100 }),
    "tasks/get": () => ({ silent: true }),
  });
}

async function hostOf(servers: Record<string, ScriptedServer>, maxInFlight: number): Promise<TaskHost> {
  const host = await TaskHost.connect({
    servers,
    maxInFlight,
    notifications: "off",
    polling: { jitter: 0 },
    reconnect: false,
    validateOutput: false,
  });
  onTestFinished(() => host.close());
  return host;
}

/** The poll times of each task of `server`, by task id. */
function pollsByTask(server: ScriptedServer): Record<string, number[]> {
  const times: Record<string, number[]> = {};
  for (const request of server.sent("tasks/get")) {
    (times[String(request.params["taskId"])] ??= []).push(request.at);
  }
  return times;
}

describe("one scheduler across servers, fairly shared", () => {
  it("a hanging server holds its share and the others poll on their own intervals", async () => {
    const stuck = hanging();
    const calm = steady(500);
    const host = await hostOf({ stuck, calm }, 4); // a share of 2 each
    const lost = Array.from({ length: 10 }, () => host.callTool("stuck__job"));
    const kept = Array.from({ length: 3 }, () => host.callTool("calm__job"));
    for (const handle of [...lost, ...kept]) handle.outcome().catch(() => undefined);

    await vi.advanceTimersByTimeAsync(5_000);

    // The stuck server got its two polls out and no more, however many of its tasks came due.
    expect(stuck.peakInFlight.get("tasks/get")).toBe(2);
    expect(stuck.sent("tasks/get")).toHaveLength(2);
    // Each of the calm server's tasks was polled every 500 ms, on the dot, the whole time.
    const every500 = [500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000];
    expect(pollsByTask(calm)).toEqual({ "task-0": every500, "task-1": every500, "task-2": every500 });
  });

  it("a server's polls wait for its own share only, and go out as its slots free", async () => {
    const busy = steady(1_000);
    const host = await hostOf({ busy, other: steady(1_000) }, 2); // a share of 1 each
    for (let i = 0; i < 3; i++)
      host
        .callTool("busy__job")
        .outcome()
        .catch(() => undefined);

    await vi.advanceTimersByTimeAsync(1_000);
    // Three tasks due at 1000 ms on a share of one: they go one after another, never two at once, never early.
    expect(busy.peakInFlight.get("tasks/get")).toBe(1);
    expect(busy.times("tasks/get")).toEqual([1000, 1000, 1000]);
  });

  it("one server's Retry-After does not slow another server down", async () => {
    const limited = new ScriptedServer({
      "tools/list": () => TOOLS,
      "tools/call": () => frame.created({ taskId: "limited", pollIntervalMs: 100 }),
      "tasks/get": inOrder(
        { throws: new TransportError("HTTP 429", { transient: true, retryAfterMs: 3_000 }) },
        frame.working({ taskId: "limited", pollIntervalMs: 100 }),
      ),
    });
    const calm = steady(250);
    const host = await hostOf({ limited, calm }, 4);
    host
      .callTool("limited__job")
      .outcome()
      .catch(() => undefined);
    host
      .callTool("calm__job")
      .outcome()
      .catch(() => undefined);

    await vi.advanceTimersByTimeAsync(1_000);
    expect(calm.times("tasks/get")).toEqual([250, 500, 750, 1000]);
    expect(limited.times("tasks/get")).toEqual([100]);
    await vi.advanceTimersByTimeAsync(4_000);
    // Its retry waited for its own Retry-After: 3 s from the failure, plus at most half of it in jitter.
    const [, retry] = limited.times("tasks/get") as [number, number];
    expect(retry).toBeGreaterThanOrEqual(3_100);
    expect(retry).toBeLessThanOrEqual(4_600);
    expect(calm.times("tasks/get")).toEqual(Array.from({ length: 20 }, (_, i) => 250 * (i + 1)));
  });

  it("refuses a host-wide limit below the number of servers", async () => {
    await expect(
      TaskHost.connect({ servers: { a: steady(100), b: steady(100), c: steady(100) }, maxInFlight: 2 }),
    ).rejects.toThrow("maxInFlight must be a whole number at least the number of servers (3), got 2");
  });
});
