/**
 * Timing and input faults through the real TaskClient against the real reference server over HTTP on 127.0.0.1,
 * with a fault-injecting proxy in between (the server scripts the task, the proxy scripts its failures). These
 * assert lower bounds and counts only, so a slow machine cannot make them flaky; the exact timing policy is
 * tested with fake timers in test/unit/scheduler.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { TaskClient, type RetryEvent } from "../../../src/index.js";
import type { ElicitResult } from "../../../src/schema/index.js";
import {
  acceptedContent,
  defineTool,
  elicitForm,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "../../../src/testing/index.js";
import {
  rpcErrorFault,
  startFaultyProxy,
  type Fault,
  type FaultyProxy,
  type ProxiedRequest,
} from "./faulty-proxy.js";

const question = elicitForm("Proceed?", { ok: { type: "boolean" } }, ["ok"]);
const yes: ElicitResult = { action: "accept", content: { ok: true } };

const tools = [
  defineTool({
    name: "ask_once",
    task: "required",
    pollIntervalMs: 5,
    steps: [
      step.input({ q: question }),
      step.complete((call) => textResult(acceptedContent(call, "q")?.ok === true ? "went ahead" : "held")),
    ],
  }),
  defineTool({
    name: "slow_steps",
    task: "required",
    pollIntervalMs: 40,
    steps: [step.working("1"), step.working("2"), step.working("3"), step.complete(textResult("done"))],
  }),
  defineTool({
    name: "quick",
    task: "required",
    pollIntervalMs: 5,
    steps: [step.working("1"), step.complete(textResult("done"))],
  }),
];

let server: HttpTaskServer;
let proxy: FaultyProxy;
let client: TaskClient | undefined;
/** The proxy asks this for every request; tests replace it. */
let fault: (request: ProxiedRequest) => Fault | undefined = () => undefined;

beforeAll(async () => {
  server = await startTaskServer({ host: "127.0.0.1", port: 0, tools });
  proxy = await startFaultyProxy(server.url, (request) => fault(request));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await client?.close();
  client = undefined;
  fault = () => undefined;
  proxy.seen.length = 0;
  server.requests.clear();
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

/** Fails the first `count` requests of `method` with `make`, forwards the rest. */
function failFirst(method: string, count: number, make: (request: ProxiedRequest) => Fault) {
  let left = count;
  return (request: ProxiedRequest) => (request.method === method && left-- > 0 ? make(request) : undefined);
}

const gaps = (times: number[]) => times.slice(1).map((at, i) => at - (times[i] as number));
const unavailable = (retryAfterSeconds?: number): Fault => ({
  status: 503,
  headers: retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
  body: "restarting",
});

describe("a failed tasks/update (#17)", () => {
  it("re-sends the stored answer on the next input_required instead of asking the user again", async () => {
    fault = failFirst("tasks/update", 1, (request) => rpcErrorFault(request.id, -32602, "try again later"));
    const elicitation = vi.fn(async () => yes);
    client = await TaskClient.connect(proxy.url, {
      inputHandlers: { elicitation },
      polling: { minIntervalMs: 1, defaultIntervalMs: 5, maxIntervalMs: 50, jitter: 0 },
    });
    const handle = client.callTool("ask_once");
    const inputs: string[] = [];
    handle.on("input", (event) => inputs.push(event.key));

    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "went ahead" }] });
    expect(elicitation).toHaveBeenCalledTimes(1);
    expect(inputs).toEqual(["q"]);
    const updates = proxy.sent("tasks/update");
    expect(updates.map((update) => update.faulted)).toEqual([true, false]);
    expect(updates.map((update) => update.params?.inputResponses)).toEqual([{ q: yes }, { q: yes }]);
    expect(server.requests.forMethod("tasks/update")).toHaveLength(1);
  });
});

describe("tasks/update retries (#4)", () => {
  // Fails on 291ebfb: the old driver did not pass `retry` and `emitRetry` to the InputCoordinator.
  it("follows the client's retry timing and emits a retry event per retry", async () => {
    fault = failFirst("tasks/update", 2, () => unavailable());
    client = await TaskClient.connect(proxy.url, {
      inputHandlers: { elicitation: async () => yes },
      polling: { minIntervalMs: 1, defaultIntervalMs: 5, maxIntervalMs: 50, jitter: 0 },
      retry: { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 5, factor: 1 },
    });
    const handle = client.callTool("ask_once");
    const retries: RetryEvent[] = [];
    handle.on("retry", (event) => retries.push(event));

    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "went ahead" }] });
    expect(retries.map((event) => [event.method, event.attempt])).toEqual([
      ["tasks/update", 1],
      ["tasks/update", 2],
    ]);
    // Each retry waited at least the floor of its 5 ms backoff (equal jitter: 3 to 5 ms; 1 ms of slack for timer
    // rounding). That it waited no longer, not the default 250 then 500 ms, is pinned in fake time by
    // test/unit/run/faults.test.ts ("transient faults on tasks/update").
    const updateGaps = gaps(proxy.sent("tasks/update").map((update) => update.at));
    expect(updateGaps).toHaveLength(2);
    for (const gap of updateGaps) expect(gap).toBeGreaterThanOrEqual(2);
  });
});

describe("poll timing (#14)", () => {
  it("never polls before the server's pollIntervalMs, whatever the jitter draws", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0); // the draw that used to poll 50 % early
    client = await TaskClient.connect(proxy.url, {
      polling: { minIntervalMs: 1, defaultIntervalMs: 40, maxIntervalMs: 1000, jitter: 0.5 },
    });
    await expect(client.callTool("slow_steps")).resolves.toEqual({
      content: [{ type: "text", text: "done" }],
    });
    const polls = proxy.sent("tasks/get").map((poll) => poll.at);
    expect(polls.length).toBeGreaterThanOrEqual(4);
    // Each gap is the 40 ms delay plus a round trip; 1 ms of slack for timer rounding.
    for (const gap of gaps(polls)) expect(gap).toBeGreaterThanOrEqual(39);
  });
});

describe("retry timing (#15)", () => {
  it("waits at least the server's Retry-After, and jitter only lengthens it", async () => {
    fault = failFirst("tasks/get", 1, () => unavailable(1));
    vi.spyOn(Math, "random").mockReturnValue(0.999); // the top of the jitter window
    client = await TaskClient.connect(proxy.url, {
      polling: { minIntervalMs: 1, defaultIntervalMs: 5, maxIntervalMs: 50, jitter: 0 },
      retry: { retries: 2, minTimeoutMs: 5, maxTimeoutMs: 1000, factor: 2 },
    });
    const handle = client.callTool("quick");
    const retries: RetryEvent[] = [];
    handle.on("retry", (event) => retries.push(event));
    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "done" }] });

    expect(retries.map((event) => event.method)).toEqual(["tasks/get"]);
    const [failed, retried] = proxy.sent("tasks/get");
    expect(failed?.faulted).toBe(true);
    // Retry-After: 1 s is the floor; the top of the window adds up to half of it (0.999 × 500 ms = 499 ms).
    // A few ms of slack for timer rounding; without jitter on top of Retry-After this gap was about 1020 ms.
    expect((retried?.at ?? 0) - (failed?.at ?? 0)).toBeGreaterThanOrEqual(1490);
  });
});
