import { describe, expect, it, vi } from "vitest";
import { InputRounds, runInputRounds, type InputRetry } from "../../../src/input/mrtr.js";
import type { InputHandlers, InputUnansweredEvent } from "../../../src/input/types.js";
import { InputUnansweredError, ProtocolError, TaskCancelledError } from "../../../src/protocol/errors.js";
import type { ElicitResult } from "../../../src/schema/index.js";
import type { InputRequestEvent } from "../../../src/task/types.js";
import { accepted, completion, deferred, elicitation, sampling, settle } from "./helpers.js";

const context = {
  toolName: "test_tool_with_task",
  server: { name: "reference", url: "http://127.0.0.1:4000/mcp" },
};

function askFor(inputRequests: Record<string, unknown>, requestState?: string) {
  return requestState === undefined
    ? { resultType: "input_required", inputRequests }
    : { resultType: "input_required", inputRequests, requestState };
}

const taskResult = {
  resultType: "task",
  taskId: "t-1",
  status: "working",
  createdAt: "2026-07-28T00:00:00Z",
  lastUpdatedAt: "2026-07-28T00:00:00Z",
  ttlMs: 60_000,
};

/** A server script: each retry gets the next answer; every retry is recorded. */
function scripted(...answers: Array<Record<string, unknown>>) {
  const retries: InputRetry[] = [];
  const resend = vi.fn(async (retry: InputRetry) => {
    retries.push(retry);
    const next = answers.shift();
    if (next === undefined) throw new Error("the script ran out of answers");
    return next;
  });
  return { retries, resend };
}

