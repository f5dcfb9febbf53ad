/**
 * `connect` refuses a caller mistake with the error type the rule of src/client/options.ts gives its kind
 * (`TypeError`: not the kind of value the option takes; `RangeError`: the right kind, out of range), before
 * anything goes out: the reference server's request log does not grow and the store is not opened. The expected
 * types are written out per row. The other entry points (`callTool`, `task`, `resume`, `cancel`):
 * test/integration/boundary/tool-call-arguments.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type TaskRef } from "mcp-tasks";
import type { TaskStore } from "mcp-tasks/store";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { TaskHost } from "mcp-tasks/host";

let server: HttpTaskServer;
beforeAll(async () => {
  server = await startTaskServer();
});
afterAll(() => server.close());

/** Everything the server received, notifications and GETs included. */
const received = () => server.requests.all().length;

type Mistake = typeof TypeError | typeof RangeError;

/** Each row with its error type's name for the test's title. */
function named<T>(rows: Array<[string, T, Mistake]>): Array<[string, string, T, Mistake]> {
  return rows.map(([label, value, type]) => [label, type.name, value, type]);
}

/** A store that counts how often it was opened; nothing else of it is used before a connection exists. */
function countingStore(): TaskStore & { opened: number } {
  const store = {
    opened: 0,
    open: async () => void store.opened++,
    put: async () => undefined,
    remove: async () => undefined,
    list: async () => [] as TaskRef[],
  };
  return store;
}

describe("TaskClient.connect", () => {
  const stdio = { command: process.execPath, args: ["-e", ""] };
  const cases: Array<[string, () => [unknown, unknown], Mistake]> = [
    ["options that are null", () => [server.url, null], TypeError],
    ["a target that is a number", () => [42, {}], TypeError],
    ["a target that is not an http(s) URL", () => ["ftp://127.0.0.1/mcp", {}], TypeError],
    ["maxInFlight 0", () => [server.url, { maxInFlight: 0 }], RangeError],
    ["maxInFlight as a string", () => [server.url, { maxInFlight: "64" }], TypeError],
    ["a fractional inputConcurrency", () => [server.url, { inputConcurrency: 1.5 }], RangeError],
    ["a negative requestTimeoutMs", () => [server.url, { requestTimeoutMs: -1 }], RangeError],
    ["a NaN closeTimeoutMs", () => [server.url, { closeTimeoutMs: Number.NaN }], RangeError],
    ["notifications that is not a choice", () => [server.url, { notifications: "sometimes" }], RangeError],
    ["notifications as a boolean", () => [server.url, { notifications: true }], TypeError],
    ["an unknown unansweredInput", () => [server.url, { unansweredInput: "ignore" }], RangeError],
    ["an unknown legacyTasks", () => [server.url, { legacyTasks: "maybe" }], RangeError],
    [
      "an input handler that is not a function",
      () => [server.url, { inputHandlers: { roots: 1 } }],
      TypeError,
    ],
    ["a negative polling interval", () => [server.url, { polling: { minIntervalMs: -1 } }], RangeError],
    ["retries as a string", () => [server.url, { retry: { retries: "3" } }], TypeError],
    ["a store without its methods", () => [server.url, { store: {} }], TypeError],
    ["adopt without a store", () => [server.url, { adopt: true }], TypeError],
    ["telemetry: true", () => [server.url, { telemetry: true }], TypeError],
    ["validateOutput as a string", () => [server.url, { validateOutput: "yes" }], TypeError],
    ["headers with a stdio target", () => [stdio, { headers: { "X-Team": "a" } }], TypeError],
  ];

  it.each(named(cases))("%s: %s, nothing sent", async (_label, _name, make, type) => {
    const before = received();
    const [target, options] = make();
    await expect(
      (TaskClient.connect as (...a: unknown[]) => Promise<unknown>)(target, options),
    ).rejects.toThrow(type);
    expect(received()).toBe(before);
  });

  it("adopt every 0 ms with a store: RangeError, and the store is never opened", async () => {
    const store = countingStore();
    const before = received();
    await expect(TaskClient.connect(server.url, { store, adopt: { everyMs: 0 } })).rejects.toThrow(
      RangeError,
    );
    expect(store.opened).toBe(0);
    expect(received()).toBe(before);
  });
});

describe("TaskHost.connect", () => {
  it("holds its own `closeTimeoutMs` to the same rule: a negative one is a RangeError, nothing sent", async () => {
    const before = received();
    await expect(TaskHost.connect({ servers: { a: server.url }, closeTimeoutMs: -1 })).rejects.toThrow(
      RangeError,
    );
    await expect(
      TaskHost.connect({ servers: { a: server.url }, closeTimeoutMs: "10" as unknown as number }),
    ).rejects.toThrow(TypeError);
    expect(received()).toBe(before);
  });
});
