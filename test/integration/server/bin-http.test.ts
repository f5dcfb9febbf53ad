import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
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
});
