/**
 * `@modelcontextprotocol/server-everything@2026.8.31`, a server no one here wrote, speaking the 2025-11-25
 * tasks generation: `simulate-research-query` (taskSupport `required`) runs as a task through the same
 * handle and completes with its report, its stage messages showing on the way; plain tools are unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, type CallToolResult, type ConnectTarget } from "../../../src/index.js";
import { FAST, closesAfterEach } from "../lifecycle/helpers.js";
import { everythingStdio, startEverythingHttp, type EverythingHttp } from "../input/fixtures/everything.js";

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const track = closesAfterEach();

let http: EverythingHttp;
beforeAll(async () => {
  http = await startEverythingHttp();
});
afterAll(() => http.close());

const targets: [string, () => ConnectTarget][] = [
  ["stdio", () => everythingStdio],
  ["Streamable HTTP", () => http.url],
];

describe.each(targets)("server-everything over %s", (_name, target) => {
  it("runs simulate-research-query (ambiguous: false) as a task to its report, with status updates on the way", async () => {
    const client = track(await TaskClient.connect(target(), FAST));
    expect(client.server).toMatchObject({
      era: "legacy",
      supportsTasks: true,
      serverInfo: { name: "mcp-servers/everything" },
    });
    const handle = client.callTool("simulate-research-query", { topic: "tides", ambiguous: false });
    const messages: string[] = [];
    handle.on("update", (update) => {
      if (update.statusMessage !== undefined) messages.push(update.statusMessage);
    });
    const result = await handle;
    expect(textOf(result)).toContain("# Research Report: tides");
    expect((await handle.outcome()).taskId).toEqual(expect.any(String));
    // Four one-second stages, polled every second (the server's pollInterval): at least two are seen.
    const stages = messages.filter((m) => /^(Gathering|Analyzing|Synthesizing|Generating)/.test(m));
    expect(new Set(stages).size).toBeGreaterThanOrEqual(2);
  }, 30_000);

  it("calls a plain tool as before", async () => {
    const client = track(await TaskClient.connect(target(), FAST));
    const handle = client.callTool("echo", { message: "unchanged" });
    expect(textOf(await handle)).toBe("Echo: unchanged");
    expect((await handle.outcome()).taskId).toBeUndefined();
  });

  it("with ambiguous: true the elicitation handler runs once and the task completes with the chosen answer", async () => {
    const asked: { message: string; taskId: string | undefined }[] = [];
    const client = track(
      await TaskClient.connect(target(), {
        ...FAST,
        inputHandlers: {
          elicitation: async (params, context) => {
            asked.push({ message: params.message, taskId: context.taskId });
            return { action: "accept", content: { interpretation: "snake" } };
          },
        },
      }),
    );
    const handle = client.callTool("simulate-research-query", { topic: "python", ambiguous: true });
    const inputEvents: unknown[] = [];
    handle.on("input", (event) => inputEvents.push(event));
    const statuses: string[] = [];
    handle.on("update", (update) => statuses.push(update.status));
    const result = await handle;
    const taskId = (await handle.outcome()).taskId;
    expect(taskId).toEqual(expect.any(String));
    expect(textOf(result)).toContain("# Research Report: python (snake)");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ message: expect.stringContaining("python"), taskId });
    expect(inputEvents).toHaveLength(1);
    expect(statuses).toContain("input_required");
  }, 30_000);
});
