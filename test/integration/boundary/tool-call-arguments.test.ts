/**
 * Caller mistakes in `callTool` throw a `TypeError` synchronously, before anything is sent: the reference
 * server's request log shows no `tools/call` for any of them. The same options given to `client.task` (a handle for
 * an existing task) or `resume` are refused the same way, before a handle is registered: `client.tasks()` never
 * lists a handle that nothing polls.
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

const mistakes: Array<[string, unknown[]]> = [
  ["a number as the name", [123]],
  ["an empty name", [""]],
  ["no name", [undefined]],
  ["a string as the arguments", ["greet", "not-an-object"]],
  ["an array as the arguments", ["greet", ["Ada"]]],
  ["null as the arguments", ["greet", null]],
  ["a class instance as the arguments", ["greet", new Date()]],
  ["a string as the options", ["greet", {}, "fast"]],
  ["null as the options", ["greet", {}, null]],
  ["a negative timeoutMs", ["greet", {}, { timeoutMs: -1 }]],
  ["a string timeoutMs", ["greet", {}, { timeoutMs: "100" }]],
  ["an infinite timeoutMs", ["greet", {}, { timeoutMs: Infinity }]],
  ["an invalid Date deadline", ["greet", {}, { deadline: new Date("nonsense") }]],
  ["a string deadline", ["greet", {}, { deadline: "tomorrow" }]],
  ["a negative deadline", ["greet", {}, { deadline: -5 }]],
  ["a signal that is not an AbortSignal", ["greet", {}, { signal: { aborted: "no" } }]],
  ["meta that is an array", ["greet", {}, { meta: ["x"] }]],
  ["meta that is a string", ["greet", {}, { meta: "x" }]],
];

describe("callTool refuses caller mistakes before sending anything", () => {
  it.each(mistakes)("%s: TypeError at once, nothing on the wire", (_label, args) => {
    const calls = server.requests.forMethod("tools/call").length;
    expect(() => loose(...args)).toThrow(TypeError);
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

const badOptions: Array<[string, unknown]> = [
  ["a signal that is a plain object", { signal: {} }],
  ["a negative timeoutMs", { timeoutMs: -1 }],
  ["a string deadline", { deadline: "tomorrow" }],
  ["an input handler that is not a function", { inputHandlers: { elicitation: "yes" } }],
  ["null as the options", null],
];

describe("TaskClient.task and resume refuse bad options before registering a handle", () => {
  const looseTask = (...args: unknown[]) => (client.task as (...a: unknown[]) => unknown)(...args);
  const looseResume = (...args: unknown[]) =>
    (client.resume as (...a: unknown[]) => Promise<unknown>)(...args);

  it.each(badOptions)("%s: TypeError at once, no handle listed, nothing polled", async (_label, options) => {
    const polls = server.requests.forMethod("tasks/get").length;
    expect(() => looseTask("task-that-exists-elsewhere", options)).toThrow(TypeError);
    await expect(looseResume(options)).rejects.toThrow(TypeError);
    expect(client.tasks()).toEqual([]);
    expect(client.activeTasks).toBe(0);
    expect(server.requests.forMethod("tasks/get").length).toBe(polls);
  });
});