describe("input before the task exists (multi-round-trip)", () => {
  it("answers, echoes requestState unchanged, and returns the server's final answer", async () => {
    const state = "  AEAD:blob/with+odd=chars\u00e9 ";
    const { retries, resend } = scripted(
      askFor({ age: elicitation("Age?", "age") }, "second-state"),
      taskResult,
    );
    const handlers: InputHandlers = {
      elicitation: async (params): Promise<ElicitResult> =>
        params.message === "Name?"
          ? { action: "accept", content: { name: "Ada" } }
          : { action: "accept", content: { age: 36 } },
    };
    const result = await runInputRounds({
      first: askFor({ name: elicitation("Name?", "name") }, state),
      resend,
      handlers,
      context,
    });
    expect(result).toBe(taskResult);
    expect(retries).toEqual([
      { inputResponses: { name: { action: "accept", content: { name: "Ada" } } }, requestState: state },
      { inputResponses: { age: { action: "accept", content: { age: 36 } } }, requestState: "second-state" },
    ]);
  });

  it("sends no requestState when the server gave none", async () => {
    const { retries, resend } = scripted({ resultType: "complete", content: [] });
    await runInputRounds({
      first: askFor({ confirm: elicitation("Go?") }),
      resend,
      handlers: { elicitation: async () => accepted },
      context,
    });
    expect(retries).toEqual([{ inputResponses: { confirm: accepted } }]);
    expect("requestState" in (retries[0] ?? {})).toBe(false);
  });

  it("retries at once with only the requestState when the server asks for nothing", async () => {
    const { retries, resend } = scripted({ content: [] });
    await runInputRounds({
      first: { resultType: "input_required", requestState: "s1" },
      resend,
      handlers: {},
      context,
    });
    expect(retries).toEqual([{ requestState: "s1" }]);
  });

  it("returns a plain result as it came, for the caller to classify", async () => {
    const final = { content: [{ type: "text", text: "done" }] };
    const { resend } = scripted(final);
    const result = await runInputRounds({
      first: askFor({ confirm: elicitation("Go?") }, "s"),
      resend,
      handlers: { elicitation: async () => accepted },
      context,
    });
    expect(result).toBe(final);
  });

  it("stops a server that keeps asking after the round cap", async () => {
    let round = 0;
    const resend = vi.fn(async () =>
      askFor({ [`q${++round}`]: elicitation(`Question ${round}?`) }, `s${round}`),
    );
    const run = runInputRounds({
      first: askFor({ q0: elicitation("Question 0?") }, "s0"),
      resend,
      handlers: { elicitation: async () => accepted },
      maxRounds: 3,
      context,
    });
    await expect(run).rejects.toBeInstanceOf(ProtocolError);
    await expect(run).rejects.toThrow(/still asked for input after 3 rounds/);
    expect(resend).toHaveBeenCalledTimes(3);
  });

  it("fails fast when a round repeats the same requests and requestState", async () => {
    const handler = vi.fn(async () => accepted);
    const same = askFor({ confirm: elicitation("Go?") }, "stuck");
    const resend = vi.fn(async () => askFor({ confirm: elicitation("Go?") }, "stuck"));
    const run = runInputRounds({ first: same, resend, handlers: { elicitation: handler }, context });
    await expect(run).rejects.toThrow(/not advancing/);
    expect(resend).toHaveBeenCalledTimes(1);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("keeps going when the same request comes back with a new requestState", async () => {
    const { resend } = scripted(askFor({ confirm: elicitation("Go?") }, "s2"), { content: [] });
    const handler = vi.fn(async () => accepted);
    await runInputRounds({
      first: askFor({ confirm: elicitation("Go?") }, "s1"),
      resend,
      handlers: { elicitation: handler },
      context,
    });
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it("answers the requests of a round at the same time", async () => {
    const gates = [deferred<ElicitResult>(), deferred<ElicitResult>()];
    let started = 0;
    const { retries, resend } = scripted({ content: [] });
    const run = runInputRounds({
      first: askFor({ a: elicitation("A?"), b: elicitation("B?") }),
      resend,
      handlers: { elicitation: () => gates[started++]!.promise },
      context,
    });
    await settle();
    expect(started).toBe(2);
    gates[1]?.resolve({ action: "decline" });
    gates[0]?.resolve(accepted);
    await run;
    expect(retries[0]?.inputResponses).toEqual({ a: accepted, b: { action: "decline" } });
  });

  it("tells handlers there is no task yet", async () => {
    const seen: Array<string | undefined> = [];
    const { resend } = scripted({ content: [] });
    await runInputRounds({
      first: askFor({ confirm: elicitation("Go?") }),
      resend,
      handlers: {
        elicitation: async (_params, ctx) => {
          seen.push(ctx.taskId, ctx.toolName, ctx.server.url);
          return accepted;
        },
      },
      context,
    });
    expect(seen).toEqual([undefined, "test_tool_with_task", "http://127.0.0.1:4000/mcp"]);
  });

  it("reports the requests as input events", async () => {
    const events: InputRequestEvent[] = [];
    const { resend } = scripted({ content: [] });
    await runInputRounds({
      first: askFor({ confirm: elicitation("Go?") }),
      resend,
      handlers: { elicitation: async () => accepted },
      emitInput: (event) => events.push(event),
      context,
    });
    expect(events).toEqual([{ taskId: undefined, key: "confirm", request: elicitation("Go?") }]);
  });
});

describe("unanswerable input before the task exists", () => {
  it("fails the call with InputUnansweredError under the default policy", async () => {
    const unanswered: InputUnansweredEvent[] = [];
    const { resend } = scripted();
    const run = runInputRounds({
      first: askFor({ capital: sampling("Capital?") }),
      resend,
      handlers: {},
      emitUnanswered: (event) => unanswered.push(event),
      context,
    });
    await expect(run).rejects.toBeInstanceOf(InputUnansweredError);
    await expect(run).rejects.toMatchObject({
      key: "capital",
      inputMethod: "sampling/createMessage",
      taskId: undefined,
    });
    expect(unanswered.map((event) => event.action)).toEqual(["fail"]);
    expect(resend).not.toHaveBeenCalled();
  });

  it("ends the call cancelled under the cancel policy, with the reason attached", async () => {
    const { resend } = scripted();
    const run = runInputRounds({
      first: askFor({ confirm: elicitation("Go?") }),
      resend,
      handlers: {},
      policy: "cancel",
      context,
    });
    await expect(run).rejects.toBeInstanceOf(TaskCancelledError);
    await expect(run).rejects.toMatchObject({ confirmed: false, reason: expect.any(InputUnansweredError) });
  });

  it("declines an elicitation under the decline policy and carries on", async () => {
    const { retries, resend } = scripted({ content: [] });
    await runInputRounds({
      first: askFor({ confirm: elicitation("Go?") }),
      resend,
      handlers: {
        elicitation: async () => {
          throw new Error("no UI");
        },
      },
      policy: "decline",
      context,
    });
    expect(retries).toEqual([{ inputResponses: { confirm: { action: "decline" } } }]);
  });

  it("aborts the other handlers of the round when the policy ends the call", async () => {
    const signals: AbortSignal[] = [];
    const { resend } = scripted();
    const run = runInputRounds({
      // The sampling handler fails while the elicitation handler is still working: the policy ends the call.
      first: askFor({ slow: elicitation("Slow?"), broken: sampling("Summarize") }),
      resend,
      handlers: {
        elicitation: (_params, { signal }) => {
          signals.push(signal);
          return new Promise<ElicitResult>(() => undefined);
        },
        sampling: async () => {
          await settle();
          throw new Error("the model is offline");
        },
      },
      context,
    });
    await expect(run).rejects.toBeInstanceOf(InputUnansweredError);
    expect(signals).toHaveLength(1); // the slow handler was running when the call ended
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });
});

describe("answering a round out of band, and stopping", () => {
  it("takes the app's answer and aborts the handler working on it", async () => {
    const signals: AbortSignal[] = [];
    const { retries, resend } = scripted({ content: [] });
    const rounds = new InputRounds({
      handlers: {
        sampling: (_params, { signal }) => {
          signals.push(signal);
          return new Promise(() => undefined);
        },
      },
      context,
    });
    const run = rounds.run(askFor({ capital: sampling("Capital?") }), resend);
    await settle();
    await rounds.respond("capital", completion);
    await run;
    expect(signals[0]?.aborted).toBe(true);
    expect(retries).toEqual([{ inputResponses: { capital: completion } }]);
  });

  it("rejects respond for keys that are not asked, already answered, or of the wrong shape", async () => {
    const rounds = new InputRounds({ handlers: { sampling: () => new Promise(() => undefined) }, context });
    await expect(rounds.respond("capital", completion)).rejects.toMatchObject({ problem: "unknown_key" });
    const run = rounds.run(
      askFor({ capital: sampling("Capital?"), other: sampling("Other?") }),
      async () => ({ content: [] }),
    );
    await settle();
    await expect(rounds.respond("capital", { action: "accept" })).rejects.toMatchObject({
      problem: "invalid_response",
    });
    await rounds.respond("capital", completion);
    await expect(rounds.respond("capital", completion)).rejects.toMatchObject({
      problem: "already_answered",
    });
    await rounds.respond("other", completion);
    await run;
  });

  it("aborts running handlers and rejects with the signal's reason when aborted", async () => {
    const signals: AbortSignal[] = [];
    const stop = new AbortController();
    const { resend } = scripted();
    const run = runInputRounds({
      first: askFor({ confirm: elicitation("Go?") }),
      resend,
      handlers: {
        elicitation: (_params, { signal }) => {
          signals.push(signal);
          return new Promise<ElicitResult>(() => undefined);
        },
      },
      signal: stop.signal,
      context,
    });
    await settle();
    const reason = new Error("caller cancelled");
    stop.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(signals[0]?.aborted).toBe(true);
    expect(resend).not.toHaveBeenCalled();
  });

  it("rejects an unreadable round as a protocol error", async () => {
    const { resend } = scripted();
    await expect(
      runInputRounds({
        first: { resultType: "input_required", requestState: 42 },
        resend,
        handlers: {},
        context,
      }),
    ).rejects.toBeInstanceOf(ProtocolError);
    await expect(
      runInputRounds({
        first: { resultType: "input_required", inputRequests: "x" },
        resend,
        handlers: {},
        context,
      }),
    ).rejects.toBeInstanceOf(ProtocolError);
  });

  it("rejects a bad round cap at construction", () => {
    expect(() => new InputRounds({ handlers: {}, context, maxRounds: 0 })).toThrow(RangeError);
  });
});
