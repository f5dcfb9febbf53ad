/**
 * A failed `TaskClient.connect()` does not leak its transport. Over stdio, a command that starts but
 * never speaks MCP (it prints garbage, then ignores stdin) makes connect fail; the child must be gone after.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TaskClient } from "../../../src/index.js";

/** Whether a process with this pid exists (signal 0 checks without signalling). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

let dir: string;
let pid: number | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mcp-tasks-connect-"));
  pid = undefined;
});
afterEach(() => {
  // Never leave the child behind, whatever the test found.
  if (pid !== undefined && isAlive(pid)) process.kill(pid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("a failed TaskClient.connect() over stdio", () => {
  it("fails against a command that never speaks MCP, and the child process is gone afterwards", async () => {
    const pidFile = join(dir, "pid");
    const script = [
      `require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));`,
      `process.stdout.write("this is not json-rpc\\n{garbage\\n");`,
      `setInterval(() => {}, 1000);`,
    ].join("\n");
    await expect(
      TaskClient.connect({ command: process.execPath, args: ["-e", script] }, { requestTimeoutMs: 500 }),
    ).rejects.toThrow();
    pid = Number(readFileSync(pidFile, "utf8"));
    expect(Number.isInteger(pid) && pid > 0).toBe(true);
    expect(isAlive(pid)).toBe(false);
  });
});
