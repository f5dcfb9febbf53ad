/**
 * The reference server's tools the `mcp-tasks/cloudflare` tests call (in workerd and in Node). Each advances one
 * step per poll, so a task is still running after its first poll whatever the timing.
 */
import { defineTool, elicitForm, step, textResult, type ToolDefinition } from "mcp-tasks/testing";

export function agentTools(pollIntervalMs: number): ToolDefinition[] {
  return [
    defineTool({
      name: "build_report",
      task: "required",
      pollIntervalMs,
      steps: [
        step.working("Collecting"),
        step.working("Writing"),
        step.working("Checking"),
        step.complete(textResult("report ready")),
      ],
    }),
    defineTool({
      name: "deploy",
      task: "required",
      pollIntervalMs,
      steps: [
        step.working("Planning"),
        step.input({ approval: elicitForm("Deploy to production?", { ok: { type: "boolean" } }) }),
        step.complete(textResult("deployed")),
      ],
    }),
    defineTool({
      name: "endless_job",
      task: "required",
      pollIntervalMs,
      steps: [step.working("Working"), step.stall()],
    }),
  ];
}
