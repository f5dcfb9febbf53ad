/**
 * A tool whose `outputSchema` changes on the server while the client holds its tool list: a result that matches
 * the new schema is handed on, not refused against the old one. Here the server changes the schema in place and
 * says nothing (no `server.toolsChanged()`: a server that does not announce it, or a change while no listen is
 * open), so the client fetches the tool list again, once, before it refuses a result, and refuses only what the
 * schema listed now refuses. Through the real client against the reference server over Streamable HTTP. An
 * announced change is tools-list-changed.test.ts.
 */
import { describe, expect, it } from "vitest";
import { OutputSchemaError, TaskClient } from "../../../src/index.js";
import { defineTool, startTaskServer, step, structuredResult } from "../../../src/testing/index.js";

const FAST = { polling: { defaultIntervalMs: 10, minIntervalMs: 5, jitter: 0 } } as const;

describe.each(["2026-07-28", "2025-11-25"] as const)("on a %s server", (era) => {
  it("a result matching the tool's changed outputSchema is handed on; one matching neither is refused", async () => {
    const schema = {
      type: "object",
      properties: { reading: { type: "number" } },
      required: ["reading"],
    };
    const reply = (args: Readonly<Record<string, unknown>>) =>
      structuredResult(args.reply as Record<string, unknown>);
    const tools = [
      defineTool({
        name: "read_now",
        outputSchema: schema,
        task: "never",
        steps: (args) => [step.complete(reply(args))],
      }),
      defineTool({
        name: "read_later",
        outputSchema: schema,
        task: "required",
        pollIntervalMs: 10,
        steps: (args) => [step.working("reading"), step.complete(reply(args))],
      }),
    ];
    const server = await startTaskServer({ tools, era });
    const client = await TaskClient.connect(server.url, FAST);
    const lists = () => server.requests.forMethod("tools/list").length;
    try {
      expect((await client.callTool("read_now", { reply: { reading: 1 } })).structuredContent).toEqual({
        reading: 1,
      });
      expect(lists()).toBe(1);

      // The server changes the tool: readings are strings now. It says nothing.
      schema.properties.reading.type = "string";

      const now = await client.callTool("read_now", { reply: { reading: "one" } }).outcome();
      expect(now).toMatchObject({ kind: "completed", result: { structuredContent: { reading: "one" } } });
      expect(lists()).toBe(2);
      const later = await client.callTool("read_later", { reply: { reading: "two" } }).outcome();
      expect(later).toMatchObject({ kind: "completed", result: { structuredContent: { reading: "two" } } });
      expect(lists()).toBe(2); // the list fetched again is kept: nothing was refused

      // A result the current schema refuses is refused, after one more look at the list, with its task id.
      const wrong = await client.callTool("read_later", { reply: { reading: 3 } }).outcome();
      expect(wrong.kind).toBe("error");
      const error = (wrong as { error: unknown }).error as OutputSchemaError;
      expect(error).toBeInstanceOf(OutputSchemaError);
      expect(error.taskId).toBe(wrong.taskId);
      expect(error.problems[0]).toEqual({
        path: "/reading",
        message: 'Instance type "number" is invalid. Expected "string".',
      });
      expect(lists()).toBe(3);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
