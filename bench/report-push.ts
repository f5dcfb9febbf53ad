/**
 * The table of a push scenario: mcp-tasks listening (its default), mcp-tasks polling (`notifications: "off"`)
 * and ext-tasks 0.2.2 (which consumes notifications but never sends `subscriptions/listen`, so it polls), with
 * the push ÷ polling ratio measured in the same run.
 */
import type { LibraryName } from "./drivers/types.js";
import type { RunResult } from "./measure.js";
import { cell, format, LIBRARY_TITLES } from "./report.js";
import type { Scenario } from "./scenarios.js";
import { spread, type Spread } from "./stats.js";

interface Figure {
  key: string;
  label: (scenario: Scenario) => string;
  value: (run: RunResult) => number | undefined;
  digits: number;
}

const KB = 1024;

const PUSH_FIGURES: Figure[] = [
  {
    key: "latencyP50Ms",
    label: () => "Completion noticed after the change, p50 (ms; target ≤ 5)",
    value: (r) => r.push?.latencyP50Ms,
    digits: 1,
  },
  {
    key: "latencyP99Ms",
    label: () => "Completion noticed, p99 (ms; target ≤ 20)",
    value: (r) => r.latencyMs.p99,
    digits: 1,
  },
  {
    key: "latencyMaxMs",
    label: () => "Completion noticed, max (ms)",
    value: (r) => r.latencyMs.max,
    digits: 1,
  },
  {
    key: "tasksGetPerTask",
    label: () => "`tasks/get` per task, mean (target ≤ 2)",
    value: (r) => r.pollsPerTask.mean,
    digits: 2,
  },
  {
    key: "tasksGetPerTaskMax",
    label: () => "`tasks/get` per task, max",
    value: (r) => r.push?.tasksGetPerTaskMax,
    digits: 0,
  },
  {
    key: "updatesObserved",
    label: (s) => `Updates observed per task (of ${s.pollsUntilDone})`,
    value: (r) => r.push?.updatesObservedPerTask,
    digits: 2,
  },
  {
    key: "cpuUsPerUpdate",
    label: () => "CPU per observed update (µs)",
    value: (r) => r.push?.cpuUsPerUpdate,
    digits: 1,
  },
  {
    key: "heapPerTaskKB",
    label: () => "Live heap per task (KB)",
    value: (r) => (r.heapPerTaskBytes === undefined ? undefined : r.heapPerTaskBytes / KB),
    digits: 2,
  },
  {
    key: "listens",
    label: () => "`subscriptions/listen` requests",
    value: (r) => r.push?.listens,
    digits: 0,
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

export function summarizePush(runs: RunResult[]): Record<string, Spread> {
  const good = runs.filter((run) => run.ok);
  const summary: Record<string, Spread> = {};
  for (const figure of PUSH_FIGURES) {
    const values = good.map(figure.value).filter((value): value is number => value !== undefined);
    if (values.length > 0) summary[figure.key] = spread(values);
  }
  return summary;
}

function ratio(top: Spread | undefined, bottom: Spread | undefined): string {
  return top && bottom && bottom.median !== 0 ? `${format(top.median / bottom.median, 2)}×` : "—";
}

export function pushTable(
  scenario: Scenario,
  summaries: Partial<Record<LibraryName, Record<string, Spread>>>,
): string {
  const { ours, "ours-polling": polling, "ext-tasks": ext } = summaries;
  const lines = [
    `| Figure | ${LIBRARY_TITLES.ours} (push) | ${LIBRARY_TITLES["ours-polling"]} | push ÷ polling | ${LIBRARY_TITLES["ext-tasks"]} (polls; never listens) |`,
    "|---|---|---|---|---|",
  ];
  for (const figure of PUSH_FIGURES) {
    const row = [
      figure.label(scenario),
      cell(ours?.[figure.key], figure.digits),
      cell(polling?.[figure.key], figure.digits),
      ratio(ours?.[figure.key], polling?.[figure.key]),
      cell(ext?.[figure.key], figure.digits),
    ];
    lines.push(`| ${row.join(" | ")} |`);
  }
  return lines.join("\n");
}
