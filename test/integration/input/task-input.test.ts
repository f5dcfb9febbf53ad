/**
 * Input end to end: a TaskClient against the reference server over Streamable HTTP on 127.0.0.1, answering
 * `input_required` tasks and multi-round-trip calls with the app's handlers.
 */
import { afterEach, beforeAll, afterAll, describe, expect, it } from "vitest";
import { TaskClient, type TaskClientOptions } from "../../../src/index.js";
import type { InputContext, InputHandlers } from "../../../src/input/types.js";
import { InputUnansweredError, ProtocolError, TaskCancelledError } from "../../../src/protocol/errors.js";
import type { CallToolResult, ElicitResult } from "../../../src/schema/index.js";
import type { InputRequestEvent, UnansweredInputAction } from "../../../src/task/types.js";
import {
  defineTool,
  elicitForm,
  fixtureTools,
  sampleText,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "../../../src/testing/index.js";

const question = elicitForm("Proceed?", { ok: { type: "boolean" } }, ["ok"]);
const yes: ElicitResult = { action: "accept", content: { ok: true } };

const scripted = [
  defineTool({
    name: "slow_question",
    task: "required",
    steps: [step.input({ q: question }), step.complete(textResult("done"))],
  }),
  defineTool({
    // Keeps listing a key after it was answered (an acknowledgement that is slow to show, or never shows).
    name: "sticky_question",
    task: "required",
    steps: [
      step.input({ q: question }),
      step.raw({ status: "input_required", inputRequests: { q: question } }),
    ],
  }),
  defineTool({
    name: "reused_key",
    task: "required",
    steps: [
      step.input({ q: question }),
      step.input(
        { q: elicitForm("Something else entirely?", { x: { type: "string" } }) },
        { reuseKeys: true },
      ),
      step.complete(textResult("should not get here")),
    ],
  }),
  defineTool({
    name: "needs_sampling",
    task: "required",
    steps: [
      step.input({ capital: sampleText("What is the capital of France?") }),
      step.complete(textResult("done")),
    ],
  }),
  defineTool({
    name: "asks_forever",
    task: "required",
    beforeTask: Array.from({ length: 30 }, (_, round) =>
      step.input({ [`q${round}`]: elicitForm(`Question ${round}?`, { ok: { type: "boolean" } }) }),
    ),
    steps: [step.complete(textResult("never"))],
  }),
];

let server: HttpTaskServer;
let client: TaskClient | undefined;

beforeAll(async () => {
  server = await startTaskServer({ host: "127.0.0.1", port: 0, tools: [...fixtureTools(), ...scripted] });
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  server.requests.clear();
});

async function connect(
  inputHandlers: InputHandlers,
  unansweredInput?: UnansweredInputAction,
  extra: TaskClientOptions = {},
) {
  client = await TaskClient.connect(server.url, {
    inputHandlers,
    unansweredInput,
    maxInputRounds: 3,
    ...extra,
  });
  return client;
}

/** For tests about what repeated polls do: with notifications on, an acknowledged task is hardly polled. */
const POLLING_ONLY: TaskClientOptions = { notifications: "off" };

function textOf(result: CallToolResult): string {
  return (result.content[0] as { text?: string } | undefined)?.text ?? "";
}

/** The `params` of every request of `method` the server received. */
function paramsOf(method: string): Array<Record<string, unknown>> {
  return server.requests
    .forMethod(method)
    .map((entry) => (entry.body as { params: Record<string, unknown> }).params);
}

/** Waits (bounded) until the server has received `count` requests of `method`. */
async function serverSaw(method: string, count: number): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (server.requests.forMethod(method).length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the server never saw ${count} ${method} requests`);
}

describe("a task that asks for input", () => {
  it("confirm_delete: the handler confirms, one tasks/update goes back, and the task completes", async () => {
    const contexts: InputContext[] = [];
    const connected = await connect({
      elicitation: async (params, context) => {
        contexts.push(context);
        expect(params.message).toBe("Delete a.txt?");
        return { action: "accept", content: { confirm: true } };
      },
    });
    const handle = connected.callTool("confirm_delete", { filename: "a.txt" });
    const inputs: InputRequestEvent[] = [];
    handle.on("input", (event) => inputs.push(event));

    expect(textOf(await handle)).toBe("Deleted a.txt");
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({
      taskId: handle.taskId,
      key: "confirm",
      toolName: "confirm_delete",
      server: { name: "mcp-tasks-reference-server", url: server.url },
    });
    expect(inputs.map((event) => event.key)).toEqual(["confirm"]);
    const updates = server.requests.forMethod("tasks/update");
    expect(updates).toHaveLength(1);
    expect(updates[0]?.headers["mcp-name"]).toBe(handle.taskId);
    expect(paramsOf("tasks/update")[0]).toMatchObject({
      taskId: handle.taskId,
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    });
  });

  it("multi_input: answers the quick question first, then the slow one", async () => {
    const connected = await connect({
      elicitation: async (_params, { key }): Promise<ElicitResult> => {
        if (key === "name") return { action: "accept", content: { name: "Ada" } };
        await serverSaw("tasks/update", 1); // the other answer has gone out on its own
        return { action: "accept", content: { confirm: true } };
      },
    });
    const result = await connected.callTool("multi_input");
    expect(textOf(result)).toBe("Received name=Ada, confirm=true");
    expect(paramsOf("tasks/update").map((params) => Object.keys(params.inputResponses as object))).toEqual([
      ["name"],
      ["confirm"],
    ]);
  });

  it("asks once for a key the server repeats on every poll while the handler is still thinking", async () => {
    let asked = 0;
    const connected = await connect(
      {
        elicitation: async () => {
          asked++;
          const pollsSoFar = server.requests.forMethod("tasks/get").length;
          await serverSaw("tasks/get", pollsSoFar + 3);
          return yes;
        },
      },
      undefined,
      POLLING_ONLY,
    );
    const handle = connected.callTool("slow_question");
    const inputs: InputRequestEvent[] = [];
    handle.on("input", (event) => inputs.push(event));
    expect(textOf(await handle)).toBe("done");
    expect(asked).toBe(1);
    expect(inputs).toHaveLength(1);
    expect(server.requests.forMethod("tasks/update")).toHaveLength(1);
  });

  it("does not answer again while the server still lists a key it was already given", async () => {
    let asked = 0;
    const connected = await connect(
      {
        elicitation: async () => {
          asked++;
          return yes;
        },
      },
      undefined,
      POLLING_ONLY,
    );
    const handle = connected.callTool("sticky_question");
    await serverSaw("tasks/update", 1);
    await serverSaw("tasks/get", server.requests.forMethod("tasks/get").length + 3);
    expect(handle.status).toBe("input_required");
    expect(asked).toBe(1);
    expect(server.requests.forMethod("tasks/update")).toHaveLength(1);
    handle.detach();
  });

  it("fails with a ProtocolError when the server reuses a key for another request", async () => {
    const connected = await connect({ elicitation: async () => yes });
    const outcome = await connected.callTool("reused_key").outcome();
    expect(outcome.kind).toBe("error");
    expect(outcome.kind === "error" && outcome.error).toBeInstanceOf(ProtocolError);
    expect(outcome.kind === "error" && outcome.error.message).toMatch(/input key "q" was reused/);
  });

  it("lets the app answer out of band, aborting the handler that was still waiting", async () => {
    const signals: AbortSignal[] = [];
    const connected = await connect({
      elicitation: (_params, { signal }) => {
        signals.push(signal);
        return new Promise<ElicitResult>(() => undefined);
      },
    });
    const handle = connected.callTool("confirm_delete", { filename: "b.txt" });
    const answered = new Promise<void>((resolve, reject) => {
      handle.on("input", ({ key }) => {
        setTimeout(() =>
          handle.respond(key, { action: "accept", content: { confirm: true } }).then(resolve, reject),
        );
      });
    });
    expect(textOf(await handle)).toBe("Deleted b.txt");
    await answered;
    expect(signals[0]?.aborted).toBe(true);
    expect(server.requests.forMethod("tasks/update")).toHaveLength(1);
  });
});

describe("a task that asks for input nobody can give", () => {
  it("fails the handle by default, naming the key and the method", async () => {
    const connected = await connect({ elicitation: async () => yes });
    const handle = connected.callTool("needs_sampling");
    const reported: Array<{ key: string; action: string }> = [];
    handle.on("inputUnanswered", ({ key, action }) => reported.push({ key, action }));
    const error = await handle.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(InputUnansweredError);
    expect(error).toMatchObject({
      key: "capital",
      inputMethod: "sampling/createMessage",
      taskId: handle.taskId,
    });
    expect(reported).toEqual([{ key: "capital", action: "fail" }]);
    expect(server.requests.forMethod("tasks/update")).toHaveLength(0);
  });

  it("cancels the task under the cancel policy", async () => {
    const connected = await connect({ elicitation: async () => yes }, "cancel");
    const outcome = await connected.callTool("needs_sampling").outcome();
    expect(outcome.kind).toBe("cancelled");
    expect(outcome.kind === "cancelled" && outcome.error).toBeInstanceOf(TaskCancelledError);
    expect(outcome.kind === "cancelled" && outcome.error.reason).toBeInstanceOf(InputUnansweredError);
    expect(server.requests.forMethod("tasks/cancel")).toHaveLength(1);
  });

  it("declines an elicitation under the decline policy, and the tool carries on", async () => {
    const connected = await connect(
      { sampling: async () => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" }) },
      "decline",
    );
    const handle = connected.callTool("confirm_delete", { filename: "c.txt" });
    const reported: string[] = [];
    handle.on("inputUnanswered", ({ action }) => reported.push(action));
    expect(textOf(await handle)).toBe("Kept c.txt");
    expect(reported).toEqual(["decline"]);
    expect(paramsOf("tasks/update")[0]?.inputResponses).toEqual({ confirm: { action: "decline" } });
  });
});

describe("input before the task exists", () => {
  it("test_tool_with_task: answers the round, echoes requestState, then follows the task", async () => {
    const contexts: InputContext[] = [];
    const connected = await connect({
      elicitation: async (_params, context) => {
        contexts.push(context);
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    const handle = connected.callTool("test_tool_with_task");
    expect(textOf(await handle)).toBe("Hello, Ada!");
    expect(contexts[0]).toMatchObject({
      taskId: undefined,
      key: "user_name",
      toolName: "test_tool_with_task",
    });

    const calls = server.requests.forMethod("tools/call");
    expect(calls).toHaveLength(2);
    expect(calls[1]?.id).not.toBe(calls[0]?.id);
    const retry = paramsOf("tools/call")[1];
    expect(retry?.inputResponses).toEqual({ user_name: { action: "accept", content: { name: "Ada" } } });
    expect(typeof retry?.requestState).toBe("string");
    expect(retry?._meta).toMatchObject({
      "io.modelcontextprotocol/clientCapabilities": {
        elicitation: { form: {}, url: {} },
        extensions: { "io.modelcontextprotocol/tasks": {} },
      },
    });
    expect(handle.taskId).toEqual(expect.any(String));
  });

  it("gives up with a ProtocolError on a server that keeps asking", async () => {
    let asked = 0;
    const connected = await connect({
      elicitation: async () => {
        asked++;
        return yes;
      },
    });
    const outcome = await connected.callTool("asks_forever").outcome();
    expect(outcome.kind).toBe("error");
    expect(outcome.kind === "error" && outcome.error).toBeInstanceOf(ProtocolError);
    expect(outcome.kind === "error" && outcome.error.message).toMatch(/still asked for input after 3 rounds/);
    expect(server.requests.forMethod("tools/call")).toHaveLength(4);
    expect(asked).toBe(3);
  });
});
