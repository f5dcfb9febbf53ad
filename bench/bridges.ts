/**
 * Bridge overhead: what a call through an agent framework bridge costs on top of a direct `client.callTool`.
 * A tool on the in-process fake server is called N times in each of six ways, taking turns (each round starting
 * with another) so drift hits all of them alike: `callTool` awaited directly, and the tool as each framework invokes it (the AI SDK's `execute`
 * generator drained, LangChain's `invoke` with a tool call, the OpenAI Agents SDK's `invoke`). The framework's
 * own work (LangChain's callback manager, the Agents SDK's parsing) is included: it is what a call through that
 * framework costs; a hand-written tool in LangChain and in the Agents SDK (await `callTool`, return its text)
 * shows what the framework alone costs. Two tools: one that answers at once (no timers, so the difference is the bridge's work
 * alone) and a task with one `working` poll (the status path; poll timers make it noisier). Run by
 * `npm run bench` after the store figures, or alone with `node --import tsx bench/bridges.ts [calls]`. Prints a
 * table and one `BRIDGE_RESULT {json}` line.
 */
import { performance } from "node:perf_hooks";
import { tool as langchainTool } from "@langchain/core/tools";
import { RunContext, tool as agentsTool } from "@openai/agents";
import { TaskClient } from "mcp-tasks";
import { aiSdkTools } from "mcp-tasks/ai-sdk";
import { langchainTools } from "mcp-tasks/langchain";
import { openaiAgentsTools } from "mcp-tasks/openai-agents";
import { BENCH_TOOL, FakeTasksServer } from "./fake-server.js";
import { FakeTransport } from "./fake-transport.js";

export interface BridgeFigure {
  tool: "immediate" | "task";
  way: string;
  calls: number;
  /** Wall time per call, µs. */
  medianUs: number;
  meanUs: number;
  /** CPU (user + system) per call, µs. */
  cpuUs: number;
  /** Median minus the direct call's median, µs. */
  overheadUs: number;
}

type Way = { name: string; call: (index: number) => Promise<unknown> };

/** The fake server, with `tools/call` answered at once (a plain tool result, no task). */
class ImmediateServer extends FakeTasksServer {
  protected override answer(method: string, params: Record<string, unknown>, arrivedAt: number) {
    if (method !== "tools/call") return super.answer(method, params, arrivedAt);
    return { result: { resultType: "complete", content: [{ type: "text", text: "done" }] } };
  }
}

async function measure(tool: BridgeFigure["tool"], calls: number): Promise<BridgeFigure[]> {
  // pollIntervalMs 1: the poll timer is as short as the client allows, so the figures are mostly call work.
  const config = { tasks: calls * 6 + 60, pollsUntilDone: 1, pollIntervalMs: 1 };
  const server = tool === "immediate" ? new ImmediateServer(config) : new FakeTasksServer(config);
  const client = await TaskClient.connect(new FakeTransport(server, false), {
    polling: { minIntervalMs: 1, jitter: 0 },
    notifications: "off",
  });
  const ai = (await aiSdkTools(client))[BENCH_TOOL]!;
  const [langchain] = await langchainTools(client);
  const [agents] = await openaiAgentsTools(client);
  const runContext = new RunContext();
  // The floor of each framework: a hand-written tool that awaits callTool and returns its first text.
  const text = async () => {
    const result = await client.callTool(BENCH_TOOL, {});
    return String((result.content[0] as { text?: string } | undefined)?.text);
  };
  const plainLangchain = langchainTool(text, {
    name: BENCH_TOOL,
    schema: { type: "object", properties: {} },
  });
  const plainAgents = agentsTool({
    name: BENCH_TOOL,
    description: "",
    parameters: { type: "object", properties: {}, required: [], additionalProperties: true },
    strict: false,
    execute: text,
  });
  const ways: Way[] = [
    { name: "callTool (direct)", call: () => client.callTool(BENCH_TOOL, {}) },
    {
      name: "mcp-tasks/ai-sdk (execute)",
      call: async (index) => {
        const steps = ai.execute!({}, { toolCallId: `c${index}`, messages: [] }) as AsyncIterable<unknown>;
        for await (const step of steps) void step;
      },
    },
    {
      name: "mcp-tasks/langchain (invoke)",
      call: (index) => langchain!.invoke({ id: `c${index}`, name: BENCH_TOOL, args: {}, type: "tool_call" }),
    },
    { name: "mcp-tasks/openai-agents (invoke)", call: () => agents!.invoke(runContext, "{}") },
    {
      name: "hand-written LangChain tool (invoke)",
      call: (index) =>
        plainLangchain.invoke({ id: `c${index}`, name: BENCH_TOOL, args: {}, type: "tool_call" }),
    },
    { name: "hand-written Agents tool (invoke)", call: () => plainAgents.invoke(runContext, "{}") },
  ];
  for (const way of ways) for (let warm = 0; warm < 10; warm++) await way.call(warm); // JIT and caches
  const times = ways.map(() => [] as number[]);
  const cpu = ways.map(() => 0);
  for (let index = 0; index < calls; index++) {
    // Each round starts with another way, so none always runs right after the same one.
    for (let turn = 0; turn < ways.length; turn++) {
      const w = (index + turn) % ways.length;
      const way = ways[w]!;
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      await way.call(index);
      times[w]!.push((performance.now() - start) * 1000);
      const used = process.cpuUsage(cpuStart);
      cpu[w]! += used.user + used.system;
    }
  }
  await client.close();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const direct = median(times[0]!);
  return ways.map((way, w) => ({
    tool,
    way: way.name,
    calls,
    medianUs: Math.round(median(times[w]!)),
    meanUs: Math.round(times[w]!.reduce((sum, time) => sum + time, 0) / calls),
    cpuUs: Math.round(cpu[w]! / calls),
    overheadUs: Math.round(median(times[w]!) - direct),
  }));
}

export function bridgeTable(figures: BridgeFigure[]): string {
  const rows = figures.map(
    (f) =>
      `| ${f.tool} | ${f.way} | ${f.calls} | ${f.medianUs} µs | ${f.meanUs} µs | ${f.cpuUs} µs | ${f.overheadUs >= 0 ? "+" : ""}${f.overheadUs} µs |`,
  );
  return [
    "| tool | way | calls | median | mean | CPU per call | overhead (median) |",
    "|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop() as string)) {
  const calls = Number(process.argv[2] ?? 2000);
  const figures = [...(await measure("immediate", calls)), ...(await measure("task", Math.ceil(calls / 20)))];
  console.log(bridgeTable(figures));
  console.log(`BRIDGE_RESULT ${JSON.stringify(figures)}`);
}
