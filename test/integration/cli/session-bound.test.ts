/**
 * `mcp-tasks call --detach`, then `watch` and `cancel` from other processes, against servers that keep tasks
 * per HTTP session: the official v1 SDK's tasks server and server-everything. The ref the first process stored
 * names the task's session; the later processes send the task's requests there.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV1TasksHttp, type RunningV1Server } from "../legacy/fixtures/v1-tasks-server.js";
import { startEverythingHttp, type EverythingHttp } from "../input/fixtures/everything.js";
import { runCli, stateDir } from "./harness.js";

let sdk: RunningV1Server;
let everything: EverythingHttp;
let state: ReturnType<typeof stateDir>;

beforeAll(async () => {
  state = stateDir();
  [sdk, everything] = await Promise.all([startV1TasksHttp(), startEverythingHttp()]);
});
afterAll(async () => {
  await Promise.all([sdk.close(), everything.close()]);
  state.remove();
});

interface PrintedRef {
  taskId: string;
  session?: { id: string; protocolVersion: string };
}

/** `call … --detach`: the ref it printed. */
async function detach(args: string[]): Promise<PrintedRef> {
  const run = await runCli(["call", ...args, "--detach"], state.env);
  expect(run.code, run.stderr).toBe(7);
  const ref = JSON.parse(run.stdout) as PrintedRef;
  expect(ref.session).toEqual({ id: expect.any(String), protocolVersion: "2025-11-25" });
  // The session id is a secret: the ref carries it, the messages for people do not.
  expect(run.stderr).not.toContain(ref.session?.id);
  return ref;
}

function storedText(dir: string): string {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .map((name) => readFileSync(join(dir, name), "utf8"))
    .join("\n");
}

describe("mcp-tasks on session-bound servers", () => {
  it("the official SDK's tasks server: --detach, then `watch` in another process prints the result", async () => {
    const ref = await detach([sdk.url, "report", "ms=600", "text=later"]);
    expect(storedText(state.storeDir)).toContain(ref.session?.id);
    const from = sdk.http.length;
    const watched = await runCli(["watch", ref.taskId], state.env);
    expect(watched.stderr).not.toContain(ref.session?.id);
    expect(watched.stdout).toBe("report: later\n");
    expect(watched.code).toBe(0);
    // The detaching process kept its session for the task (no DELETE); every task request of the watcher went
    // there, and the watcher ended its own session, where no task of its lived.
    const inTaskSession = sdk.http.filter((request) => request.session === ref.session?.id);
    expect(inTaskSession.map((request) => request.method)).not.toContain("DELETE");
    const watcher = sdk.http.slice(from);
    const taskRequests = watcher.filter((request) => request.rpc?.startsWith("tasks/") === true);
    expect(taskRequests.map((request) => request.rpc)).toEqual(
      expect.arrayContaining(["tasks/get", "tasks/result"]),
    );
    expect(taskRequests.every((request) => request.session === ref.session?.id)).toBe(true);
    const ended = watcher.filter((request) => request.method === "DELETE");
    expect(ended).toEqual([expect.objectContaining({ status: 200 })]);
    expect(ended[0]?.session).not.toBe(ref.session?.id);
  });

  it("the official SDK's tasks server: `cancel` in another process cancels a detached task", async () => {
    const ref = await detach([sdk.url, "forever"]);
    const cancelled = await runCli(["cancel", ref.taskId], state.env);
    // The server's `cancelled` status may reach the client before its acknowledgement of `tasks/cancel` (the
    // handle then ends without `ack`, as `CancelResult` says): the final word is what the user relies on.
    expect(cancelled.stderr).toContain("✗ cancelled");
    expect(cancelled.code).toBe(4);
    expect(cancelled.stderr).not.toContain(ref.session?.id);
  });

  it("server-everything: --detach simulate-research-query, then `watch` in another process prints the report", async () => {
    const ref = await detach([everything.url, "simulate-research-query", "topic=tides", "ambiguous=false"]);
    const watched = await runCli(["watch", ref.taskId], state.env, 30_000);
    expect(watched.stdout).toContain("# Research Report: tides");
    expect(watched.code).toBe(0);
  }, 40_000);
});
