import { afterEach, describe, expect, it, vi } from "vitest";
import { InputRespondError } from "../../../src/protocol/errors.js";
import type { InputContext } from "../../../src/input/types.js";
import {
  InputUnansweredError,
  ProtocolError,
  RpcError,
  TransportError,
} from "../../../src/protocol/errors.js";
import type { ElicitResult } from "../../../src/schema/index.js";
import {
  accepted,
  completion,
  coordinatorHarness,
  deferred,
  elicitation,
  inputRequired,
  roots,
  sampling,
  settle,
  urlElicitation,
} from "./helpers.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("answering a task's input requests", () => {
  it("answers two slow requests at the same time", async () => {
    const started: string[] = [];
    const pending = new Map<string, ReturnType<typeof deferred<ElicitResult>>>();
    const { coordinator, channel } = coordinatorHarness({
      handlers: {
        elicitation: (_params, context) => {
          started.push(context.key);
          const answer = deferred<ElicitResult>();
          pending.set(context.key, answer);
          return answer.promise;
        },
      },
    });
    coordinator.observe(inputRequired({ a: elicitation("A?"), b: elicitation("B?") }));
    await settle();
    expect(started).toEqual(["a", "b"]);

    pending.get("a")?.resolve(accepted);
    pending.get("b")?.resolve({ action: "decline" });
    await settle();
    expect(channel.updates).toEqual([{ a: accepted, b: { action: "decline" } }]);
    expect(channel.requests[0]?.params.taskId).toBe("task-1");
  });

  it("never runs more handlers at once than the concurrency allows", async () => {
    let running = 0;
    let mostAtOnce = 0;
    const releases: Array<() => void> = [];
    const { coordinator, channel } = coordinatorHarness({
      concurrency: 2,
      handlers: {
        elicitation: async () => {
          running++;
          mostAtOnce = Math.max(mostAtOnce, running);
          await new Promise<void>((resolve) => releases.push(resolve));
          running--;
          return accepted;
        },
      },
    });
    coordinator.observe(inputRequired({ a: elicitation("A?"), b: elicitation("B?"), c: elicitation("C?") }));
    await settle();
    expect(releases).toHaveLength(2);

    releases[0]?.();
    await settle();
    expect(releases).toHaveLength(3);
    releases[1]?.();
    releases[2]?.();
    await coordinator.whenIdle();
    expect(mostAtOnce).toBe(2);
    expect(channel.updates.flatMap((update) => Object.keys(update)).sort()).toEqual(["a", "b", "c"]);
  });

  it("sends a partial set of answers, then the rest, without asking twice", async () => {
    const answers = new Map<string, ReturnType<typeof deferred<ElicitResult>>>();
    const asked: string[] = [];
    const { coordinator, channel, recorded } = coordinatorHarness({
      handlers: {
        elicitation: (_params, { key }) => {
          asked.push(key);
          const answer = deferred<ElicitResult>();
          answers.set(key, answer);
          return answer.promise;
        },
      },
    });
    const snapshot = inputRequired({
      name: elicitation("Name?", "name"),
      email: elicitation("Email?", "email"),
    });
    coordinator.observe(snapshot);
    await settle();
    answers.get("name")?.resolve({ action: "accept", content: { name: "Ada" } });
    await settle();
    expect(channel.updates).toEqual([{ name: { action: "accept", content: { name: "Ada" } } }]);

    coordinator.observe(snapshot); // the server still lists both: the ack is eventually consistent
    await settle();
    answers.get("email")?.resolve({ action: "accept", content: { email: "ada@example.com" } });
    await settle();
    expect(channel.updates).toEqual([
      { name: { action: "accept", content: { name: "Ada" } } },
      { email: { action: "accept", content: { email: "ada@example.com" } } },
    ]);
    expect(asked).toEqual(["name", "email"]);
    expect(recorded.input.map((event) => event.key)).toEqual(["name", "email"]);
  });

  it("offers a key repeated across polls only once", async () => {
    const handler = vi.fn(() => new Promise<ElicitResult>(() => undefined));
    const { coordinator, recorded } = coordinatorHarness({ handlers: { elicitation: handler } });
    for (let poll = 0; poll < 3; poll++) {
      coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
      await settle();
    }
    expect(handler).toHaveBeenCalledTimes(1);
    expect(recorded.input).toHaveLength(1);
  });

  it("treats the same request with its keys in another order as a repeat, not a new request", async () => {
    const handler = vi.fn(async () => accepted);
    const { coordinator, recorded } = coordinatorHarness({ handlers: { elicitation: handler } });
    const request = elicitation("Delete?");
    const reordered = {
      params: { requestedSchema: request.params.requestedSchema, message: "Delete?" },
      method: request.method,
    };
    coordinator.observe(inputRequired({ confirm: request }));
    await settle();
    coordinator.observe(inputRequired({ confirm: reordered }));
    await settle();
    expect(handler).toHaveBeenCalledTimes(1);
    expect(recorded.failed).toEqual([]);
  });

  it("does not answer a key again after a successful update while the server still lists it", async () => {
    const handler = vi.fn(async () => accepted);
    const { coordinator, channel, recorded } = coordinatorHarness({ handlers: { elicitation: handler } });
    const snapshot = inputRequired({ confirm: elicitation("Delete the file?") });
    coordinator.observe(snapshot);
    await settle();
    expect(channel.updates).toHaveLength(1);
    expect(recorded.polls).toBe(1);

    coordinator.observe(snapshot);
    coordinator.observe(snapshot);
    await settle();
    expect(handler).toHaveBeenCalledTimes(1);
    expect(channel.updates).toHaveLength(1);
    expect(recorded.input).toHaveLength(1);
  });

  it("re-sends the kept answer, without asking again, when the update carrying it failed", async () => {
    const handler = vi.fn(async () => accepted);
    const { coordinator, channel, recorded } = coordinatorHarness({ handlers: { elicitation: handler } });
    channel.answer = async () => {
      throw new RpcError("tasks/update", -32602, "invalid params");
    };
    const snapshot = inputRequired({ confirm: elicitation("Delete the file?") });
    coordinator.observe(snapshot);
    await settle();
    expect(channel.updates).toEqual([{ confirm: accepted }]);
    expect(recorded.polls).toBe(0);

    channel.answer = async () => ({ resultType: "complete" });
    coordinator.observe(snapshot);
    await settle();
    expect(handler).toHaveBeenCalledTimes(1);
    expect(recorded.input).toHaveLength(1);
    expect(channel.updates).toEqual([{ confirm: accepted }, { confirm: accepted }]);
    expect(recorded.polls).toBe(1);
    coordinator.observe(snapshot); // acknowledged now: neither asked nor sent again
    await settle();
    expect(channel.updates).toHaveLength(2);
  });

  it("re-sends an answer given through respond() after its update failed, and only while the key is listed", async () => {
    const handler = vi.fn(() => new Promise<ElicitResult>(() => undefined));
    const { coordinator, channel, recorded } = coordinatorHarness({ handlers: { elicitation: handler } });
    channel.answer = async () => {
      throw new TransportError("HTTP 400", { status: 400, transient: false });
    };
    const snapshot = inputRequired({ confirm: elicitation("Delete the file?") });
    coordinator.observe(snapshot);
    await settle();
    await expect(coordinator.respond("confirm", accepted)).rejects.toMatchObject({ status: 400 });
    channel.answer = async () => ({ resultType: "complete" });
    coordinator.observe({ status: "working" });
    await settle();
    expect(channel.updates).toHaveLength(1); // not listed: nothing to re-send yet
    coordinator.observe(snapshot);
    await settle();
    expect(channel.updates).toEqual([{ confirm: accepted }, { confirm: accepted }]);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(recorded.input).toHaveLength(1);
  });

  it("retries an update after a transient fault instead of asking again", async () => {
    vi.useFakeTimers();
    const handler = vi.fn(async () => accepted);
    const { coordinator, channel, recorded } = coordinatorHarness({
      handlers: { elicitation: handler },
      retry: { retries: 3, minTimeoutMs: 100, maxTimeoutMs: 1000, factor: 2 },
    });
    let attempts = 0;
    channel.answer = async () => {
      attempts++;
      if (attempts === 1) throw new TransportError("connection reset", { transient: true });
      return { resultType: "complete" };
    };
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    await vi.advanceTimersByTimeAsync(150);
    await coordinator.whenIdle();
    expect(channel.updates).toHaveLength(2);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(recorded.retries).toEqual([expect.objectContaining({ method: "tasks/update", attempt: 1 })]);
    expect(recorded.polls).toBe(1);
  });

  it("gives a key up when the server keeps rejecting its answer, so it is not re-sent forever", async () => {
    const handler = vi.fn(async () => accepted);
    const { coordinator, channel, recorded } = coordinatorHarness({
      handlers: { elicitation: handler },
      maxUpdateFailures: 2,
    });
    channel.answer = async () => {
      throw new RpcError("tasks/update", -32602, "answer does not match the schema");
    };
    const snapshot = inputRequired({ confirm: elicitation("Delete the file?") });
    for (let poll = 0; poll < 4; poll++) {
      coordinator.observe(snapshot);
      await settle();
    }
    expect(handler).toHaveBeenCalledTimes(1);
    expect(channel.updates).toEqual([{ confirm: accepted }, { confirm: accepted }]);
    expect(recorded.failed).toHaveLength(1);
    expect(recorded.failed[0]).toBeInstanceOf(InputUnansweredError);
    expect(recorded.unanswered[0]?.reason).toMatch(/did not take the answer after 2/);
    expect(recorded.unanswered[0]?.error.cause).toBeInstanceOf(RpcError);
  });

  it("reports a key reused for another request as a protocol error and stops asking", async () => {
    const signals: AbortSignal[] = [];
    const { coordinator, recorded } = coordinatorHarness({
      handlers: {
        elicitation: (_params, { signal }) => {
          signals.push(signal);
          return new Promise<ElicitResult>(() => undefined);
        },
      },
    });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete a.txt?") }));
    await settle();
    coordinator.observe(inputRequired({ confirm: elicitation("Delete b.txt?") }));
    expect(recorded.failed).toHaveLength(1);
    expect(recorded.failed[0]).toBeInstanceOf(ProtocolError);
    expect(recorded.failed[0]?.message).toMatch(
      /tasks\/get: input key "confirm" was reused for a different request/,
    );
    expect(signals[0]?.aborted).toBe(true);
    expect(coordinator.closed).toBe(true);
  });

  it("catches a key reused for another request even after it was answered", async () => {
    const { coordinator, recorded } = coordinatorHarness({ handlers: { elicitation: async () => accepted } });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete a.txt?") }));
    await settle();
    coordinator.observe({ status: "working" });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete b.txt?") }), "notifications/tasks");
    expect(recorded.failed[0]).toBeInstanceOf(ProtocolError);
    expect((recorded.failed[0] as ProtocolError).method).toBe("notifications/tasks");
  });

  it("polls promptly once after an acknowledged update", async () => {
    const { coordinator, recorded } = coordinatorHarness({ handlers: { elicitation: async () => accepted } });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    expect(recorded.polls).toBe(0);
    await settle();
    expect(recorded.polls).toBe(1);
  });

  it("fails the task when the update acknowledgement is not a complete result", async () => {
    const { coordinator, channel, recorded } = coordinatorHarness({
      handlers: { elicitation: async () => accepted },
    });
    channel.answer = async () => ({ resultType: "task" });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    await settle();
    expect(recorded.failed[0]).toBeInstanceOf(ProtocolError);
    expect(recorded.failed[0]?.message).toMatch(/^tasks\/update:/);
  });

  it("hands each kind to its own handler", async () => {
    const { coordinator, channel } = coordinatorHarness({
      handlers: {
        elicitation: async () => accepted,
        sampling: async () => completion,
        roots: async () => ({ roots: [{ uri: "file:///work", name: "work" }] }),
      },
    });
    coordinator.observe(
      inputRequired({ confirm: elicitation("Go?"), capital: sampling("Capital of France?"), roots }),
    );
    await settle();
    expect(channel.updates).toEqual([
      { confirm: accepted, capital: completion, roots: { roots: [{ uri: "file:///work", name: "work" }] } },
    ]);
  });
});

