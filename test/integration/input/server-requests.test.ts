/**
 * Input requests that a 2025-11-25 server sends as JSON-RPC requests (not inside a task) reach the client's
 * `inputHandlers`, and their answers reach the server: asserted through what the server's tools report, against
 * `@modelcontextprotocol/server-everything` over Streamable HTTP (127.0.0.1) and over stdio.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type InputContext, type InputHandlers } from "mcp-tasks";
import { everythingStdio, startEverythingHttp, type EverythingHttp } from "./fixtures/everything.js";

let http: EverythingHttp;
beforeAll(async () => {
  http = await startEverythingHttp();
});
afterAll(async () => {
  await http.close();
});

const targets = [
  ["Streamable HTTP", () => http.url],
  ["stdio", () => everythingStdio],
] as const;

function textOf(result: { content: unknown[] }): string {
  return result.content.map((block) => (block as { text?: string }).text ?? "").join("\n");
}

describe.each(targets)("server requests from server-everything over %s", (_label, target) => {
  async function connect(inputHandlers: InputHandlers, warnings: string[] = []): Promise<TaskClient> {
    return TaskClient.connect(target(), {
      inputHandlers,
      logger: { warn: (message: string) => void warnings.push(message) },
    });
  }

  it("roots/list reaches the roots handler, and get-roots-list reports the roots it returned", async () => {
    const contexts: InputContext[] = [];
    const client = await connect({
      roots: async (_params, context) => {
        contexts.push(context);
        return { roots: [{ uri: "file:///home/ada/project", name: "ada-project" }] };
      },
    });
    try {
      expect(client.server.era).toBe("legacy");
      const result = await client.callTool("get-roots-list");
      expect(textOf(result)).toContain("1. ada-project\n   URI: file:///home/ada/project");
      expect(contexts.length).toBeGreaterThanOrEqual(1);
      // No task and no tool: a 2025-era request does not say which call it belongs to.
      expect(contexts[0]).toMatchObject({ taskId: undefined, toolName: undefined });
      expect(contexts[0]?.server.name).toBe("mcp-servers/everything");
    } finally {
      await client.close();
    }
  });

  it("elicitation/create reaches the elicitation handler, and the tool reports the user's answer", async () => {
    const seen: { message: string; context: InputContext }[] = [];
    const client = await connect({
      elicitation: async (params, context) => {
        seen.push({ message: params.message, context });
        return { action: "accept", content: { name: "Ada Lovelace", check: true } };
      },
    });
    try {
      const result = await client.callTool("trigger-elicitation-request");
      expect(textOf(result)).toContain("✅ User provided the requested information!");
      expect(textOf(result)).toContain("- Name: Ada Lovelace");
      expect(textOf(result)).toContain("- Agreed to terms: true");
      expect(seen).toHaveLength(1);
      expect(seen[0]?.message).toBe("Please provide inputs for the following fields:");
      expect(seen[0]?.context).toMatchObject({ taskId: undefined, key: expect.any(String) });
      expect(seen[0]?.context.signal.aborted).toBe(false);
    } finally {
      await client.close();
    }
  });

  it("sampling/createMessage reaches the sampling handler, and the tool reports the model's answer", async () => {
    const prompts: string[] = [];
    const client = await connect({
      sampling: async (params) => {
        const first = params.messages[0]?.content;
        prompts.push(first !== undefined && "text" in first ? String(first.text) : "");
        return { role: "assistant", content: { type: "text", text: "forty-two" }, model: "test-model" };
      },
    });
    try {
      const result = await client.callTool("trigger-sampling-request", { prompt: "the answer?" });
      expect(textOf(result)).toContain('"text": "forty-two"');
      expect(textOf(result)).toContain('"model": "test-model"');
      expect(prompts).toEqual(["Resource trigger-sampling-request context: the answer?"]);
    } finally {
      await client.close();
    }
  });

  it("a handler that throws gives the server a JSON-RPC error, and its message stays in the client", async () => {
    const warnings: string[] = [];
    const client = await connect(
      {
        elicitation: async () => {
          throw new Error("secret app detail");
        },
      },
      warnings,
    );
    try {
      const result = await client.callTool("trigger-elicitation-request");
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("the client could not answer this request");
      expect(textOf(result)).not.toContain("secret app detail");
      expect(warnings.some((warning) => warning.includes("elicitation handler failed"))).toBe(true);
    } finally {
      await client.close();
    }
  });
});

// Requests that name a task on a 2025-11-25 server (a related-task elicitation through the tasks/result side
// channel) are tested end to end in test/integration/legacy/ (v1 SDK server `ask`, server-everything's ambiguous
// research query).
