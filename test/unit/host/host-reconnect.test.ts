/**
 * A host's background reconnecting, in fake time: a server whose command cannot start is tried again on the
 * backoff's schedule, and `close()` ends the attempts.
 */
import { stat } from "node:fs/promises";
import { describe, expect, it, vi } from "vitest";
import { TaskHost } from "mcp-tasks/host";
import { ScriptedServer, useFakeTime } from "../run/scripted-server.js";

useFakeTime();

/**
 * Lets real I/O run (a failed spawn is reported by the operating system, not by a timer) until `count` attempts
 * have failed, for at most 200 turns of the real event loop.
 */
async function failedAttempts(failures: string[], count: number): Promise<number> {
  for (let turn = 0; turn < 200 && failures.length < count; turn++) await stat(".");
  return failures.length;
}

describe("a server that cannot start", () => {
  it("is tried again with backoff until the host is closed", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0);
    const failures: string[] = [];
    const planned: string[] = [];
    const host = await TaskHost.connect({
      servers: {
        ok: new ScriptedServer({ "tools/list": () => ({ result: { tools: [] } }) }),
        gone: { command: "/nonexistent/mcp-tasks-host-test-server" },
      },
      notifications: "off",
      reconnect: { retries: 100, minTimeoutMs: 1_000, maxTimeoutMs: 1_000 },
      logger: {
        debug: (message: string) => planned.push(message),
        warn: (message: string) => {
          if (message.includes("failed to connect")) failures.push(message);
        },
      },
    });
    expect(host.servers.map((status) => status.state)).toEqual(["ready", "failed"]);
    expect(failures).toHaveLength(1);
    // Each wait is drawn from [500, 1000] ms; with the random source at 0, 500 ms.
    await vi.advanceTimersByTimeAsync(499);
    expect(await failedAttempts(failures, 2)).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await failedAttempts(failures, 2)).toBe(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(await failedAttempts(failures, 3)).toBe(3);

    expect(planned).toEqual(
      [1, 2, 3].map((n) => `TaskHost: connecting server "gone" again in 500 ms (attempt ${n})`),
    );

    await host.close();
    await vi.advanceTimersByTimeAsync(60_000);
    await failedAttempts(failures, 4);
    expect(planned).toHaveLength(3);
    expect(failures).toHaveLength(3);
    expect(host.servers.map((status) => status.state)).toEqual(["closed", "closed"]);
  });
});
