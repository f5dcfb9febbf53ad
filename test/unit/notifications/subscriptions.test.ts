/**
 * `Subscriptions` on its own, under fake timers: batching ids into few listens, the caps on ids per listen and
 * open streams, demultiplexing by subscription id, and how a listen ends on each kind of transport.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { DetailedTask } from "../../../src/schema/index.js";
import { silentLogger } from "../../../src/protocol/logging.js";
import { RpcError, TransportError } from "../../../src/protocol/errors.js";
import type { RequestOptions } from "../../../src/session/types.js";
import {
  Subscriptions,
  type ListenChannel,
  type PushTarget,
} from "../../../src/notifications/subscriptions.js";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const RETRY = { retries: 3, minTimeoutMs: 100, maxTimeoutMs: 1000, factor: 2 };
/** How long an acknowledged stream must stay open to count as working (the client's notificationSafetyNetMs). */
const PROVEN_AFTER_MS = 5_000;

interface Listen {
  id: string;
  taskIds: string[];
  signal: AbortSignal | undefined;
  settle(error?: unknown): void;
}

class FakeChannel implements ListenChannel {
  readonly listens: Listen[] = [];
  readonly notified: Array<{ method: string; params: Record<string, unknown> }> = [];
  perRequestStreams: boolean;
  isClosed = false;
  private listener: ((method: string, params: Record<string, unknown>) => void) | undefined;
  private next = 0;

  constructor(perRequestStreams: boolean) {
    this.perRequestStreams = perRequestStreams;
  }

  request(method: string, params: Record<string, unknown>, options?: RequestOptions) {
    expect(method).toBe("subscriptions/listen");
    const id = `listen-${++this.next}`;
    options?.onId?.(id);
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      options?.signal?.addEventListener("abort", () => reject(options.signal?.reason));
      const taskIds = (params["notifications"] as { taskIds: string[] }).taskIds;
      this.listens.push({
        id,
        taskIds,
        signal: options?.signal,
        settle: (error) => (error === undefined ? resolve({}) : reject(error)),
      });
    });
  }

  async notify(method: string, params: Record<string, unknown>) {
    this.notified.push({ method, params });
  }

  onNotification(listener: (method: string, params: Record<string, unknown>) => void) {
    this.listener = listener;
    return () => (this.listener = undefined);
  }

  push(method: string, params: Record<string, unknown>, subscriptionId?: string) {
    const _meta = subscriptionId === undefined ? {} : { [SUBSCRIPTION_ID]: subscriptionId };
    this.listener?.(method, { ...params, _meta });
  }

  acknowledge(listen: Listen, taskIds = listen.taskIds) {
    this.push("notifications/subscriptions/acknowledged", { notifications: { taskIds } }, listen.id);
  }
}

/** Records what the subscriptions told it; when to poll is the run's own business (its cadence owner). */
class FakeRun implements PushTarget {
  pushed = false;
  readonly seen: DetailedTask[] = [];
  readonly told: string[] = [];
  pushing(caughtUp: boolean) {
    if (this.pushed) {
      this.told.push("pushing"); // carried into a merged listen: the real run ignores it
      return;
    }
    this.pushed = true;
    this.told.push(caughtUp ? "pushing, caught up" : "pushing");
  }
  notPushed(broke: boolean) {
    if (!this.pushed) return; // as the real run: nothing to end
    this.pushed = false;
    this.told.push(broke ? "broke" : "notPushed");
  }
  observe(snapshot: DetailedTask) {
    this.seen.push(snapshot);
  }
}

function setUp(perRequestStreams = true, limits: { maxIdsPerListen?: number; maxStreams?: number } = {}) {
  const channel = new FakeChannel(perRequestStreams);
  const subscriptions = new Subscriptions({
    channel,
    log: silentLogger,
    retry: RETRY,
    provenAfterMs: PROVEN_AFTER_MS,
    ...limits,
  });
  const runs = new Map<string, FakeRun>();
  const adopt = (...taskIds: string[]) => {
    for (const taskId of taskIds) {
      const run = new FakeRun();
      runs.set(taskId, run);
      subscriptions.follow(run, taskId);
    }
  };
  const runOf = (taskId: string) => runs.get(taskId) as FakeRun;
  return { channel, subscriptions, adopt, runOf };
}

