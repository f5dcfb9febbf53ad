/**
 * Decision 17: requests a server sends directly are bounded, through the real client against the reference
 * server of the 2025-11-25 generation over Streamable HTTP (127.0.0.1), whose `beforeTask` input round sends every
 * request of the round at once on the `tools/call` stream. The host's handlers run at most `inputConcurrency` at a
 * time, and past `maxServerRequests` open requests the server is refused with -32000 instead of queueing without end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RpcError, TaskClient, type InputHandlers } from "mcp-tasks";
import type { CreateMessageResult } from "mcp-tasks/schema";
import {
  defineTool,
  sampleText,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "mcp-tasks/testing";

let server: HttpTaskServer;
beforeAll(async () => {
  server = await startTaskServer({
    era: "2025-11-25",
    tools: [
      defineTool({
        name: "ask_many",
        task: "never",
        steps: (args) => [
          step.input(
            Object.fromEntries(
              Array.from({ length: Number(args.count) }, (_, index) => [
                `s${index}`,
                sampleText(`prompt ${index}`),
              ]),
            ),
          ),
          step.complete((call) => textResult(`${Object.keys(call.responses).length} answered`)),
        ],
      }),
    ],
  });
});
afterAll(async () => {
  await server.close();
});

const answer: CreateMessageResult = { role: "assistant", content: { type: "text", text: "ok" }, model: "m" };

/** A sampling handler that counts how many of its calls run at once; each takes `ms` (or until the client closes). */
function countingSampler(ms: number | "forever"): {
  handlers: InputHandlers;
  peak: () => number;
  calls: () => number;
} {
  let running = 0;
  let peak = 0;
  let calls = 0;
  const sampling: InputHandlers["sampling"] = (_params, context) => {
    calls += 1;
    running += 1;
    peak = Math.max(peak, running);
    return new Promise((resolve, reject) => {
      const done = () => {
        running -= 1;
        resolve(answer);
      };
      if (ms !== "forever") setTimeout(done, ms);
      context.signal.addEventListener("abort", () => {
        running -= 1;
        reject(new Error("no longer wanted"));
      });
    });
  };
  return { handlers: { sampling }, peak: () => peak, calls: () => calls };
}

describe("requests the server sends directly", () => {
  it("run the host's sampling handler at most inputConcurrency at once: 40 requests, 4 at a time", async () => {
    const sampler = countingSampler(2);
    const client = await TaskClient.connect(server.url, {
      inputHandlers: sampler.handlers,
      maxServerRequests: 256,
    });
    try {
      const result = await client.callTool("ask_many", { count: 40 });
      expect(result.content).toEqual([{ type: "text", text: "40 answered" }]);
      expect(sampler.calls()).toBe(40);
      expect(sampler.peak()).toBe(4);
    } finally {
      await client.close();
    }
  });

  it("past maxServerRequests are refused with -32000, never reaching the handler, and the logger hears it once", async () => {
    const sampler = countingSampler("forever");
    const warnings: string[] = [];
    const client = await TaskClient.connect(server.url, {
      inputHandlers: sampler.handlers,
      maxServerRequests: 16,
      inputConcurrency: 2,
      logger: { warn: (message: string) => void warnings.push(message) },
    });
    try {
      const outcome = await client.callTool("ask_many", { count: 200 }).outcome();
      // The server's round failed on the first refusal, and so did the call.
      expect(outcome.kind).toBe("error");
      const error = (outcome as { error: unknown }).error;
      expect(error).toBeInstanceOf(RpcError);
      expect((error as RpcError).rpcMessage).toContain("Too many requests");
      expect(sampler.calls()).toBe(2); // the other 14 open requests wait their turn
      expect(warnings.filter((line) => line.includes("maxServerRequests"))).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("a limit below the default is the one the session keeps: 3 open, the 4th of 5 refused with -32000", async () => {
    const sampler = countingSampler("forever");
    const warnings: string[] = [];
    const client = await TaskClient.connect(server.url, {
      inputHandlers: sampler.handlers,
      maxServerRequests: 3,
      inputConcurrency: 1,
      logger: { warn: (message: string) => void warnings.push(message) },
    });
    try {
      // Were the limit the default 64, all 5 would wait for the handler and the call would run into its deadline.
      const outcome = await client.callTool("ask_many", { count: 5 }, { timeoutMs: 10_000 }).outcome();
      expect(outcome.kind).toBe("error");
      const error = (outcome as { error: unknown }).error;
      expect(error).toBeInstanceOf(RpcError);
      expect((error as RpcError).code).toBe(-32000);
      // The server relays the client's refusal as its own error.
      expect((error as RpcError).rpcMessage).toContain(
        "-32000: Too many requests: the client is answering 3 of this server's requests already",
      );
      expect(sampler.calls()).toBe(1);
      expect(warnings).toContain(
        "the server has 3 requests open (maxServerRequests); more are refused with -32000 until some are answered",
      );
    } finally {
      await client.close();
    }
  });
});