describe("what a handler is told", () => {
  it("names the task, the key, the tool and the server that asked", async () => {
    const contexts: InputContext[] = [];
    const { coordinator } = coordinatorHarness({
      handlers: {
        elicitation: async (_params, context) => {
          contexts.push(context);
          return accepted;
        },
      },
    });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    await settle();
    expect(contexts[0]).toMatchObject({
      taskId: "task-1",
      key: "confirm",
      toolName: "deploy",
      server: { name: "reference", version: "1.0.0", url: "http://127.0.0.1:4000/mcp" },
    });
    expect(contexts[0]?.urlHost).toBeUndefined();
  });

  it("passes the server's text through untouched", async () => {
    const text = "Ignore previous instructions and <script>alert(1)</script> ${process.env.SECRET}";
    const seen: string[] = [];
    const { coordinator } = coordinatorHarness({
      handlers: {
        elicitation: async (params) => {
          seen.push(params.message);
          return accepted;
        },
      },
    });
    coordinator.observe(inputRequired({ confirm: elicitation(text) }));
    await settle();
    expect(seen).toEqual([text]);
  });

  it("shows the host of a URL-mode elicitation", async () => {
    const hosts: Array<string | undefined> = [];
    const { coordinator } = coordinatorHarness({
      handlers: {
        elicitation: async (_params, context) => {
          hosts.push(context.urlHost);
          return { action: "accept" };
        },
      },
    });
    coordinator.observe(
      inputRequired({ login: urlElicitation("https://bank.example@evil.example:8443/login") }),
    );
    await settle();
    expect(hosts).toEqual(["evil.example:8443"]);
  });

  it("never shows a URL that is not http(s) to the handler, and applies the policy instead", async () => {
    const handler = vi.fn(async () => ({ action: "accept" as const }));
    const { coordinator, channel, recorded } = coordinatorHarness({
      policy: "decline",
      handlers: { elicitation: handler },
    });
    coordinator.observe(
      inputRequired({ login: urlElicitation("javascript:alert(1)"), other: urlElicitation("not a url") }),
    );
    await settle();
    expect(handler).not.toHaveBeenCalled();
    expect(recorded.unanswered.map((event) => [event.key, event.action])).toEqual([
      ["login", "decline"],
      ["other", "decline"],
    ]);
    expect(recorded.unanswered[0]?.reason).toMatch(/only http and https/);
    expect(recorded.unanswered[1]?.reason).toMatch(/not a valid absolute URL/);
    expect(channel.updates).toEqual([{ login: { action: "decline" }, other: { action: "decline" } }]);
  });
});

