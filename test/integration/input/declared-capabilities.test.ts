/**
 * The client declares an input capability exactly when it answers that kind of request: none without handlers,
 * each one with its handler, in both eras. On the wire: the 2026-07-28 envelope of every request, and the
 * 2025-era `initialize`. `roots.listChanged` is never declared (the client never sends
 * `notifications/roots/list_changed`); elicitation declares both modes, form and url, which the handler receives.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type InputHandlers } from "mcp-tasks";
import {
  defineTool,
  fixtureTools,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "mcp-tasks/testing";
import { startCaptureServer } from "../transport/fixtures/http.js";

const elicitation: InputHandlers["elicitation"] = async () => ({ action: "decline" });
const sampling: InputHandlers["sampling"] = async () => ({
  role: "assistant",
  content: { type: "text", text: "" },
  model: "m",
});
const roots: InputHandlers["roots"] = async () => ({ roots: [] });

/** Moves one step per tasks/get, so it is polled (and listened for) whatever the machine's speed. */
const polled = defineTool({
  name: "polled",
  task: "required",
  pollIntervalMs: 40,
  steps: [step.working("1"), step.working("2"), step.complete(textResult("polled"))],
});

const cases: [string, InputHandlers, Record<string, unknown>][] = [
  ["no handlers", {}, {}],
  ["an elicitation handler", { elicitation }, { elicitation: { form: {}, url: {} } }],
  ["a sampling handler", { sampling }, { sampling: {} }],
  ["a roots handler", { roots }, { roots: {} }],
  [
    "all three handlers",
    { elicitation, sampling, roots },
    { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} },
  ],
];

describe("declared client capabilities on a 2026-07-28 server", () => {
  let server: HttpTaskServer;
  beforeAll(async () => {
    server = await startTaskServer({ tools: [...fixtureTools(), polled] });
  });
  afterAll(async () => {
    await server.close();
  });

  it.each(cases)(
    "with %s, every request's envelope declares exactly those",
    async (_label, handlers, expected) => {
      server.requests.clear();
      // Counted from before connect: the discovery probe carries the envelope too.
      const client = await TaskClient.connect(server.url, { inputHandlers: handlers });
      await client.callTool("greet", { name: "Ada" });
      // A task moved by polls: its listen goes out (the 10 ms batch comes before the first 40 ms poll), and polls.
      await client.callTool("polled");
      await client.close();
      const sent = server.requests.all();
      // The kinds of request seen, so "every request" is not a claim about one of them.
      expect([...new Set(sent.map((request) => request.method))]).toEqual(
        expect.arrayContaining(["server/discover", "tools/call", "subscriptions/listen", "tasks/get"]),
      );
      for (const request of sent) {
        const meta = (request.body as { params: { _meta: Record<string, unknown> } }).params._meta;
        expect(meta["io.modelcontextprotocol/clientCapabilities"]).toEqual({
          ...expected,
          extensions: { "io.modelcontextprotocol/tasks": {} },
        });
      }
    },
  );
});

describe("declared client capabilities on a 2025-11-25 server", () => {
  it.each(cases)("with %s, initialize declares exactly those", async (_label, handlers, expected) => {
    const server = await startCaptureServer((request) => {
      const method = request.body?.method;
      if (method === "server/discover") {
        return Response.json({
          jsonrpc: "2.0",
          id: request.body?.id,
          error: { code: -32601, message: "Method not found" },
        });
      }
      if (method === "initialize") {
        return {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "s", version: "1" },
        };
      }
      return { content: [] };
    });
    try {
      const client = await TaskClient.connect(server.url.href, { inputHandlers: handlers });
      expect(client.server.era).toBe("legacy");
      await client.close();
      const initialize = server.seen.find((request) => request.body?.method === "initialize");
      expect(initialize?.body?.params?.capabilities).toEqual(expected);
    } finally {
      await server.close();
    }
  });
});
