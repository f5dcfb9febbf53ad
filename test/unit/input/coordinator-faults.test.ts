/**
 * tasks/update faults in the input coordinator: the client's retry timing and `retry` events (#4), and no
 * rejected promise left unobserved on any failure path.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LeaseLostError, RpcError, TransportError } from "../../../src/protocol/errors.js";
import { accepted, coordinatorHarness, deferred, elicitation, inputRequired, settle } from "./helpers.js";

const snapshot = inputRequired({ confirm: elicitation("Delete the file?") });
const dropped = () => new TransportError("HTTP 503", { status: 503, transient: true });

describe("tasks/update retries", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("follows the retry timing it is given and emits one retry event per retry", async () => {
    const { coordinator, channel, recorded } = coordinatorHarness({
      handlers: { elicitation: async () => accepted },
      retry: { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 5, factor: 1 },
    });
    const sentAt: number[] = [];
    channel.answer = async () => {
      sentAt.push(Date.now());
      if (sentAt.length <= 2) throw dropped();
      return { resultType: "complete" };
    };
    coordinator.observe(snapshot);
    await vi.advanceTimersByTimeAsync(10);
    await coordinator.whenIdle();
    expect(channel.updates).toEqual([{ confirm: accepted }, { confirm: accepted }, { confirm: accepted }]);
    const gaps = sentAt.slice(1).map((at, i) => at - (sentAt[i] as number));
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(5);
    expect(recorded.retries.map(({ method, attempt }) => [method, attempt])).toEqual([
      ["tasks/update", 1],
      ["tasks/update", 2],
    ]);
    expect(recorded.polls).toBe(1);
  });

  it("without retry options, backs off by the default timing and reports nothing (what the driver gets today)", async () => {
    vi.spyOn(Math, "random").mockReturnValue(1);
    const { coordinator, channel } = coordinatorHarness({
      handlers: { elicitation: async () => accepted },
      emitRetry: undefined,
    });
    let calls = 0;
    channel.answer = async () => {
      if (++calls === 1) throw dropped();
      return { resultType: "complete" };
    };
    coordinator.observe(snapshot);
    await vi.advanceTimersByTimeAsync(249);
    expect(channel.updates).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(channel.updates).toHaveLength(2);
    vi.restoreAllMocks();
  });
});

describe("tasks/update resends are written ahead like the first send", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("stores the answers (proving the lease) again before each resend, in that order", async () => {
    const steps: string[] = [];
    const { coordinator, channel } = coordinatorHarness({
      handlers: { elicitation: async () => accepted },
      retry: { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 5, factor: 1 },
      storeAnswers: async () => void steps.push("store"),
    });
    channel.answer = async () => {
      steps.push("update");
      if (steps.filter((step) => step === "update").length === 1) throw dropped();
      return { resultType: "complete" };
    };
    coordinator.observe(snapshot);
    await vi.advanceTimersByTimeAsync(10);
    await coordinator.whenIdle();
    expect(steps).toEqual(["store", "update", "store", "update"]);
  });

  it("sends no resend once the lease is lost (a worker woken after another took the task over)", async () => {
    let stores = 0;
    const lost = new LeaseLostError("another worker follows this task now");
    const { coordinator, channel } = coordinatorHarness({
      handlers: { elicitation: async () => accepted },
      retry: { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 5, factor: 1 },
      storeAnswers: async () => {
        if (++stores > 1) throw lost;
      },
    });
    channel.answer = async () => {
      throw new TransportError("tasks/update: timed out", { transient: true });
    };
    coordinator.observe(snapshot);
    await vi.advanceTimersByTimeAsync(50);
    await coordinator.whenIdle();
    expect(stores).toBe(2);
    expect(channel.updates).toEqual([{ confirm: accepted }]);
  });
});

describe("no unobserved rejected promise when tasks/update fails", () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on("unhandledRejection", onUnhandled);
  });
  afterEach(async () => {
    await settle();
    await settle();
    process.off("unhandledRejection", onUnhandled);
    expect(unhandled).toEqual([]);
  });

  const rejected = () => new RpcError("tasks/update", -32602, "rejected");

  it("a handler's answer rejected with a non-transient error", async () => {
    const { coordinator, channel, recorded } = coordinatorHarness({
      handlers: { elicitation: async () => accepted },
    });
    channel.answer = async () => {
      throw rejected();
    };
    coordinator.observe(snapshot);
    await settle();
    await coordinator.whenIdle();
    expect(channel.updates).toHaveLength(1);
    expect(recorded.failed).toEqual([]);
  });

  it("respond()'s answer rejected: only the caller's promise rejects", async () => {
    const waiting = deferred<typeof accepted>(); // the handler never answers: the app does, out of band
    const { coordinator, channel } = coordinatorHarness({ handlers: { elicitation: () => waiting.promise } });
    channel.answer = async () => {
      throw rejected();
    };
    coordinator.observe(snapshot);
    await settle();
    await expect(coordinator.respond("confirm", accepted)).rejects.toBeInstanceOf(RpcError);
  });

  it("transient faults until the retries run out", async () => {
    const { coordinator, channel } = coordinatorHarness({
      handlers: { elicitation: async () => accepted },
      retry: { retries: 2, minTimeoutMs: 0, maxTimeoutMs: 0, factor: 1 },
    });
    channel.answer = async () => {
      throw dropped();
    };
    coordinator.observe(snapshot);
    await settle();
    await coordinator.whenIdle();
    expect(channel.updates).toHaveLength(3);
  });

  it("the coordinator is disposed while an update is in flight", async () => {
    const pending = deferred<Record<string, unknown>>();
    const { coordinator, channel } = coordinatorHarness({ handlers: { elicitation: async () => accepted } });
    channel.answer = () => pending.promise;
    coordinator.observe(snapshot);
    await settle();
    coordinator.dispose();
    pending.reject(rejected());
    await coordinator.whenIdle();
  });

  it("policy cancel after repeated failures, with a cancel that fails too", async () => {
    // A plain function, not vi.fn(): a spy observes the promises it returns, which would hide the bug.
    let cancels = 0;
    const cancelTask = () => {
      cancels++;
      return Promise.reject(new TransportError("HTTP 503", { status: 503, transient: true }));
    };
    const { coordinator, channel, recorded } = coordinatorHarness({
      handlers: { elicitation: async () => accepted },
      policy: "cancel",
      maxUpdateFailures: 1,
      cancelTask,
    });
    channel.answer = async () => {
      throw rejected();
    };
    coordinator.observe(snapshot);
    await settle();
    await coordinator.whenIdle();
    expect(cancels).toBe(1);
    expect(recorded.unanswered).toHaveLength(1);
    expect(coordinator.closed).toBe(true);
  });
});