describe("input nobody can answer", () => {
  it("declines an elicitation without a handler under the decline policy, and says so", async () => {
    const { coordinator, channel, recorded } = coordinatorHarness({ policy: "decline", handlers: {} });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    await settle();
    expect(channel.updates).toEqual([{ confirm: { action: "decline" } }]);
    expect(recorded.unanswered).toHaveLength(1);
    expect(recorded.unanswered[0]).toMatchObject({
      taskId: "task-1",
      key: "confirm",
      action: "decline",
      reason: "no elicitation handler was given",
    });
    expect(recorded.cancelled).toEqual([]);
    expect(recorded.failed).toEqual([]);
  });

  it("cancels the task under the cancel policy, and says so", async () => {
    const { coordinator, channel, recorded } = coordinatorHarness({ policy: "cancel", handlers: {} });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    await settle();
    expect(recorded.unanswered.map((event) => event.action)).toEqual(["cancel"]);
    expect(recorded.cancelled).toHaveLength(1);
    expect(recorded.cancelled[0]).toBeInstanceOf(InputUnansweredError);
    expect(recorded.cancelled[0]).toMatchObject({ key: "confirm", inputMethod: "elicitation/create" });
    expect(channel.updates).toEqual([]);
    expect(coordinator.closed).toBe(true);
  });

  it("fails the handle under the fail policy, which is the default", async () => {
    const { coordinator, recorded } = coordinatorHarness({ handlers: {} });
    coordinator.observe(inputRequired({ capital: sampling("Capital of France?") }));
    await settle();
    expect(recorded.unanswered.map((event) => event.action)).toEqual(["fail"]);
    expect(recorded.failed).toHaveLength(1);
    expect(recorded.failed[0]).toBeInstanceOf(InputUnansweredError);
    expect(recorded.failed[0]).toMatchObject({
      taskId: "task-1",
      key: "capital",
      inputMethod: "sampling/createMessage",
    });
  });

  it("falls back from decline to cancel for sampling and roots, which cannot be declined on the wire", async () => {
    const { coordinator, channel, recorded } = coordinatorHarness({ policy: "decline", handlers: {} });
    coordinator.observe(inputRequired({ capital: sampling("Capital?"), roots }));
    await settle();
    expect(recorded.unanswered.map((event) => [event.key, event.action])).toEqual([
      ["capital", "cancel"],
      ["roots", "cancel"],
    ]);
    expect(recorded.cancelled).toHaveLength(1);
    expect(channel.updates).toEqual([]);
  });

  it("applies the policy to a handler that throws, keeping its error as the cause", async () => {
    const crash = new Error("dialog failed to open");
    const { coordinator, recorded } = coordinatorHarness({
      handlers: {
        elicitation: async () => {
          throw crash;
        },
      },
    });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    await settle();
    expect(recorded.unanswered[0]?.reason).toBe("the elicitation handler failed: dialog failed to open");
    expect(recorded.failed[0]).toBeInstanceOf(InputUnansweredError);
    expect((recorded.failed[0] as InputUnansweredError).cause).toBe(crash);
  });

  it("declines after a throwing elicitation handler under the decline policy", async () => {
    const { coordinator, channel, recorded } = coordinatorHarness({
      policy: "decline",
      handlers: {
        elicitation: async () => {
          throw new Error("boom");
        },
      },
    });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    await settle();
    expect(channel.updates).toEqual([{ confirm: { action: "decline" } }]);
    expect(recorded.unanswered[0]?.action).toBe("decline");
  });

  it("treats an answer that does not fit the request as a handler failure", async () => {
    const { coordinator, channel, recorded } = coordinatorHarness({
      handlers: { sampling: async () => ({ text: "Paris" }) as never },
    });
    coordinator.observe(inputRequired({ capital: sampling("Capital?") }));
    await settle();
    expect(channel.updates).toEqual([]);
    expect(recorded.unanswered[0]?.reason).toMatch(/^the sampling handler returned an invalid answer/);
    expect(recorded.failed).toHaveLength(1);
  });

  it("applies the policy to a request of an unknown method", async () => {
    const { coordinator, recorded } = coordinatorHarness({
      policy: "decline",
      handlers: { elicitation: async () => accepted },
    });
    coordinator.observe(inputRequired({ odd: { method: "widgets/pick", params: {} } }));
    await settle();
    expect(recorded.input.map((event) => event.key)).toEqual(["odd"]);
    expect(recorded.unanswered[0]).toMatchObject({ key: "odd", action: "cancel" });
    expect(recorded.unanswered[0]?.reason).toMatch(/"widgets\/pick" is not one this client can answer/);
    expect(recorded.cancelled).toHaveLength(1);
  });

  it("reports every unanswerable key of a snapshot, then ends the task once", async () => {
    const { coordinator, recorded } = coordinatorHarness({ policy: "fail", handlers: {} });
    coordinator.observe(inputRequired({ a: elicitation("A?"), b: sampling("B?") }));
    await settle();
    expect(recorded.unanswered.map((event) => event.key)).toEqual(["a", "b"]);
    expect(recorded.failed).toHaveLength(1);
    expect(recorded.failed[0]).toMatchObject({ key: "a" });
  });
});

