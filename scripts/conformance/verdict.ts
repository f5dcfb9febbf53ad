/**
 * Judging the suite's results against the baseline. A run passes only if every scenario certified something:
 *
 * - every check that is FAILURE or WARNING is excused by a `failing` entry (the scenario, or that check);
 * - at least one check passed (SUCCESS), unless the scenario is listed as `skipped` or wholly `failing`: a
 *   scenario whose checks are all SKIPPED or INFO, or that wrote none, certified nothing;
 * - on the client side, the client under test ran to its end (the suite itself does not fail a crashed client
 *   once it is given a baseline);
 * - no baseline entry is stale: a `skipped` scenario that now passes a check, a `failing` entry that now passes,
 *   an entry naming a scenario this run does not include.
 */
import { scenarioOf, type Baseline, type Side } from "./baseline.js";

export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

export interface ScenarioRun {
  side: Side;
  scenario: string;
  /** Client side: the revision it ran at. */
  specVersion?: string;
  /** The suite's exit code (null when it was killed). */
  exitCode: number | null;
  durationMs: number;
  /** The suite's `checks.json`; undefined when it wrote none. */
  checks: Check[] | undefined;
  /** Client side: whether the client printed its done line; `clientError` is the end of its stderr otherwise. */
  clientFinished?: boolean;
  clientError?: string;
  /** Where the suite's output for this run is (for the messages). */
  log: string;
}

const BAD = new Set(["FAILURE", "WARNING"]);

/** How a run is named in messages: the scenario, with its revision on the client side. */
export function runLabel(run: Pick<ScenarioRun, "side" | "scenario" | "specVersion">): string {
  return run.specVersion === undefined ? run.scenario : `${run.scenario}@${run.specVersion}`;
}

/**
 * Everything that makes the run fail, one line each; empty when it passed. `partial`: only some scenarios were
 * run (named on the command line), so baseline entries for the others say nothing.
 */
export function judge(runs: readonly ScenarioRun[], baseline: Baseline, { partial = false } = {}): string[] {
  const problems: string[] = [];
  for (const run of runs) problems.push(...judgeRun(run, baseline));
  if (partial) return problems;
  for (const side of ["server", "client"] as const) {
    const ran = new Set(runs.filter((run) => run.side === side).map((run) => run.scenario));
    const { skipped, failing } = baseline[side];
    for (const entry of [...skipped.keys(), ...failing.keys()]) {
      if (!ran.has(scenarioOf(entry))) {
        problems.push(`baseline ${side}: ${entry} names a scenario this run does not include; remove it`);
      }
    }
  }
  return problems;
}

function judgeRun(run: ScenarioRun, baseline: Baseline): string[] {
  const label = `${run.side} ${runLabel(run)}`;
  const { skipped, failing } = baseline[run.side];
  const wholeFailing = failing.has(run.scenario);
  const problems: string[] = [];
  if (run.checks === undefined) {
    return [`${label}: the suite wrote no checks.json (exit code ${run.exitCode}; see ${run.log})`];
  }
  for (const check of run.checks) {
    if (BAD.has(check.status) && !wholeFailing && !failing.has(`${run.scenario}:${check.id}`)) {
      problems.push(
        `${label}: ${check.id} ${check.status}${check.errorMessage ? `: ${check.errorMessage}` : ""}`,
      );
    }
  }
  const passed = run.checks.some((check) => check.status === "SUCCESS");
  const failed = run.checks.some((check) => BAD.has(check.status));
  if (skipped.has(run.scenario)) {
    if (passed)
      problems.push(`${label}: now passes checks; remove it from ${run.side}.skipped in the baseline`);
  } else if (!passed && !failed && !wholeFailing) {
    problems.push(
      `${label}: no check passed (${summarize(run.checks)}), so nothing was certified; if the suite cannot run ` +
        `it, list it under ${run.side}.skipped in conformance/baseline.yml with the reason`,
    );
  }
  if (wholeFailing && !failed) {
    problems.push(`${label}: passes now; remove it from ${run.side}.failing in the baseline`);
  }
  for (const entry of failing.keys()) {
    if (scenarioOf(entry) !== run.scenario || entry === run.scenario) continue;
    const id = entry.slice(run.scenario.length + 1);
    const statuses = run.checks.filter((check) => check.id === id).map((check) => check.status);
    if (statuses.includes("SUCCESS") && !statuses.some((status) => BAD.has(status))) {
      problems.push(`${label}: ${id} passes now; remove ${entry} from ${run.side}.failing in the baseline`);
    }
  }
  if (run.side === "client" && run.clientFinished !== true && !wholeFailing) {
    problems.push(
      `${label}: the client under test did not finish${run.clientError ? `: ${run.clientError}` : ""}`,
    );
  }
  if (problems.length === 0 && run.exitCode !== 0) {
    problems.push(`${label}: the suite exited with ${run.exitCode} (see ${run.log})`);
  }
  return problems;
}

/** `9/9 passed, 1 failed, …` for the report. */
export function summarize(checks: readonly Check[] | undefined): string {
  const count = (status: string) => checks?.filter((check) => check.status === status).length ?? 0;
  const scored = count("SUCCESS") + count("FAILURE") + count("WARNING");
  const parts = [`${count("SUCCESS")}/${scored} passed`];
  for (const [status, word] of [
    ["FAILURE", "failed"],
    ["WARNING", "warnings"],
    ["SKIPPED", "skipped"],
    ["INFO", "info"],
  ] as const) {
    if (count(status) > 0) parts.push(`${count(status)} ${word}`);
  }
  return parts.join(", ");
}
