/**
 * With `tasksFor(sdkClient)`, the SDK Client and mcp-tasks share one connection, and both could answer a server
 * request. Exactly one does: a request that names a task a handle of ours follows is ours; every other request is
 * the Client's (it was sent under the capabilities the Client declared, to the handlers the app registered there).
 * Asserted on the wire against server-everything (2025-11-25) with a v2 SDK Client.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tasksFor } from "mcp-tasks";
import { startEverythingHttp, type EverythingHttp } from "../input/fixtures/everything.js";

let everything: EverythingHttp;
beforeAll(async () => {
  everything = await startEverythingHttp();
});
afterAll(async () => {
  await everything.close();
});

/** Every JSON-RPC answer the client side POSTs, by the id it answers. */
function recordingFetch(answers: Map<unknown, number>): typeof fetch {
  return async (input, init) => {
    if (init?.method === "POST" && typeof init.body === "string") {
      const frame = JSON.parse(init.body) as { id?: unknown; method?: unknown };
      if (frame.method === undefined && frame.id !== undefined) {
        answers.set(frame.id, (answers.get(frame.id) ?? 0) + 1);
      }
    }
    return fetch(input, init);
  };
}

describe("server requests under tasksFor(v2 SDK Client)", () => {
  it("get exactly one answer: the Client's, for a request that names no task of ours", async () => {
    const answers = new Map<unknown, number>();
    const sdk = new Client({ name: "host-app", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    let clientHandlerCalls = 0;
    sdk.setRequestHandler("elicitation/create", async () => {
      clientHandlerCalls += 1;
      return { action: "accept", content: { name: "from the Client" } };
    });
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL(everything.url), { fetch: recordingFetch(answers) }),
    );
    let ourHandlerCalls = 0;
    const tasks = tasksFor(sdk, {
      inputHandlers: {
        elicitation: async () => {
          ourHandlerCalls += 1;
          return { action: "accept", content: { name: "from mcp-tasks" } };
        },
      },
    });
    try {
      expect(tasks.server.era).toBe("legacy");
      const result = await tasks.callTool("trigger-elicitation-request");
      const text = result.content.map((block) => (block as { text?: string }).text ?? "").join("\n");
      expect(text).toContain("- Name: from the Client");
      expect(clientHandlerCalls).toBe(1);
      expect(ourHandlerCalls).toBe(0);
      // One answer per server request id, never two.
      expect(answers.size).toBeGreaterThanOrEqual(1);
      for (const count of answers.values()) expect(count).toBe(1);
    } finally {
      await tasks.close();
      await sdk.close();
    }
  });

  it("get exactly one answer, ours, for a related-task elicitation of a task tasksFor created", async () => {
    const answers = new Map<unknown, number>();
    const sdk = new Client({ name: "host-app", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    let clientHandlerCalls = 0;
    sdk.setRequestHandler("elicitation/create", async () => {
      clientHandlerCalls += 1;
      return { action: "accept", content: { interpretation: "comedy" } };
    });
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL(everything.url), { fetch: recordingFetch(answers) }),
    );
    let ourHandlerCalls = 0;
    const tasks = tasksFor(sdk, {
      polling: { minIntervalMs: 10, defaultIntervalMs: 10 },
      inputHandlers: {
        elicitation: async () => {
          ourHandlerCalls += 1;
          return { action: "accept", content: { interpretation: "snake" } };
        },
      },
    });
    try {
      const handle = tasks.callTool("simulate-research-query", { topic: "python", ambiguous: true });
      const result = await handle;
      const text = result.content.map((block) => (block as { text?: string }).text ?? "").join("\n");
      expect(text).toContain("# Research Report: python (snake)");
      expect((await handle.outcome()).taskId).toEqual(expect.any(String));
      expect(ourHandlerCalls).toBe(1);
      expect(clientHandlerCalls).toBe(0);
      expect(answers.size).toBeGreaterThanOrEqual(1);
      for (const count of answers.values()) expect(count).toBe(1);
    } finally {
      await tasks.close();
      await sdk.close();
    }
  }, 30_000);
});