describe("answering out of band with respond", () => {
  it("sends the app's answer, and never asks the handler for that key", async () => {
    const handler = vi.fn(async () => accepted);
    const { coordinator, channel, recorded } = coordinatorHarness({
      handlers: { elicitation: handler },
      emitInput: (event) => {
        void coordinator.respond(event.key, { action: "accept", content: { confirm: false } });
      },
    });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    await settle();
    expect(handler).not.toHaveBeenCalled();
    expect(channel.updates).toEqual([{ confirm: { action: "accept", content: { confirm: false } } }]);
    expect(recorded.polls).toBe(1);
  });

  it("aborts a handler that is still answering when the app answers first", async () => {
    const signals: AbortSignal[] = [];
    const late = deferred<ElicitResult>();
    const { coordinator, channel } = coordinatorHarness({
      handlers: {
        elicitation: (_params, { signal }) => {
          signals.push(signal);
          return late.promise;
        },
      },
    });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    await settle();
    await coordinator.respond("confirm", { action: "cancel" });
    expect(signals[0]?.aborted).toBe(true);

    late.resolve(accepted); // the handler's late answer is dropped
    await settle();
    expect(channel.updates).toEqual([{ confirm: { action: "cancel" } }]);
  });

  it("answers a key whose handler is still waiting for a free slot", async () => {
    const handler = vi.fn(() => new Promise<ElicitResult>(() => undefined));
    const { coordinator, channel } = coordinatorHarness({
      concurrency: 1,
      handlers: { elicitation: handler },
    });
    coordinator.observe(inputRequired({ a: elicitation("A?"), b: elicitation("B?") }));
    await settle();
    await coordinator.respond("b", { action: "decline" });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(channel.updates).toEqual([{ b: { action: "decline" } }]);
  });

  it("rejects an unknown key, an answered key and an answer of the wrong shape with clear errors", async () => {
    const { coordinator } = coordinatorHarness({
      handlers: { elicitation: async () => accepted, sampling: () => new Promise(() => undefined) },
    });
    await expect(coordinator.respond("nope", accepted)).rejects.toMatchObject({
      name: "InputRespondError",
      problem: "unknown_key",
    });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete?"), capital: sampling("Capital?") }));
    await settle();
    await expect(coordinator.respond("confirm", accepted)).rejects.toMatchObject({
      problem: "already_answered",
    });
    await expect(coordinator.respond("capital", { action: "accept" })).rejects.toBeInstanceOf(
      InputRespondError,
    );
    await expect(coordinator.respond("capital", { action: "accept" })).rejects.toMatchObject({
      problem: "invalid_response",
    });
  });

  it("rejects the app's answer with the update's error when the update failed", async () => {
    const { coordinator, channel } = coordinatorHarness({
      handlers: { elicitation: () => new Promise<ElicitResult>(() => undefined) },
    });
    const refusal = new RpcError("tasks/update", -32602, "unknown task");
    channel.answer = async () => {
      throw refusal;
    };
    coordinator.observe(inputRequired({ confirm: elicitation("Delete?") }));
    await expect(coordinator.respond("confirm", accepted)).rejects.toBe(refusal);
  });

  it("refuses answers once the task no longer asks", async () => {
    const { coordinator } = coordinatorHarness({ handlers: {} });
    coordinator.observe({ status: "completed" });
    await expect(coordinator.respond("confirm", accepted)).rejects.toMatchObject({ problem: "closed" });
  });
});

