import { describe, expect, it } from "vitest";
import { LegacyTaskRequests } from "../../../src/eras/legacy/requests.js";
import { legacyTaskSupport } from "../../../src/eras/legacy/capabilities.js";
import { ProtocolError, RpcError } from "../../../src/protocol/errors.js";
import { UnsupportedError } from "../../../src/protocol/errors.js";
import type { ReplyChannel } from "../../../src/session/types.js";
import { resolveRetryTiming } from "../../../src/scheduler/timing.js";

type Answer = Record<string, unknown> | Error | Promise<Record<string, unknown>>;

/** A channel that answers each method from a queue of scripted answers, recording what was sent. */
function scripted(script: Record<string, Answer[]>) {
  const sent: string[] = [];
  const channel: ReplyChannel = {
    request: async (method) => {
      sent.push(method);
      const next = script[method]?.shift();
      if (next === undefined) throw new Error(`unscripted ${method}`);
      if (next instanceof Error) throw next;
      return next;
    },
    // 2025-11-25 polls go through `get`, which sends with `request`.
    requestFor: () => {
      throw new Error("requestFor is not used on 2025-11-25");
    },
    notify: async () => undefined,
    onNotification: () => () => undefined,
  };
  return { channel, sent };
}

const base = {
  taskId: "t",
  createdAt: "2025-11-25T10:00:00Z",
  lastUpdatedAt: "2025-11-25T10:00:01Z",
  ttl: null,
};
const FULL = legacyTaskSupport({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
const requests = (channel: ReplyChannel, support = FULL) =>
  new LegacyTaskRequests(channel, resolveRetryTiming({ retries: 0 }), () => undefined, support);
const text = (value: string) => ({ content: [{ type: "text", text: value }] });

describe("2025-11-25 tasks/get through the same seam", () => {
  it("inlines the tasks/result of a completed task, as a 2026 tasks/get would", async () => {
    const { channel, sent } = scripted({
      "tasks/get": [{ ...base, status: "completed" }],
      "tasks/result": [text("done")],
    });
    expect(await requests(channel).get("t")).toMatchObject({ status: "completed", result: text("done") });
    expect(sent).toEqual(["tasks/get", "tasks/result"]);
  });

  it("presents a failed task with an isError result as completed, and a JSON-RPC error as failed", async () => {
    const { channel } = scripted({
      "tasks/get": [
        { ...base, status: "failed" },
        { ...base, status: "failed", statusMessage: "crashed" },
      ],
      "tasks/result": [{ ...text("bad"), isError: true }, new RpcError("tasks/result", -32603, "no result")],
    });
    const tasks = requests(channel);
    expect(await tasks.get("t")).toMatchObject({ status: "completed", result: { isError: true } });
    expect(await tasks.get("t")).toMatchObject({
      status: "failed",
      error: { code: -32603, message: "no result" },
    });
  });

  it("opens tasks/result once as the side channel while input is required, and uses its answer at the end", async () => {
    let answer!: (value: Record<string, unknown>) => void;
    const sideChannel = new Promise<Record<string, unknown>>((resolve) => (answer = resolve));
    const { channel, sent } = scripted({
      "tasks/get": [
        { ...base, status: "input_required" },
        { ...base, status: "input_required" },
        { ...base, status: "completed" },
      ],
      "tasks/result": [sideChannel],
    });
    const tasks = requests(channel);
    expect(await tasks.get("t")).toMatchObject({ status: "input_required", inputRequests: {} });
    await tasks.get("t");
    expect(tasks.openSideChannels).toBe(1);
    answer(text("answered"));
    expect(await tasks.get("t")).toMatchObject({ status: "completed", result: text("answered") });
    expect(sent.filter((m) => m === "tasks/result")).toHaveLength(1);
    expect(tasks.openSideChannels).toBe(0);
  });

  it("refuses an answer about another task", async () => {
    const { channel } = scripted({ "tasks/get": [{ ...base, taskId: "other", status: "working" }] });
    await expect(requests(channel).get("t")).rejects.toBeInstanceOf(ProtocolError);
  });

  it("refuses tasks/list and tasks/cancel where the server does not declare them", async () => {
    const { channel, sent } = scripted({});
    const bare = requests(channel, legacyTaskSupport({ tasks: {} }));
    await expect(bare.list()).rejects.toBeInstanceOf(UnsupportedError);
    await expect(bare.cancel("t", undefined)).rejects.toThrow(/capabilities\.tasks\.cancel/);
    expect(sent).toEqual([]);
  });

  it("pages through tasks/list and stops a cursor loop", async () => {
    const { channel } = scripted({
      "tasks/list": [
        { tasks: [{ ...base, status: "working" }], nextCursor: "a" },
        { tasks: [{ ...base, taskId: "u", status: "completed" }] },
        { tasks: [], nextCursor: "z" },
        { tasks: [], nextCursor: "z" },
      ],
    });
    const tasks = requests(channel);
    expect((await tasks.list()).map((t) => t.taskId)).toEqual(["t", "u"]);
    await expect(tasks.list()).rejects.toThrow(/paging loop/);
  });
});

describe("a side channel nobody follows any more", () => {
  it("is let go when the handle ends (forget), its late answer dropped", async () => {
    const { channel } = scripted({
      "tasks/get": [{ ...base, status: "input_required" }],
      "tasks/result": [new Promise<Record<string, unknown>>(() => undefined)],
    });
    const tasks = requests(channel);
    await tasks.get("t");
    expect(tasks.openSideChannels).toBe(1);
    tasks.forget("t");
    expect(tasks.openSideChannels).toBe(0);
  });

  it("is aborted when the handle ends, so its stream closes then, not at the request's timeout", async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const { channel } = scripted({ "tasks/get": [{ ...base, status: "input_required" }] });
    const request = channel.request;
    channel.request = (method, params, options) => {
      if (method !== "tasks/result") return request(method, params, options);
      signals.push(options?.signal);
      return new Promise(() => undefined);
    };
    const tasks = requests(channel);
    await tasks.get("t");
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(false);
    tasks.forget("t");
    expect(signals[0]?.aborted).toBe(true);
  });
});
