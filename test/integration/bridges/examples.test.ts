/**
 * The agent framework examples in examples/ run as written against the reference server (fixtures at a tenth of
 * their timing: the two-second computation takes 200 ms) and log what their comments promise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { aiSdkAgent } from "../../../examples/ai-sdk-agent.js";
import { langchainAgent } from "../../../examples/langchain-agent.js";
import { openaiAgentsAgent } from "../../../examples/openai-agents-agent.js";

let server: HttpTaskServer;
beforeAll(async () => {
  server = await startTaskServer({ tools: fixtureTools({ timeScale: 0.1 }) });
});
afterAll(async () => {
  await server.close();
});

async function run(example: (url: string, log: (line: string) => void) => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  await example(server.url, (line) => lines.push(line));
  return lines;
}

describe("the agent framework examples", () => {
  it("ai-sdk-agent streams the status as preliminary results, then the model answers from the result", async () => {
    expect(await run(aiSdkAgent)).toEqual([
      "slow_compute: working",
      "slow_compute: result",
      'The tool says: {"type":"text","value":"Computed \\"Q3\\" in 2s"}',
    ]);
  });

  it("langchain-agent shows the status through streamEvents, then the model answers from the ToolMessage", async () => {
    expect(await run(langchainAgent)).toEqual([
      "slow_compute: working",
      'The tool says: Computed "Q3" in 2s',
    ]);
  });

  it("openai-agents-agent reports the status through onUpdate, then the model answers from the result", async () => {
    expect(await run(openaiAgentsAgent)).toEqual([
      "slow_compute: working",
      "slow_compute: completed",
      'The tool says: {"type":"text","text":"Computed \\"Q3\\" in 2s"}',
    ]);
  });
});
