/**
 * Choosing the era: the 2026-only options a 2025-11-25 server refuses (and the 2025-only option a 2026
 * server refuses), each with an error that names it; the `mcp-tasks-server --era` flag over stdio and HTTP;
 * and the explanation a consumer without `@modelcontextprotocol/sdk` gets.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  EraOptionError,
  LegacySdkMissingError,
  ToolDefinitionError,
  defineTool,
  startStdioTaskServer,
  startTaskServer,
  step,
  textResult,
  type TaskServerEra,
} from "mcp-tasks/testing";
import { explainMissingLegacySdk } from "../../../src/testing/legacy/sdk.js";

const BIN = fileURLToPath(new URL("../../../bin/mcp-tasks-server.js", import.meta.url));

describe("options per era", () => {
  it.each([
    ["listen", { listen: { acknowledge: "none" } }],
    ["taskShapedPrompt", { taskShapedPrompt: true }],
    ["allowOrigins", { allowOrigins: "*" }],
  ] as const)("era 2025-11-25 refuses %s, naming it", async (name, option) => {
    const starting = startTaskServer({ era: "2025-11-25", ...option } as Parameters<
      typeof startTaskServer
    >[0]);
    await expect(starting).rejects.toThrow(EraOptionError);
    await expect(starting).rejects.toThrow(name);
  });

  it("era 2025-11-25 refuses a tool that creates tasks undeclared", async () => {
    const eager = defineTool({
      name: "eager",
      createTaskWhenUndeclared: true,
      steps: [step.complete(textResult("x"))],
    });
    await expect(startTaskServer({ era: "2025-11-25", tools: [eager] })).rejects.toThrow(ToolDefinitionError);
    await expect(startTaskServer({ era: "2025-11-25", tools: [eager] })).rejects.toThrow(
      "createTaskWhenUndeclared",
    );
  });

  it("a 2026-07-28 server refuses taskListPageSize, and a bad page size or era is refused", async () => {
    await expect(startTaskServer({ taskListPageSize: 2 })).rejects.toThrow(EraOptionError);
    expect(() => startStdioTaskServer({ taskListPageSize: 2 })).toThrow(/only to era "2025-11-25"/);
    await expect(startTaskServer({ era: "2025-11-25", taskListPageSize: 0 })).rejects.toThrow(EraOptionError);
    await expect(startTaskServer({ era: "1999-01-01" as TaskServerEra })).rejects.toThrow(/unknown era/);
  });
});

describe("mcp-tasks-server --era 2025-11-25", () => {
  it("serves the fixtures as 2025-11-25 tasks over stdio", async () => {
    const client = new Client({ name: "bin-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "--stdio", "--era", "2025-11-25", "--time-scale", "0.01"],
        stderr: "pipe",
      }),
    );
    try {
      expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
      const stream = client.experimental.tasks.callToolStream(
        { name: "slow_compute", arguments: { seconds: 1, label: "bin" } },
        CallToolResultSchema,
        { task: {} },
      );
      const types: string[] = [];
      let text = "";
      for await (const message of stream) {
        types.push(message.type);
        if (message.type === "result") text = (message.result.content[0] as { text: string }).text;
      }
      expect(types[0]).toBe("taskCreated");
      expect(text).toBe('Computed "bin" in 1s');
    } finally {
      await client.close();
    }
  });

  it("serves them over HTTP on the URL it prints", async () => {
    const child = spawn(process.execPath, [BIN, "--era", "2025-11-25", "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const [url] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
      const client = new Client({ name: "bin-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === "failing_job")?.execution).toEqual({
        taskSupport: "required",
      });
      await client.close();
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
  });

  it("exits with status 2 for an unknown era", async () => {
    const child = spawn(process.execPath, [BIN, "--era", "2024-01-01"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toContain("invalid --era: 2024-01-01");
  });
});

describe("without @modelcontextprotocol/sdk", () => {
  it("a missing v1 SDK becomes an error naming the package to install", () => {
    const missing = Object.assign(
      new Error("Cannot find package '@modelcontextprotocol/sdk' imported from x"),
      {
        code: "ERR_MODULE_NOT_FOUND",
      },
    );
    const explained = explainMissingLegacySdk(missing);
    expect(explained).toBeInstanceOf(LegacySdkMissingError);
    expect((explained as Error).message).toContain("npm install --save-dev @modelcontextprotocol/sdk");
    const other = new Error("boom");
    expect(explainMissingLegacySdk(other)).toBe(other);
  });
});
