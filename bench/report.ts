/**
 * Turns the runs of each scenario into the side-by-side table: each figure as median (min–max) over the
 * rounds, one column per library, the ext-tasks ÷ mcp-tasks ratio of the medians, and the floor (a
 * hand-written poller in the same harness) for reference.
 */
import type { LibraryName } from "./drivers/types.js";
import type { RunResult } from "./measure.js";
import { pushTable, summarizePush } from "./report-push.js";
import { telemetryTable } from "./report-telemetry.js";
import type { Scenario } from "./scenarios.js";
import { spread, type Spread } from "./stats.js";

export interface Figure {
  key: string;
  label: (scenario: Scenario) => string;
  value: (run: RunResult) => number | undefined;
  digits: number;
  /** Only for scenarios that measure heap this way. */
  heap?: Scenario["heapFigure"];
}

const KB = 1024;

const FIGURES: Figure[] = [
  { key: "cpuUsPerPoll", label: () => "CPU per poll (µs)", value: (r) => r.cpuUsPerPoll, digits: 1 },
  {
    key: "heapPerTaskKB",
    label: () => "Live heap per task (KB)",
    value: (r) => (r.heapPerTaskBytes === undefined ? undefined : r.heapPerTaskBytes / KB),
    digits: 2,
    heap: "perTask",
  },
  {
    key: "heapFirstMarkKB",
    label: (s) => `Heap above baseline at poll ${s.heapMarks[0]!.toLocaleString("en-US")} (KB)`,
    value: (r) => r.heapAtMarks[0]! / KB,
    digits: 0,
    heap: "perPoll",
  },
  {
    key: "heapLastMarkKB",
    label: (s) => `Heap above baseline at poll ${s.heapMarks[1]!.toLocaleString("en-US")} (KB)`,
    value: (r) => (r.heapAtMarks[1] === undefined ? undefined : r.heapAtMarks[1] / KB),
    digits: 0,
    heap: "perPoll",
  },
  {
    key: "heapGrowthPerPollBytes",
    label: () => "Heap growth per poll (bytes)",
    value: (r) => r.heapGrowthPerPollBytes,
    digits: 1,
    heap: "perPoll",
  },
  {
    key: "gapMeanMs",
    label: (s) => `Poll gap mean (ms; interval ${s.pollIntervalMs})`,
    value: (r) => r.gapMs.mean,
    digits: 1,
  },
  { key: "gapP99Ms", label: () => "Poll gap p99 (ms)", value: (r) => r.gapMs.p99, digits: 1 },
  { key: "gapMaxMs", label: () => "Poll gap max (ms)", value: (r) => r.gapMs.max, digits: 1 },
  {
    key: "pollsPerTask",
    label: (s) => `Polls per task (mean; ideal ${s.pollsUntilDone + 1})`,
    value: (r) => r.pollsPerTask.mean,
    digits: 2,
  },
  {
    key: "latencyMeanMs",
    label: (s) => `Completion latency mean (ms; ideal ${s.pollIntervalMs / 2})`,
    value: (r) => r.latencyMs.mean,
    digits: 1,
  },
  {
    key: "latencyP50Ms",
    label: () => "Completion latency p50 (ms)",
    value: (r) => r.latencyMs.p50,
    digits: 1,
  },
  {
    key: "latencyP99Ms",
    label: () => "Completion latency p99 (ms)",
    value: (r) => r.latencyMs.p99,
    digits: 1,
  },
  {
    key: "latencyMaxMs",
    label: () => "Completion latency max (ms)",
    value: (r) => r.latencyMs.max,
    digits: 1,
  },
  {
    key: "loopDelayMeanMs",
    label: () => "Event-loop delay mean (ms)",
    value: (r) => r.eventLoopDelayMs.mean,
    digits: 1,
  },
  {
    key: "loopDelayP99Ms",
    label: () => "Event-loop delay p99 (ms)",
    value: (r) => r.eventLoopDelayMs.p99,
    digits: 1,
  },
  {
    key: "loopDelayMaxMs",
    label: () => "Event-loop delay max (ms)",
    value: (r) => r.eventLoopDelayMs.max,
    digits: 1,
  },
  { key: "wallS", label: () => "Wall time of the run (s)", value: (r) => r.wallMs / 1000, digits: 2 },
];

export const LIBRARY_TITLES: Record<LibraryName, string> = {
  ours: "mcp-tasks",
  "ours-polling": 'mcp-tasks, notifications "off"',
  "ours-otel-noop": "mcp-tasks, telemetry on (no-op API)",
  "ours-otel-sdk": "mcp-tasks, telemetry on (SDK, batch export)",
  "ext-tasks": "ext-tasks 0.2.2",
  floor: "floor (hand-written poller)",
};

/** Per-figure spreads over the successful rounds of one library in one scenario. */
export function summarize(scenario: Scenario, runs: RunResult[]): Record<string, Spread> {
  if (scenario.kind === "push") return summarizePush(runs);
  const good = runs.filter((run) => run.ok);
  const summary: Record<string, Spread> = {};
  for (const figure of figuresFor(scenario)) {
    const values = good.map(figure.value).filter((value): value is number => value !== undefined);
    if (values.length > 0) summary[figure.key] = spread(values);
  }
  return summary;
}

/** A Markdown table for one scenario. */
export function scenarioTable(
  scenario: Scenario,
  summaries: Partial<Record<LibraryName, Record<string, Spread>>>,
): string {
  if (scenario.kind === "push") return pushTable(scenario, summaries);
  if (scenario.report === "telemetry") return telemetryTable(scenario, summaries, figuresFor(scenario));
  const { ours, "ext-tasks": ext, floor } = summaries;
  const lines = [
    `| Figure | ${LIBRARY_TITLES.ours} | ${LIBRARY_TITLES["ext-tasks"]} | ext-tasks ÷ mcp-tasks | ${LIBRARY_TITLES.floor} |`,
    "|---|---|---|---|---|",
  ];
  for (const figure of figuresFor(scenario)) {
    const mine = ours?.[figure.key];
    const theirs = ext?.[figure.key];
    const ratio = mine && theirs && mine.median !== 0 ? `${format(theirs.median / mine.median, 1)}×` : "—";
    const row = [figure.label(scenario), cell(mine, figure.digits), cell(theirs, figure.digits), ratio];
    lines.push(`| ${[...row, cell(floor?.[figure.key], figure.digits)].join(" | ")} |`);
  }
  return lines.join("\n");
}

function figuresFor(scenario: Scenario): Figure[] {
  return FIGURES.filter((figure) => figure.heap === undefined || figure.heap === scenario.heapFigure);
}

export function cell(value: Spread | undefined, digits: number): string {
  if (!value) return "—";
  if (value.min === value.max) return format(value.median, digits);
  return `${format(value.median, digits)} (${format(value.min, digits)}–${format(value.max, digits)})`;
}

export function format(value: number, digits: number): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