function ids(count: number, prefix = "t"): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}${index}`);
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("Subscriptions", () => {
  it("batches ids adopted within the window into one listen", async () => {
    const { channel, adopt } = setUp();
    adopt("a", "b");
    await vi.advanceTimersByTimeAsync(5);
    adopt("c");
    expect(channel.listens).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(10);
    expect(channel.listens.map((listen) => listen.taskIds)).toEqual([["a", "b", "c"]]);
  });

  it("caps ids per listen and open streams; ten thousand tasks need a handful of streams", async () => {
    const { channel, adopt, subscriptions } = setUp();
    adopt(...ids(10_000));
    await vi.advanceTimersByTimeAsync(10);
    expect(channel.listens.map((listen) => listen.taskIds.length)).toEqual([2500, 2500, 2500, 2500]);
    adopt("late");
    await vi.advanceTimersByTimeAsync(10);
    expect(subscriptions.openStreams).toBe(4); // full: the late id waits (and keeps polling)
    expect(channel.listens).toHaveLength(4);
  });

  it("merges new ids into the stream with most room once at the stream cap", async () => {
    const { channel, adopt, subscriptions, runOf } = setUp(true, { maxIdsPerListen: 4, maxStreams: 2 });
    adopt(...ids(8));
    await vi.advanceTimersByTimeAsync(10);
    for (const listen of channel.listens) channel.acknowledge(listen);
    adopt("n0");
    await vi.advanceTimersByTimeAsync(10);
    expect(channel.listens).toHaveLength(2); // no room anywhere: n0 waits, polled as usual
    for (const taskId of ["t0", "t1", "t2"]) subscriptions.released(runOf(taskId), taskId);
    await vi.advanceTimersByTimeAsync(10);
    // The first stream now carries one live task: one listen for it and n0 will replace it.
    expect(channel.listens.map((listen) => listen.taskIds)).toEqual([ids(4), ids(8).slice(4), ["t3", "n0"]]);
    // Make before break: the old stream keeps pushing t3 until the merged listen is acknowledged.
    expect(channel.listens[0]?.signal?.aborted).toBe(false);
    expect(subscriptions.openStreams).toBe(3);
    const update = {
      status: "working",
      createdAt: "2026-01-01T00:00:00Z",
      lastUpdatedAt: "2026-01-01T00:00:01Z",
    };
    channel.push("notifications/tasks", { taskId: "t3", ...update, ttlMs: null }, channel.listens[0]?.id);
    expect(runOf("t3").seen).toHaveLength(1);
    channel.acknowledge(channel.listens[2] as Listen);
    expect(channel.listens[0]?.signal?.aborted).toBe(true);
    expect(subscriptions.openStreams).toBe(2);
    // t3 was pushed all along: told so again, never that its push ended (which would bring a poll forward).
    expect(runOf("t3").told).toEqual(["pushing", "pushing"]);
    expect(runOf("n0").told).toEqual(["pushing"]);
  });

  it("a merged listen that fails leaves the carried tasks on their stream and the new ones polled", async () => {
    const { channel, adopt, subscriptions, runOf } = setUp(true, { maxIdsPerListen: 4, maxStreams: 1 });
    adopt("a");
    await vi.advanceTimersByTimeAsync(10);
    channel.acknowledge(channel.listens[0] as Listen);
    adopt("b");
    await vi.advanceTimersByTimeAsync(10);
    expect(channel.listens.map((listen) => listen.taskIds)).toEqual([["a"], ["a", "b"]]);
    (channel.listens[1] as Listen).settle(new RpcError("subscriptions/listen", -32603, "busy"));
    await vi.advanceTimersByTimeAsync(0);
    expect(channel.listens[0]?.signal?.aborted).toBe(false);
    expect(runOf("a").told).toEqual(["pushing"]);
    expect(runOf("b").told).toEqual([]); // never pushed: it was polled all along
    expect(subscriptions.openStreams).toBe(1);
    // The stream that stayed can be merged into again.
    adopt("c");
    await vi.advanceTimersByTimeAsync(10);
    expect(channel.listens.at(-1)?.taskIds).toEqual(["a", "c"]);
  });

  it("waits for a merge's acknowledgement before merging into its stream again", async () => {
    const { channel, adopt } = setUp(true, { maxIdsPerListen: 4, maxStreams: 1 });
    adopt("a");
    await vi.advanceTimersByTimeAsync(10);
    channel.acknowledge(channel.listens[0] as Listen);
    adopt("b");
    await vi.advanceTimersByTimeAsync(10);
    adopt("c");
    await vi.advanceTimersByTimeAsync(10);
    expect(channel.listens.map((listen) => listen.taskIds)).toEqual([["a"], ["a", "b"]]);
    channel.acknowledge(channel.listens[1] as Listen);
    await vi.advanceTimersByTimeAsync(10);
    expect(channel.listens.map((listen) => listen.taskIds)).toEqual([["a"], ["a", "b"], ["a", "b", "c"]]);
  });

  it("closes a stream once none of its tasks is live: HTTP aborts, stdio sends notifications/cancelled", async () => {
    for (const perRequestStreams of [true, false]) {
      const { channel, adopt, subscriptions, runOf } = setUp(perRequestStreams);
      adopt("a", "b");
      await vi.advanceTimersByTimeAsync(10);
      const listen = channel.listens[0] as Listen;
      channel.acknowledge(listen);
      subscriptions.released(runOf("a"), "a");
      expect(listen.signal?.aborted).toBe(false);
      subscriptions.released(runOf("b"), "b");
      expect(listen.signal?.aborted).toBe(true);
      expect(subscriptions.openStreams).toBe(0);
      const cancelled = channel.notified.filter((entry) => entry.method === "notifications/cancelled");
      expect(cancelled).toEqual(
        perRequestStreams
          ? []
          : [
              {
                method: "notifications/cancelled",
                params: expect.objectContaining({ requestId: listen.id }),
              },
            ],
      );
    }
  });

  it("routes notifications by subscription id and ignores other subscriptions'", async () => {
    const { channel, adopt, runOf } = setUp(false);
    adopt("a");
    await vi.advanceTimersByTimeAsync(10);
    const listen = channel.listens[0] as Listen;
    channel.acknowledge(listen);
    expect(runOf("a").pushed).toBe(true);
    const task = {
      taskId: "a",
      status: "working",
      createdAt: "2026-01-01T00:00:00Z",
      lastUpdatedAt: "2026-01-01T00:00:01Z",
      ttlMs: null,
    };
    channel.push("notifications/tasks", task, "someone-else");
    channel.push("notifications/tasks", { ...task, status: "bogus" }, listen.id);
    channel.push("notifications/tasks", task, listen.id);
    expect(runOf("a").seen).toHaveLength(1); // the foreign and the invalid one were dropped
  });

  it("a stream that proved itself and then broke has its tasks polled at once and listened for again", async () => {
    const { channel, adopt, runOf } = setUp();
    adopt("a");
    await vi.advanceTimersByTimeAsync(10);
    for (let round = 1; round <= RETRY.retries + 2; round++) {
      const listen = channel.listens.at(-1) as Listen;
      channel.acknowledge(listen);
      expect(runOf("a").pushed).toBe(true);
      await vi.advanceTimersByTimeAsync(PROVEN_AFTER_MS); // open long enough: it works
      listen.settle(new Error("stream lost"));
      await vi.advanceTimersByTimeAsync(0);
      expect(runOf("a").told.at(-1)).toBe("broke"); // the run polls at once
      // A proven stream's end starts the count over: the first backoff (100 ms, up to 100 % jitter), every time.
      await vi.advanceTimersByTimeAsync(2 * RETRY.minTimeoutMs);
      expect(channel.listens).toHaveLength(round + 1);
    }
  });

  it("an acknowledgement alone proves nothing: streams closed at once back off and stop (decision 10)", async () => {
    const { channel, adopt, runOf } = setUp();
    adopt("a");
    await vi.advanceTimersByTimeAsync(10);
    // A server that acknowledges every listen and ends it at once.
    for (let listens = 1; listens < 20; listens++) {
      const listen = channel.listens.at(-1) as Listen;
      channel.acknowledge(listen);
      listen.settle();
      await vi.advanceTimersByTimeAsync(4 * RETRY.maxTimeoutMs);
      if (channel.listens.length === listens) break; // no re-listen came: given up
    }
    // The first acknowledgement made the task pushed (one catch-up poll); its stream ended unproven, which brings
    // no poll forward ("notPushed": back to the interval). Later acknowledgements never made it pushed again.
    expect(runOf("a").told).toEqual(["pushing", "notPushed"]);
    // One listen, then one per unproven end until `retries` of them in a row: then polling only.
    expect(channel.listens).toHaveLength(RETRY.retries + 1);
  });

  it("re-listens after unproven ends wait longer each time", async () => {
    const { channel, adopt } = setUp();
    adopt("a");
    await vi.advanceTimersByTimeAsync(10);
    const waits: number[] = [];
    for (let end = 1; end <= RETRY.retries; end++) {
      const listen = channel.listens.at(-1) as Listen;
      channel.acknowledge(listen);
      listen.settle();
      const endedAt = Date.now();
      while (channel.listens.at(-1) === listen) await vi.advanceTimersByTimeAsync(1);
      waits.push(Date.now() - endedAt);
    }
    // Backoff 100, 200, 400 ms, each lengthened by up to 100 %.
    expect(waits[0]).toBeGreaterThanOrEqual(100);
    expect(waits[0]).toBeLessThanOrEqual(200);
    expect(waits[1]).toBeGreaterThanOrEqual(200);
    expect(waits[1]).toBeLessThanOrEqual(400);
    expect(waits[2]).toBeGreaterThanOrEqual(400);
    expect(waits[2]).toBeLessThanOrEqual(800);
  });

  it("a task whose streams ended unproven is pushed again, without a catch-up poll, once one proves itself", async () => {
    const { channel, adopt, runOf } = setUp();
    adopt("a");
    await vi.advanceTimersByTimeAsync(10);
    channel.acknowledge(channel.listens[0] as Listen);
    (channel.listens[0] as Listen).settle(); // ended at once: unproven
    await vi.advanceTimersByTimeAsync(2 * RETRY.minTimeoutMs);
    const second = channel.listens[1] as Listen;
    channel.acknowledge(second);
    expect(runOf("a").pushed).toBe(false); // polled at its interval while the stream proves itself
    await vi.advanceTimersByTimeAsync(PROVEN_AFTER_MS - 1);
    expect(runOf("a").pushed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(runOf("a").told).toEqual(["pushing", "notPushed", "pushing, caught up"]);
    // Forgiven: the next end is a proven stream's, polled at once and listened for after the first backoff.
    second.settle(new Error("stream lost"));
    await vi.advanceTimersByTimeAsync(2 * RETRY.minTimeoutMs);
    expect(runOf("a").told.at(-1)).toBe("broke");
    expect(channel.listens).toHaveLength(3);
  });

  it("falls back to polling for a refused listen and stops listening after -32601", async () => {
    const { channel, adopt } = setUp();
    adopt("a");
    await vi.advanceTimersByTimeAsync(10);
    (channel.listens[0] as Listen).settle(new RpcError("subscriptions/listen", -32601, "Method not found"));
    await vi.advanceTimersByTimeAsync(0);
    adopt("b");
    await vi.advanceTimersByTimeAsync(100);
    expect(channel.listens).toHaveLength(1);
  });

  for (const status of [404, 405]) {
    it(`stops listening for good after a listen answered HTTP ${status}`, async () => {
      const { channel, adopt, runOf } = setUp();
      adopt("a");
      await vi.advanceTimersByTimeAsync(10);
      const refused = new TransportError("subscriptions/listen: HTTP refused", { status, transient: false });
      (channel.listens[0] as Listen).settle(refused);
      await vi.advanceTimersByTimeAsync(5 * RETRY.maxTimeoutMs);
      adopt("b");
      await vi.advanceTimersByTimeAsync(100);
      expect(channel.listens).toHaveLength(1);
      expect(runOf("a").told).toEqual([]); // never pushed, so polled all along
    });
  }

  it("keeps listening after an HTTP 5xx: a break, not a refusal", async () => {
    const { channel, adopt } = setUp();
    adopt("a");
    await vi.advanceTimersByTimeAsync(10);
    channel.acknowledge(channel.listens[0] as Listen);
    const broke = new TransportError("subscriptions/listen: HTTP 503", { status: 503, transient: true });
    (channel.listens[0] as Listen).settle(broke);
    await vi.advanceTimersByTimeAsync(2 * RETRY.maxTimeoutMs);
    expect(channel.listens).toHaveLength(2);
  });
});
