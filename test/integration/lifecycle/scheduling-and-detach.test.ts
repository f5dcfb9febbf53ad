/**
 * A poll waiting out its backoff holds no in-flight slot, and a `detach()` made while input
 * rounds run before the task exists stops asking the input handlers. A real TaskClient against the reference
 * server over Streamable HTTP.
 */
import { describe, expect, it } from "vitest";
import { TaskClient, type TaskHandle } from "../../../src/index.js";
import { defineTool, elicitForm, startTaskServer, step, textResult } from "../../../src/testing/index.js";
import { FAST, closesAfterEach, when, yes } from "./helpers.js";

const track = closesAfterEach();

describe("a poll that is backing off", () => {
  // Counts only: the exact cadence (another task polled during the backoff) is pinned in fake time by
  // test/unit/run/cadence.test.ts ("the in-flight cap").
  it("does not hold the only in-flight slot: a healthy task completes while the backoff lasts", async () => {
    const server = track(
      await startTaskServer({
        tools: [
          defineTool({
            name: "flaky",
            task: "required",
            pollIntervalMs: 10,
            steps: [step.pollErrors(10), step.stall()],
          }),
          defineTool({
            name: "healthy",
            task: "required",
            pollIntervalMs: 10,
            steps: [step.working("1"), step.working("2"), step.complete(textResult("healthy done"))],
          }),
        ],
      }),
    );
    const client = track(
      await TaskClient.connect(server.url, {
        ...FAST,
        maxInFlight: 1,
        // A backoff far longer than the test: a client whose backoff held the slot never completes the other.
        retry: { minTimeoutMs: 60_000, maxTimeoutMs: 60_000, retries: 3 },
      }),
    );
    const flaky = client.callTool("flaky");
    // The flaky task's first poll failed: it is now waiting out a 60 s backoff.
    await when((listener) => flaky.on("retry", listener));
    const result = await client.callTool("healthy");
    expect(result.content).toEqual([{ type: "text", text: "healthy done" }]);
    const flakyId = await flaky.created;
    const flakyPolls = server.requests
      .forMethod("tasks/get")
      .filter((entry) => (entry.body as { params: { taskId: string } }).params.taskId === flakyId);
    expect(flakyPolls).toHaveLength(1); // still backing off
    expect(flaky.isSettled).toBe(false);
  });
});

describe("detach() during input rounds before the task exists", () => {
  it("stops running the input handlers for the remaining rounds: the handler is called once, not twice", async () => {
    const server = track(
      await startTaskServer({
        tools: [
          defineTool({
            name: "two_rounds",
            task: "required",
            pollIntervalMs: 10,
            beforeTask: [
              step.input({ first: elicitForm("First?", { ok: { type: "boolean" } }) }),
              step.input({ second: elicitForm("Second?", { ok: { type: "boolean" } }) }),
            ],
            steps: [step.complete(textResult("done"))],
          }),
        ],
      }),
    );
    const asked: string[] = [];
    const current: { handle?: TaskHandle } = {};
    const client = track(
      await TaskClient.connect(server.url, {
        ...FAST,
        inputHandlers: {
          elicitation: (params) => {
            asked.push(params.message);
            current.handle?.detach();
            return Promise.resolve(yes);
          },
        },
      }),
    );
    const handle = (current.handle = client.callTool("two_rounds"));
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("detached");
    expect(asked).toEqual(["First?"]);
    // No further round's answers were sent after the detach.
    expect(server.requests.forMethod("tools/call").length).toBeLessThanOrEqual(2);
  });
});
