/**
 * `detach()` while a cancel waits for the server's final word stops waiting at once: the handle ends
 * `detached`, it does not sit out `cancelGraceMs`.
 */
import { expect, it } from "vitest";
import { TaskClient } from "../../../src/index.js";
import { defineTool, startTaskServer, step } from "../../../src/testing/index.js";

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
  const client = await TaskClient.connect(server.url, { cancelGraceMs: 30_000 });
  try {
    const handle = client.callTool("stubborn");
    await handle.ref;
    const cancelling = handle.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = Date.now();
    handle.detach();
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("detached");
    expect(Date.now() - before).toBeLessThan(2_000);
    const reply = await cancelling;
    expect(reply.outcome.kind).toBe("detached");
  } finally {
    await client.close();
    await server.close();
  }
});
