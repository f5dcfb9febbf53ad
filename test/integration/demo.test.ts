import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

describe("npm run demo", () => {
  it("runs a streamed task, an aborted one and one resumed after a client restart, and exits 0", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/demo.ts"], {
      cwd: root,
      timeout: 50_000,
    });
    expect(stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(stdout).toContain("build_report  working        Rendering charts");
    expect(stdout).toContain("outcome: completed — Report ready");
    expect(stdout).toMatch(/slow_compute\s+cancelled/);
    expect(stdout).toMatch(/outcome: cancelled — task \S+…\S+: cancelled/);
    // The third task outlives its client: the second client resumes the same task from the store.
    const started = /first client started task (\S+)… and stops/.exec(stdout)?.[1];
    expect(started).toBeDefined();
    expect(stdout).toContain(`second client resumed ${started}… from the store`);
    expect(stdout.split("across a client restart")[1]).toContain("outcome: completed — Report ready");
  }, 60_000);
});
