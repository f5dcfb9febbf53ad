/**
 * `mcp-tasks/cloudflare` in Node, over a stand-in for `ctx.storage` (fake-storage.ts) and the real client against
 * the reference server on loopback: what the store keeps and where, the follower's events (an input request told
 * once, an ending told again when the author's callback failed), and a `connect` that forgets the store. The
 * runtime itself, with evictions, is tried in test/integration/engines/cloudflare.test.ts.
 */
import type { DurableObjectState } from "@cloudflare/workers-types";
import { TaskClient } from "mcp-tasks";
import {
  durableObjectStore,
  durableTasks,
  type DurableObjectStateLike,
  type DurableTaskEvent,
} from "mcp-tasks/cloudflare";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { afterEach, describe, expect, it } from "vitest";
import { agentTools } from "../../integration/engines/cloudflare-tools.js";
import { fakeStorage } from "./fake-storage.js";

// Cloudflare's own type fits the structural one the entry asks for.
export type StateFits = DurableObjectState extends DurableObjectStateLike ? true : never;
const fits: StateFits = true;

let server: HttpTaskServer | undefined;
const clients: TaskClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server?.close();
  server = undefined;
});

async function connect(url: string, store?: Parameters<typeof TaskClient.connect>[1]): Promise<TaskClient> {
  const client = await TaskClient.connect(url, store);
  clients.push(client);
  return client;
}

describe("durableObjectStore", () => {
  it("stores the ref before the task id is reported, under a hashed key, and removes it at the server's last word", async () => {
    expect(fits).toBe(true);
    server = await startTaskServer({ tools: agentTools(1) });
    const storage = fakeStorage();
    const client = await connect(server.url, { store: durableObjectStore(storage) });
    const handle = client.callTool("build_report", {});
    const seen: number[] = [];
    handle.on("task", () => seen.push(storage.data.size));
    const taskId = await handle.created;
    expect(seen).toEqual([1]);
    const [key] = [...storage.data.keys()];
    expect(key).toMatch(/^mcp-tasks:task:[0-9a-f]{64}$/);
    expect(key).not.toContain(taskId);
    expect(storage.data.get(key!)).toMatchObject({ ref: { v: 1, taskId, toolName: "build_report" } });
    expect((await handle.outcome()).kind).toBe("completed");
    await expect.poll(() => storage.data.size).toBe(0);
  });
});

describe("durableTasks", () => {
  it("sets the alarm with the ref, tells of an input request once, sends the stored answer once, reports the ending", async () => {
    server = await startTaskServer({ tools: agentTools(1) });
    const storage = fakeStorage();
    const events: DurableTaskEvent[] = [];
    const alarmWhenReported: Array<number | null> = [];
    const tasks = durableTasks(
      { storage },
      {
        connect: async (store) => {
          const client = await connect(server!.url, { store });
          client.on("task", () => alarmWhenReported.push(storage.alarmAt));
          return client;
        },
        onEvent: (event) => void events.push(event),
        minPollMs: 0,
      },
    );
    const call = await tasks.callTool("deploy");
    expect(call.taskId).toEqual(expect.any(String));
    // The alarm was set with the ref, before anyone heard of the task: an eviction then loses nothing.
    expect(alarmWhenReported).toEqual([expect.any(Number)]);
    for (let round = 0; round < 4; round++) await alarmWhenDue(tasks, storage);
    const inputs = events.filter((event) => event.type === "input");
    expect(inputs).toEqual([
      {
        type: "input",
        taskId: call.taskId,
        toolName: "deploy",
        key: "approval",
        kind: "elicitation",
        request: expect.objectContaining({ message: "Deploy to production?" }),
      },
    ]);
    expect(await tasks.respond(call.taskId!, "approval", { action: "accept", content: { ok: true } })).toBe(
      true,
    );
    await alarmWhenDue(tasks, storage);
    await alarmWhenDue(tasks, storage);
    expect(server.requests.forMethod("tasks/update")).toHaveLength(1);
    expect(events.filter((event) => event.type === "settled")).toMatchObject([
      { taskId: call.taskId, outcome: { kind: "completed", result: { content: [{ text: "deployed" }] } } },
    ]);
    expect(await tasks.list()).toEqual([]);
    expect(storage.alarmAt).toBeNull();
    expect(server.requests.forMethod("tools/call")).toHaveLength(1);
  });

  it("reports an ending again when the author's callback threw, and only then forgets the task", async () => {
    server = await startTaskServer({ tools: agentTools(1) });
    const storage = fakeStorage();
    const settled: string[] = [];
    let refuse = true;
    const tasks = durableTasks(
      { storage },
      {
        connect: (store) => connect(server!.url, { store }),
        onEvent: (event) => {
          if (event.type !== "settled") return;
          settled.push(event.outcome.kind);
          if (refuse) throw new Error("the agent's storage is full");
        },
        minPollMs: 0,
      },
    );
    await tasks.callTool("build_report");
    for (let round = 0; round < 5 && settled.length === 0; round++) await alarmWhenDue(tasks, storage);
    expect(settled).toEqual(["completed"]);
    expect(await tasks.list()).toHaveLength(1);
    refuse = false;
    await alarmWhenDue(tasks, storage, true);
    expect(settled).toEqual(["completed", "completed"]);
    expect(await tasks.list()).toEqual([]);
    expect(server.requests.forMethod("tools/call")).toHaveLength(1);
  });

  it("refuses a connect that does not pass the store, and cancels the task nothing would follow", async () => {
    server = await startTaskServer({ tools: agentTools(1) });
    const storage = fakeStorage();
    const tasks = durableTasks({ storage }, { connect: () => connect(server!.url) });
    await expect(tasks.callTool("build_report")).rejects.toThrow(
      "`connect` must pass its `store` to TaskClient.connect",
    );
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
    expect(storage.data.size).toBe(0);
  });
});

/** Runs the alarm once it is due (the stand-in has no runtime to fire it); `anyway` runs it now. */
async function alarmWhenDue(
  tasks: { alarm(): Promise<void> },
  storage: { alarmAt: number | null },
  anyway = false,
): Promise<void> {
  const at = storage.alarmAt;
  if (at === null && !anyway) return;
  if (at !== null) await new Promise((done) => setTimeout(done, Math.max(0, at - Date.now()) + 5));
  await tasks.alarm();
}
