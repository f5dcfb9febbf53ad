/**
 * `detach()` while a cancel waits for the server's final word stops waiting at once: the handle ends
 * `detached`, it does not sit out `cancelGraceMs`.
 */
import { expect, it } from "vitest";
import { TaskClient } from "../../../src/index.js";
import { defineTool, startTaskServer, step } from "../../../src/testing/index.js";

/** Waits (bounded) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 10_000) throw new Error("timed out waiting for the cancel's follow-up poll");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it("ends a cancelling handle as detached as soon as detach() is called", async () => {
  const server = await startTaskServer({
    tools: [
      defineTool({
        name: "stubborn",
        task: "required",
        pollIntervalMs: 20,
        onCancel: "ignore",
        steps: [step.stall()],
      }),
    ],
  });
  // A grace far longer than the test: waiting it out would fail the test by its timeout. The exact "at once" is
  // pinned in fake time by test/unit/run/cancellation.test.ts.
  const client = await TaskClient.connect(server.url, { cancelGraceMs: 600_000 });
  try {
    const handle = client.callTool("stubborn");
    await handle.ref;
    const taskId = await handle.created;
    const cancelling = handle.cancel();
    // The cancel was acknowledged and the client polls for the final word: a tasks/get after the tasks/cancel.
    await until(() => {
      const log = server.requests.all();
      const cancelAt = log.findIndex((entry) => entry.method === "tasks/cancel");
      return cancelAt >= 0 && log.slice(cancelAt + 1).some((entry) => entry.method === "tasks/get");
    });
    expect(handle.isSettled).toBe(false);
    handle.detach();
    const outcome = await handle.outcome();
    expect(outcome).toMatchObject({ kind: "detached", taskId });
    const reply = await cancelling;
    expect(reply.outcome.kind).toBe("detached");
  } finally {
    await client.close();
    await server.close();
  }
});