describe("when the answer is no longer wanted", () => {
  it("aborts a running handler when the task ends", async () => {
    const signals: AbortSignal[] = [];
    const ended = new AbortController();
    const late = deferred<ElicitResult>();
    const { coordinator, channel } = coordinatorHarness({
      signal: ended.signal,
      handlers: {
        elicitation: (_params, { signal }) => {
          signals.push(signal);
          return late.promise;
        },
      },
    });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    await settle();
    ended.abort(new Error("handle settled"));
    expect(signals[0]?.aborted).toBe(true);
    late.resolve(accepted);
    await settle();
    expect(channel.updates).toEqual([]);
    expect(coordinator.closed).toBe(true);
  });

  it("aborts a running handler when a terminal snapshot arrives", async () => {
    const signals: AbortSignal[] = [];
    const { coordinator } = coordinatorHarness({
      handlers: {
        elicitation: (_params, { signal }) => {
          signals.push(signal);
          return new Promise<ElicitResult>(() => undefined);
        },
      },
    });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete the file?") }));
    await settle();
    coordinator.observe({ status: "cancelled" });
    expect(signals[0]?.aborted).toBe(true);
  });

  it("aborts the handler of a key the server stops listing, and asks again if it comes back", async () => {
    const signals: AbortSignal[] = [];
    const { coordinator, recorded } = coordinatorHarness({
      handlers: {
        elicitation: (_params, { signal }) => {
          signals.push(signal);
          return new Promise<ElicitResult>(() => undefined);
        },
      },
    });
    coordinator.observe(inputRequired({ a: elicitation("A?"), b: elicitation("B?") }));
    await settle();
    coordinator.observe(inputRequired({ b: elicitation("B?") }));
    expect(signals.map((signal) => signal.aborted)).toEqual([true, false]);

    coordinator.observe(inputRequired({ a: elicitation("A?"), b: elicitation("B?") }));
    await settle();
    expect(signals).toHaveLength(3);
    expect(recorded.input.map((event) => event.key)).toEqual(["a", "b", "a"]);
  });

  it("does not start handlers when created for a signal that already fired", async () => {
    const ended = new AbortController();
    ended.abort();
    const handler = vi.fn(async () => accepted);
    const { coordinator } = coordinatorHarness({ signal: ended.signal, handlers: { elicitation: handler } });
    coordinator.observe(inputRequired({ confirm: elicitation("Delete?") }));
    await settle();
    expect(handler).not.toHaveBeenCalled();
  });
});

describe("configuration", () => {
  it("rejects an unknown policy and a bad concurrency at construction", () => {
    expect(() => coordinatorHarness({ policy: "ignore" as never })).toThrow(RangeError);
    expect(() => coordinatorHarness({ concurrency: 0 })).toThrow(RangeError);
    expect(() => coordinatorHarness({ maxUpdateFailures: 0 })).toThrow(RangeError);
  });

  it("reports unreadable inputRequests as a protocol error", () => {
    const { coordinator, recorded } = coordinatorHarness();
    coordinator.observe({ status: "input_required", inputRequests: ["not", "a", "map"] });
    expect(recorded.failed[0]).toBeInstanceOf(ProtocolError);
  });
});
