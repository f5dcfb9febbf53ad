/**
 * SEP-1034: an elicitation accepted with fields left out reaches the server with those fields' `default` values
 * from `requestedSchema`, as a form pre-filled with them would have sent it. Through the real client against the
 * reference server in both generations, on every path an elicitation takes: inside a task, before the task exists
 * (a multi round-trip round in 2026-07-28, a request on the `tools/call` stream in 2025-11-25), on a plain call,
 * and answered out of band with `handle.respond()`. Found by the conformance suite's
 * `elicitation-sep1034-client-defaults` client scenario.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type InputHandlers } from "mcp-tasks";
import {
  acceptedContent,
  defineTool,
  elicitForm,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
  type TaskServerEra,
  type ToolCall,
} from "mcp-tasks/testing";

// The scenario's schema, plus a field without a default (which must stay absent) and a string-array default.
const PROPERTIES = {
  name: { type: "string", description: "User name", default: "John Doe" },
  age: { type: "integer", description: "User age", default: 30 },
  score: { type: "number", description: "User score", default: 95.5 },
  status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
  verified: { type: "boolean", description: "Verification status", default: true },
  tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["a"] },
  nickname: { type: "string", description: "No default" },
};

const profile = () => step.input({ profile: elicitForm("Your profile?", PROPERTIES) });
const report = () =>
  step.complete((call: ToolCall) => textResult(JSON.stringify(acceptedContent(call, "profile") ?? null)));

const TOOLS = [
  defineTool({ name: "profile_in_task", task: "required", steps: [profile(), report()] }),
  defineTool({ name: "profile_before_task", task: "required", beforeTask: [profile()], steps: [report()] }),
  defineTool({ name: "profile_plain", task: "never", steps: [profile(), report()] }),
];

/** What the server must receive when the user set only `age`: every default, and no `nickname`. */
const EXPECTED = {
  name: "John Doe",
  age: 41,
  score: 95.5,
  status: "active",
  verified: true,
  tags: ["a"],
};

function textOf(result: { content: unknown[] }): string {
  return result.content.map((block) => (block as { text?: string }).text ?? "").join("");
}

describe.each<TaskServerEra>(["2026-07-28", "2025-11-25"])("elicitation defaults on a %s server", (era) => {
  let server: HttpTaskServer;
  beforeAll(async () => {
    server = await startTaskServer({ era, tools: TOOLS });
  });
  afterAll(async () => {
    await server.close();
  });

  const partial: InputHandlers = { elicitation: async () => ({ action: "accept", content: { age: 41 } }) };

  it.each(["profile_in_task", "profile_before_task", "profile_plain"])(
    "%s: fields the handler left out arrive with their defaults",
    async (tool) => {
      await using client = await TaskClient.connect(server.url, { inputHandlers: partial });
      expect(JSON.parse(textOf(await client.callTool(tool)))).toEqual(EXPECTED);
    },
  );

  it("an answer that sets every field is sent as it is, and a decline gets no content", async () => {
    const full = {
      name: "Ada",
      age: 36,
      score: 1,
      status: "pending",
      verified: false,
      tags: [],
      nickname: "A",
    };
    {
      await using client = await TaskClient.connect(server.url, {
        inputHandlers: { elicitation: async () => ({ action: "accept", content: full }) },
      });
      expect(JSON.parse(textOf(await client.callTool("profile_in_task")))).toEqual(full);
    }
    await using client = await TaskClient.connect(server.url, {
      inputHandlers: { elicitation: async () => ({ action: "decline" }) },
    });
    // acceptedContent() is undefined for anything but an accept: the script reports null.
    expect(textOf(await client.callTool("profile_in_task"))).toBe("null");
  });

  // In 2025-11-25 input before a task is a server request on the call's stream, which only handlers answer.
  const respondable = era === "2026-07-28" ? ["profile_in_task", "profile_before_task"] : ["profile_in_task"];
  it.each(respondable)("%s: an answer given with handle.respond() gets the defaults too", async (tool) => {
    await using client = await TaskClient.connect(server.url, {
      inputHandlers: { elicitation: () => new Promise(() => undefined) },
    });
    const handle = client.callTool(tool);
    handle.on("input", ({ key }) => {
      setTimeout(() => void handle.respond(key, { action: "accept", content: { age: 41 } }));
    });
    expect(JSON.parse(textOf(await handle))).toEqual(EXPECTED);
  });
});
