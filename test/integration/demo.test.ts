import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

describe("npm run demo", () => {
  it("runs a streamed task and an aborted one against the reference server, and exits 0", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/demo.ts"], {
      cwd: root,
      timeout: 30_000,
    });
    expect(stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(stdout).toContain("build_report  working        Rendering charts");
    expect(stdout).toContain("outcome: completed — Report ready");
    expect(stdout).toMatch(/slow_compute\s+cancelled/);
    expect(stdout).toMatch(/outcome: cancelled — task \S+…\S+: cancelled/);
  });
});
