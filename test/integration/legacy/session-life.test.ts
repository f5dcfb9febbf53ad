/**
 * What a stored 2025-11-25 ref says about its HTTP session, and when `close()` ends a session, against the
 * reference server speaking 2025-11-25 over Streamable HTTP: a session stays while a task made in it may still
 * run (a deadline is not the task's end), and after the server's 404 for a task's session the refs written
 * no longer name that session (src/run/ref-life.ts, src/client/joined-sessions.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type TaskRef } from "../../../src/index.js";
import { memoryStore } from "../../../src/store/index.js";
import type { TaskStore } from "../../../src/store/types.js";
import {
  defineTool,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "../../../src/testing/index.js";
import { FAST, closesAfterEach, question, yes } from "../lifecycle/helpers.js";

const track = closesAfterEach();
let reference: HttpTaskServer;

beforeAll(async () => {
  reference = await startTaskServer({
    era: "2025-11-25",
    tools: [
      defineTool({
        name: "forever",
        task: "required",
        pollIntervalMs: 10,
        steps: [step.working("busy"), step.idle(100_000), step.complete(textResult("late"))],
      }),
      defineTool({
        name: "quick",
        task: "required",
        pollIntervalMs: 10,
        steps: [step.complete(textResult("ok"))],
      }),
      defineTool({
        // Busy for a while, so its first follower can leave before the question comes.
        name: "asks_later",
        task: "required",
        pollIntervalMs: 10,
        steps: [
          step.working("busy"),
          step.idle(20),
          step.input({ q: question }),
          step.complete(textResult("done")),
        ],
      }),
    ],
  });
});
afterAll(async () => {
  await reference.close();
});

/** The DELETE requests the server received for `session`. */
function deletesOf(session: string | undefined): number {
  return reference.requests
    .all()
    .filter((request) => request.httpMethod === "DELETE" && request.headers["mcp-session-id"] === session)
    .length;
}

describe("close() and a task whose deadline passed", () => {
  it("keeps the session: the deadline ended the handle, not the task, which still runs", async () => {
    // The control: a session whose only task is over is ended, so the log does show DELETEs.
    const done = await TaskClient.connect(reference.url, FAST);
    const finished = done.callTool("quick");
    const doneSession = (await finished.ref)?.session?.id;
    await finished;
    await done.close();
    expect(deletesOf(doneSession)).toBe(1);

    const client = await TaskClient.connect(reference.url, FAST);
    const handle = client.callTool("forever", {}, { timeoutMs: 200 });
    const ref = (await handle.ref) as TaskRef;
    expect(await handle.outcome()).toMatchObject({ kind: "deadline_exceeded", taskId: ref.taskId });
    await client.close();
    expect(ref.session?.id).toEqual(expect.any(String));
    expect(deletesOf(ref.session?.id)).toBe(0);
  });
});

describe("refs written after the server's 404 for a task's session", () => {
  it("no longer name the session the server ended", async () => {
    const inner = memoryStore();
    const first = await TaskClient.connect(reference.url, { ...FAST, store: inner });
    const handle = first.callTool("asks_later");
    const ref = (await handle.ref) as TaskRef;
    handle.detach();
    await first.close();
    const ended = ref.session?.id;
    expect(ended).toEqual(expect.any(String));
    const gone = await fetch(reference.url, {
      method: "DELETE",
      headers: { "mcp-session-id": ended ?? "", "mcp-protocol-version": "2025-11-25" },
    });
    expect(gone.status).toBe(200);

    // Every ref the second client hands its store, in order.
    const written: TaskRef[] = [];
    const store: TaskStore = {
      put: (put) => {
        written.push(put);
        return inner.put(put);
      },
      remove: (removed) => {
        written.push(removed);
        return inner.remove(removed);
      },
      list: (server) => inner.list(server),
    };
    const second = track(
      await TaskClient.connect(reference.url, {
        ...FAST,
        store,
        inputHandlers: { elicitation: () => Promise.resolve(yes) },
        logger: { warn: () => undefined },
      }),
    );
    const [resumed] = await second.resume();
    const task = resumed as NonNullable<typeof resumed>;
    expect(await task).toMatchObject({ content: [{ text: "done" }] });
    // The ref the handle gives out, and the one it removed from the store, are made after the 404.
    const refused = reference.requests
      .all()
      .filter((request) => request.headers["mcp-session-id"] === ended && request.status === 404);
    expect(refused.length).toBeGreaterThan(0); // the server's 404 came first
    const given = (await task.ref) as TaskRef;
    expect(given.taskId).toBe(ref.taskId);
    expect(given.session?.id).not.toBe(ended);
    expect(written.map((each) => [each.taskId, each.session?.id])).toEqual([[ref.taskId, undefined]]);
  });
});
