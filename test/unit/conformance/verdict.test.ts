/**
 * The conformance runner's judgment (`scripts/conformance/verdict.ts`) and baseline format
 * (`scripts/conformance/baseline.ts`): conformance cannot pass by not running, every excuse carries its reason,
 * and an excuse that no longer applies fails the run.
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { readBaseline, suiteExpectedFailures } from "../../../scripts/conformance/baseline.js";
import { judge, type Check, type ScenarioRun } from "../../../scripts/conformance/verdict.js";

const EMPTY = readBaseline("server: {}\nclient: {}\n");

function serverRun(scenario: string, checks: Check[] | undefined, exitCode = 0): ScenarioRun {
  return { side: "server", scenario, exitCode, durationMs: 1, checks, log: `${scenario}.log` };
}

function clientRun(scenario: string, checks: Check[], finished = true): ScenarioRun {
  return {
    side: "client",
    scenario,
    specVersion: "2026-07-28",
    exitCode: 0,
    durationMs: 1,
    checks,
    clientFinished: finished,
    ...(!finished && { clientError: "Error: boom" }),
    log: `${scenario}.log`,
  };
}

const ok = (id: string): Check => ({ id, status: "SUCCESS" });
const skipped = (id: string): Check => ({ id, status: "SKIPPED" });
const failure = (id: string): Check => ({ id, status: "FAILURE", errorMessage: "wrong" });

describe("judging a run", () => {
  it("passes scenarios with a passing check and nothing failing; SKIPPED and INFO checks beside them are fine", () => {
    const runs = [
      serverRun("tasks-a", [ok("x"), skipped("y"), { id: "z", status: "INFO" }]),
      clientRun("tools_call", [ok("tool")]),
    ];
    expect(judge(runs, EMPTY)).toEqual([]);
  });

  it("fails a scenario in which no check passed: all SKIPPED, only INFO, or no checks at all", () => {
    const runs = [
      serverRun("tasks-skipped", [skipped("a"), skipped("b")]),
      serverRun("tasks-info", [{ id: "a", status: "INFO" }]),
      serverRun("tasks-empty", []),
    ];
    const problems = judge(runs, EMPTY);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toBe(
      "server tasks-skipped: no check passed (0/0 passed, 2 skipped), so nothing was certified; if the suite " +
        "cannot run it, list it under server.skipped in conformance/baseline.yml with the reason",
    );
    expect(problems[1]).toMatch(/^server tasks-info: no check passed \(0\/0 passed, 1 info\)/);
    expect(problems[2]).toMatch(/^server tasks-empty: no check passed/);
  });

  it("accepts an all-SKIPPED scenario listed under skipped, and fails the entry once the scenario passes a check", () => {
    const baseline = readBaseline("server:\n  skipped:\n    tasks-push: the suite does not run it yet\n");
    expect(judge([serverRun("tasks-push", [skipped("tasks-push")])], baseline)).toEqual([]);
    expect(judge([serverRun("tasks-push", [ok("shape")])], baseline)).toEqual([
      "server tasks-push: now passes checks; remove it from server.skipped in the baseline",
    ]);
  });

  it("fails on a FAILURE or WARNING check, naming the check and the suite's message", () => {
    const runs = [serverRun("tasks-a", [ok("x"), failure("y"), { id: "w", status: "WARNING" }], 1)];
    expect(judge(runs, EMPTY)).toEqual(["server tasks-a: y FAILURE: wrong", "server tasks-a: w WARNING"]);
  });

  it("excuses failures listed as failing (whole scenario or one check), and fails entries that pass now", () => {
    const baseline = readBaseline(
      "client:\n  failing:\n    sse-retry: reason one\n    tools_call:tool: reason two\n",
    );
    const failing = [clientRun("sse-retry", [failure("timing")]), clientRun("tools_call", [failure("tool")])];
    expect(judge(failing, baseline)).toEqual([]);
    const passing = [clientRun("sse-retry", [ok("timing")]), clientRun("tools_call", [ok("tool")])];
    expect(judge(passing, baseline)).toEqual([
      "client sse-retry@2026-07-28: passes now; remove it from client.failing in the baseline",
      "client tools_call@2026-07-28: tool passes now; remove tools_call:tool from client.failing in the baseline",
    ]);
    // A check entry excuses only that check.
    expect(judge([clientRun("tools_call", [failure("tool"), failure("other")])], baseline)).toEqual([
      "client tools_call@2026-07-28: other FAILURE: wrong",
      "baseline client: sse-retry names a scenario this run does not include; remove it",
    ]);
  });

  it("leaves baseline entries for scenarios not run alone when only some scenarios were run", () => {
    const baseline = readBaseline("client:\n  failing:\n    sse-retry: known\n");
    expect(judge([clientRun("tools_call", [ok("tool")])], baseline, { partial: true })).toEqual([]);
  });

  it("fails a client scenario whose client under test did not finish, even when every check passed", () => {
    expect(judge([clientRun("tools_call", [ok("tool")], false)], EMPTY)).toEqual([
      "client tools_call@2026-07-28: the client under test did not finish: Error: boom",
    ]);
  });

  it("fails a run without checks.json, and a clean-looking run the suite itself failed", () => {
    expect(judge([serverRun("tasks-a", undefined, 1)], EMPTY)).toEqual([
      "server tasks-a: the suite wrote no checks.json (exit code 1; see tasks-a.log)",
    ]);
    expect(judge([serverRun("tasks-a", [ok("x")], 1)], EMPTY)).toEqual([
      "server tasks-a: the suite exited with 1 (see tasks-a.log)",
    ]);
  });
});

describe("the baseline file", () => {
  it("reads both sides' lists and hands the suite its own expected-failures format", () => {
    const baseline = readBaseline(
      [
        "server:",
        "  skipped:",
        "    tasks-push: >-",
        "      the suite returns SKIPPED",
        "      without a request",
        "  failing:",
        "    tasks-a:check-1: known",
        "client:",
        "  skipped: {}",
        "  failing:",
        "    sse-retry: known too",
      ].join("\n"),
    );
    expect(baseline.server.skipped.get("tasks-push")).toBe("the suite returns SKIPPED without a request");
    expect(parse(suiteExpectedFailures(baseline))).toEqual({
      server: ["tasks-a:check-1"],
      client: ["sse-retry"],
    });
  });

  it.each([
    ["an entry without a reason", "server:\n  skipped:\n    tasks-a:\n", /"tasks-a" needs its reason/],
    ["an empty reason", 'client:\n  failing:\n    sse-retry: "  "\n', /"sse-retry" needs its reason/],
    [
      "a list instead of a mapping",
      "client:\n  failing:\n    - sse-retry\n",
      /client.failing: expected a mapping/,
    ],
    ["an unknown side", "servers: {}\n", /unknown key "servers"/],
    ["an unknown list", "server:\n  expected: {}\n", /server: unknown key "expected"/],
    ["a check under skipped", "server:\n  skipped:\n    tasks-a:x: why\n", /list whole scenarios here/],
    [
      "a scenario both skipped and failing",
      "server:\n  skipped:\n    tasks-a: why\n  failing:\n    tasks-a:x: why\n",
      /"tasks-a" is listed both as skipped and as failing/,
    ],
  ])("refuses %s", (_what, text, message) => {
    expect(() => readBaseline(text)).toThrow(message);
  });
});
