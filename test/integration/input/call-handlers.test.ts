/**
 * Per-call `inputHandlers` (`callTool(name, args, { inputHandlers })`): the call's handler answers its kind in
 * place of the client's, before a task exists (a multi-round-trip round) and inside one (`input_required`);
 * kinds the call does not give still go to the client's handlers, and other calls are untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type InputContext } from "mcp-tasks";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";

let server: HttpTaskServer;
let client: TaskClient;
const clientAsked: string[] = [];

beforeAll(async () => {
  server = await startTaskServer({ tools: fixtureTools({ timeScale: 0.01 }) });
  client = await TaskClient.connect(server.url, {
    inputHandlers: {
      elicitation: async (params) => {
        clientAsked.push(params.message);
        return { action: "accept", content: { confirm: false, name: "client" } };
      },
    },
  });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

function texts(result: { content: unknown[] }): string[] {
  return result.content.map((block) => (block as { text?: string }).text ?? "");
}

describe("callTool with its own inputHandlers", () => {
  it("answers a task's elicitation with the call's handler, not the client's", async () => {
    clientAsked.length = 0;
    const contexts: InputContext[] = [];
    const result = await client.callTool(
      "confirm_delete",
      { filename: "notes.txt" },
      {
        inputHandlers: {
          elicitation: async (_params, context) => {
            contexts.push(context);
            return { action: "accept", content: { confirm: true } };
          },
        },
      },
    );
    expect(texts(result)).toEqual(["Deleted notes.txt"]);
    expect(clientAsked).toEqual([]);
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({ toolName: "confirm_delete", key: "confirm" });
    expect(contexts[0]?.taskId).toEqual(expect.any(String));
  });

  it("answers a round before the task exists with the call's handler", async () => {
    clientAsked.length = 0;
    const result = await client.callTool(
      "test_tool_with_task",
      {},
      { inputHandlers: { elicitation: async () => ({ action: "accept", content: { name: "call" } }) } },
    );
    expect(texts(result)).toEqual(["Hello, call!"]);
    expect(clientAsked).toEqual([]);
  });

  it("leaves kinds it does not give, and other calls, to the client's handlers", async () => {
    clientAsked.length = 0;
    const sampling = async () => ({
      role: "assistant" as const,
      content: { type: "text" as const, text: "unused" },
      model: "none",
    });
    const own = await client.callTool(
      "confirm_delete",
      { filename: "a.txt" },
      { inputHandlers: { sampling } },
    );
    const plain = await client.callTool("confirm_delete", { filename: "b.txt" });
    expect([texts(own), texts(plain)]).toEqual([["Kept a.txt"], ["Kept b.txt"]]);
    expect(clientAsked).toEqual(["Delete a.txt?", "Delete b.txt?"]);
  });

  it("refuses handlers that are not functions, before anything is sent", () => {
    const before = server.requests.forMethod("tools/call").length;
    expect(() => client.callTool("greet", {}, { inputHandlers: { elicitation: "yes" as never } })).toThrow(
      new TypeError("callTool: `inputHandlers.elicitation` must be a function, got a string"),
    );
    expect(() => client.callTool("greet", {}, { inputHandlers: [] as never })).toThrow(
      "`inputHandlers` must be a plain object, got an array",
    );
    expect(server.requests.forMethod("tools/call")).toHaveLength(before);
  });
});
