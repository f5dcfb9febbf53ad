/**
 * Caller mistakes in `callTool` throw synchronously, before anything is sent — a `TypeError` for a value of the
 * wrong kind, a `RangeError` for one of the right kind out of range (the rule of src/client/options.ts): the reference
 * server's request log shows no `tools/call` for any of them. The same options given to `client.task` (a handle for
 * an existing task) or `resume` are refused the same way, before a handle is registered: `client.tasks()` never
 * lists a handle that nothing polls. `task` and `cancel` refuse a task that is no task id or ref the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient } from "mcp-tasks";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";

let server: HttpTaskServer;
let client: TaskClient;
beforeAll(async () => {
  server = await startTaskServer();
  client = await TaskClient.connect(server.url);
});
afterAll(async () => {
  await client.close();
  await server.close();
});

// The casts are the point: these are calls plain JavaScript (or an `any`) can make.
const loose = (...args: unknown[]) => (client.callTool as (...a: unknown[]) => unknown)(...args);

const mistakes: Array<[string, unknown[], typeof TypeError | typeof RangeError]> = [
  ["a number as the name", [123], TypeError],
  ["an empty name", [""], RangeError],
  ["no name", [undefined], TypeError],
  ["a string as the arguments", ["greet", "not-an-object"], TypeError],
  ["an array as the arguments", ["greet", ["Ada"]], TypeError],
  ["null as the arguments", ["greet", null], TypeError],
  ["a class instance as the arguments", ["greet", new Date()], TypeError],
  ["a string as the options", ["greet", {}, "fast"], TypeError],
  ["null as the options", ["greet", {}, null], TypeError],
  ["a negative timeoutMs", ["greet", {}, { timeoutMs: -1 }], RangeError],
  ["a string timeoutMs", ["greet", {}, { timeoutMs: "100" }], TypeError],
  ["an infinite timeoutMs", ["greet", {}, { timeoutMs: Infinity }], RangeError],
  ["an invalid Date deadline", ["greet", {}, { deadline: new Date("nonsense") }], RangeError],
  ["a string deadline", ["greet", {}, { deadline: "tomorrow" }], TypeError],
  ["a negative deadline", ["greet", {}, { deadline: -5 }], RangeError],
  ["a signal that is not an AbortSignal", ["greet", {}, { signal: { aborted: "no" } }], TypeError],
  ["meta that is an array", ["greet", {}, { meta: ["x"] }], TypeError],
  ["meta that is a string", ["greet", {}, { meta: "x" }], TypeError],
  ["an unknown legacyTasks mode", ["greet", {}, { legacyTasks: "sometimes" }], RangeError],
  ["a fractional taskTtlMs", ["greet", {}, { taskTtlMs: 1.5 }], RangeError],
];

describe("callTool refuses caller mistakes before sending anything", () => {
  it.each(mistakes)("%s: an error at once, nothing on the wire", (_label, args, type) => {
    const calls = server.requests.forMethod("tools/call").length;
    expect(() => loose(...args)).toThrow(type);
    expect(server.requests.forMethod("tools/call").length).toBe(calls);
    expect(client.activeTasks).toBe(0);
  });

  it("still sends a well-formed call (defaults, a null-prototype arguments object, a real signal)", async () => {
    const args = Object.assign(Object.create(null) as Record<string, unknown>, { name: "Ada" });
    const result = await client.callTool("greet", args, {
      signal: new AbortController().signal,
      timeoutMs: 5_000,
      meta: {},
    });
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
    // No arguments at all: the tool's own fallback name.
    await expect(client.callTool("greet")).resolves.toMatchObject({
      content: [{ type: "text", text: "Hello, World!" }],
    });
  });
});

const badOptions: Array<[string, unknown, typeof TypeError | typeof RangeError]> = [
  ["a signal that is a plain object", { signal: {} }, TypeError],
  ["a negative timeoutMs", { timeoutMs: -1 }, RangeError],
  ["a string deadline", { deadline: "tomorrow" }, TypeError],
  ["an input handler that is not a function", { inputHandlers: { elicitation: "yes" } }, TypeError],
  ["null as the options", null, TypeError],
];

describe("TaskClient.task and resume refuse bad options before registering a handle", () => {
  const looseTask = (...args: unknown[]) => (client.task as (...a: unknown[]) => unknown)(...args);
  const looseResume = (...args: unknown[]) =>
    (client.resume as (...a: unknown[]) => Promise<unknown>)(...args);

  it.each(badOptions)(
    "%s: an error at once, no handle listed, nothing polled",
    async (_label, options, type) => {
      const polls = server.requests.forMethod("tasks/get").length;
      expect(() => looseTask("task-that-exists-elsewhere", options)).toThrow(type);
      await expect(looseResume(options)).rejects.toThrow(type);
      expect(client.tasks()).toEqual([]);
      expect(client.activeTasks).toBe(0);
      expect(server.requests.forMethod("tasks/get").length).toBe(polls);
    },
  );
});

type Mistake = typeof TypeError | typeof RangeError;

/** Each row with its error type's name for the test's title. */
function named<T>(rows: Array<[string, T, Mistake]>): Array<[string, string, T, Mistake]> {
  return rows.map(([label, value, type]) => [label, type.name, value, type]);
}

/** Everything the server received, notifications and GETs included. */
const received = () => server.requests.all().length;

describe("callTool, task, resume and cancel follow the same rule", () => {
  const loose = (method: "callTool" | "task" | "resume" | "cancel", ...args: unknown[]): unknown =>
    (client[method] as (...a: unknown[]) => unknown).apply(client, args);

  const calls: Array<[string, () => unknown, Mistake]> = [
    ["callTool with an empty name", () => loose("callTool", ""), RangeError],
    [
      "callTool with a fractional taskTtlMs",
      () => loose("callTool", "greet", {}, { taskTtlMs: 0.5 }),
      RangeError,
    ],
    ["task with a number", () => loose("task", 42), TypeError],
    ["task with an empty id", () => loose("task", ""), RangeError],
    [
      "task with an invalid Date deadline",
      () => loose("task", "t-1", { deadline: new Date("x") }),
      RangeError,
    ],
  ];

  it.each(named(calls))("%s: %s at once, nothing sent, no handle", (_label, _name, call, type) => {
    const before = received();
    expect(call).toThrow(type);
    expect(received()).toBe(before);
    expect(client.activeTasks).toBe(0);
  });

  const promised: Array<[string, () => unknown, Mistake]> = [
    ["resume with a string timeoutMs", () => loose("resume", { timeoutMs: "1s" }), TypeError],
    ["resume with a negative deadline", () => loose("resume", { deadline: -1 }), RangeError],
    ["cancel with null", () => loose("cancel", null), TypeError],
    ["cancel with an empty id", () => loose("cancel", ""), RangeError],
  ];

  it.each(named(promised))("%s: rejects with %s, nothing sent", async (_label, _name, call, type) => {
    const before = received();
    await expect(Promise.resolve().then(call)).rejects.toThrow(type);
    expect(received()).toBe(before);
    expect(client.activeTasks).toBe(0);
  });
});
