import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { defineTool, describeTools, fixtureTools, step, textResult } from "mcp-tasks/testing";
import { call, TASKS } from "./rawRpc.js";

const BIN = fileURLToPath(new URL("../../../bin/mcp-tasks-server.js", import.meta.url));

describe("the mcp-tasks-server command", () => {
  it("prints a working URL for --port 0 and stops on SIGTERM", async () => {
    const child = spawn(process.execPath, [BIN, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
      expect(line).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const discovered = await call(line, "server/discover");
      expect(discovered["capabilities"]).toMatchObject({ extensions: { [TASKS]: {} } });
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
  });

  it("exits with status 2 and the usage on an unknown option", async () => {
    const child = spawn(process.execPath, [BIN, "--no-such-option"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toContain("Usage: mcp-tasks-server");
  });

  it("lists every tool it serves, with its arguments, under --help", async () => {
    const child = spawn(process.execPath, [BIN, "--help"], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: mcp-tasks-server");
    for (const tool of fixtureTools()) {
      const line = stdout.split("\n").find((text) => text.startsWith(`  ${tool.name} `));
      expect(line, `--help lists ${tool.name}`).toBeDefined();
      const properties = Object.keys((tool.inputSchema?.["properties"] ?? {}) as object);
      for (const argument of properties) expect(line).toMatch(new RegExp(`\\b${argument}\\??: `));
      if (properties.length === 0) expect(line).toContain("(no arguments)");
    }
    expect(stdout).toContain("slow_compute { seconds?: number, label?: string }  [task: optional]");
  });
});

describe("describeTools", () => {
  it("is generated from the definitions: names, required and optional arguments, task support", () => {
    const tool = defineTool({
      name: "resize",
      description: "Resizes an image.",
      task: "required",
      inputSchema: {
        properties: { url: { type: "string" }, width: { type: "integer" }, raw: {} },
        required: ["url"],
      },
      steps: [step.complete(textResult("done"))],
    });
    expect(describeTools([tool])).toBe(
      "Tools:\n  resize { url: string, width?: integer, raw?: any }  [task: required]\n      Resizes an image.\n",
    );
  });
});
