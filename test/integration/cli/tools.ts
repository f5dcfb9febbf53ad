/** The tools the command-line tests serve: the fixtures, a hundred times faster, and two that run long. */
import {
  defineTool,
  fixtureTools,
  step,
  textResult,
  type ToolDefinition,
} from "../../../src/testing/index.js";

export function cliTestTools(): ToolDefinition[] {
  return [
    ...fixtureTools({ timeScale: 0.01 }),
    defineTool({
      name: "long_job",
      description: "Works for ten minutes unless cancelled.",
      task: "required",
      advance: { everyMs: 600_000 },
      pollIntervalMs: 100,
      statusMessage: "Crunching numbers",
      steps: [step.complete(textResult("done"))],
    }),
    defineTool({
      name: "stubborn_job",
      description: "Acknowledges tasks/cancel and carries on.",
      task: "required",
      advance: { everyMs: 600_000 },
      pollIntervalMs: 100,
      onCancel: "ignore",
      statusMessage: "Not stopping",
      steps: [step.complete(textResult("done"))],
    }),
  ];
}
