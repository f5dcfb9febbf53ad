/**
 * The table of the telemetry scenario: mcp-tasks with telemetry off, on over the API's no-op globals, and on over
 * the SDK, each figure with its ratio to off (targets: no-op within 5 %, SDK within 1.5× CPU per poll).
 */
import type { Figure } from "./report.js";
import { cell, format, LIBRARY_TITLES } from "./report.js";
import type { LibraryName } from "./drivers/types.js";
import type { Scenario } from "./scenarios.js";
import type { Spread } from "./stats.js";

export function telemetryTable(
  scenario: Scenario,
  summaries: Partial<Record<LibraryName, Record<string, Spread>>>,
  figures: Figure[],
): string {
  const { ours: off, "ours-otel-noop": noop, "ours-otel-sdk": sdk } = summaries;
  const lines = [
    `| Figure | ${LIBRARY_TITLES.ours} (telemetry off) | ${LIBRARY_TITLES["ours-otel-noop"]} | no-op ÷ off | ${LIBRARY_TITLES["ours-otel-sdk"]} | SDK ÷ off |`,
    "|---|---|---|---|---|---|",
  ];
  const ratio = (value: Spread | undefined, base: Spread | undefined) =>
    value && base && base.median !== 0 ? `${format(value.median / base.median, 2)}×` : "—";
  for (const figure of figures) {
    const [a, b, c] = [off?.[figure.key], noop?.[figure.key], sdk?.[figure.key]];
    const row = [figure.label(scenario), cell(a, figure.digits), cell(b, figure.digits), ratio(b, a)];
    lines.push(`| ${[...row, cell(c, figure.digits), ratio(c, a)].join(" | ")} |`);
  }
  return lines.join("\n");
}
