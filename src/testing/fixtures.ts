/**
 * The tools the official conformance suite (`@modelcontextprotocol/conformance` 0.2.0-alpha.12,
 * `tasks-*` scenarios) calls, with exactly its names and behaviours. They are the default tool set,
 * so `startTaskServer()` with no options is a server the suite certifies.
 */
import { acceptedContent, elicitForm, step, textResult } from "./steps.js";
import type { ToolDefinition } from "./tool.js";
import { defineTool } from "./tool.js";

/** Options of `fixtureTools`, the tools the reference server serves by default. */
export interface FixtureOptions {
  /**
   * Multiplies every delay of the time-advanced fixtures (`slow_compute`, `failing_job`,
   * `protocol_error_job`). Default 1, the timing the suite expects; `0.01` makes client tests fast.
   */
  readonly timeScale?: number;
}

function stringArgument(args: Readonly<Record<string, unknown>>, key: string, fallback: string): string {
  const value = args[key];
  return typeof value === "string" ? value : fallback;
}

function secondsArgument(args: Readonly<Record<string, unknown>>): number {
  const value = args["seconds"];
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The conformance fixture tools: `greet`, `slow_compute`, `failing_job`, `protocol_error_job`, `confirm_delete`, `multi_input`, `test_tool_with_task`. */
export function fixtureTools(options: FixtureOptions = {}): ToolDefinition[] {
  const scale = options.timeScale ?? 1;
  const after = (ms: number) => ({ everyMs: ms * scale });
  return [
    defineTool({
      name: "greet",
      description: "Greets by name at once; never a task.",
      inputSchema: { properties: { name: { type: "string" } }, required: ["name"] },
      task: "never",
      steps: [
        step.complete((call) => textResult(`Hello, ${stringArgument(call.arguments, "name", "World")}!`)),
      ],
    }),
    defineTool({
      name: "slow_compute",
      description:
        "Works for `seconds` seconds, then completes. A task when the client declares tasks; cancellable.",
      inputSchema: { properties: { seconds: { type: "number" }, label: { type: "string" } } },
      task: "optional",
      advance: (args) => after(secondsArgument(args) * 1000),
      pollIntervalMs: 200,
      steps: [
        step.complete((call) =>
          textResult(
            `Computed "${stringArgument(call.arguments, "label", "result")}" in ${secondsArgument(call.arguments)}s`,
          ),
        ),
      ],
    }),
    defineTool({
      name: "failing_job",
      description: "A task-only job that completes after about a second with a tool error (isError: true).",
      task: "required",
      advance: after(1000),
      pollIntervalMs: 200,
      steps: [step.complete(textResult("The job failed: simulated tool error", { isError: true }))],
    }),
    defineTool({
      name: "protocol_error_job",
      description: "Ends with a JSON-RPC error (-32603): a failed task, or the error itself without a task.",
      task: "optional",
      advance: after(500),
      pollIntervalMs: 200,
      steps: [step.fail({ code: -32603, message: "Simulated internal error in protocol_error_job" })],
    }),
    defineTool({
      name: "confirm_delete",
      description: "Asks for confirmation through a form elicitation, then reports what it did.",
      inputSchema: { properties: { filename: { type: "string" } }, required: ["filename"] },
      task: "required",
      steps: (args) => {
        const filename = stringArgument(args, "filename", "the file");
        return [
          step.input({
            confirm: elicitForm(
              `Delete ${filename}?`,
              { confirm: { type: "boolean", title: "Confirm deletion" } },
              ["confirm"],
            ),
          }),
          step.complete((call) =>
            textResult(
              acceptedContent(call, "confirm")?.["confirm"] === true
                ? `Deleted ${filename}`
                : `Kept ${filename}`,
            ),
          ),
        ];
      },
    }),
    defineTool({
      name: "multi_input",
      description: "Asks two questions at once; partial answers keep the other outstanding.",
      task: "required",
      steps: [
        step.input({
          name: elicitForm("What is your name?", { name: { type: "string" } }, ["name"]),
          confirm: elicitForm("Shall I go ahead?", { confirm: { type: "boolean" } }, ["confirm"]),
        }),
        step.complete((call) => {
          const name = acceptedContent(call, "name")?.["name"];
          const confirmed = acceptedContent(call, "confirm")?.["confirm"];
          return textResult(`Received name=${String(name)}, confirm=${String(confirmed)}`);
        }),
      ],
    }),
    defineTool({
      name: "test_tool_with_task",
      description:
        "Asks for a name through an MRTR round, then creates a task whose result greets that name.",
      task: "required",
      beforeTask: [
        step.input({ user_name: elicitForm("What is your name?", { name: { type: "string" } }, ["name"]) }),
      ],
      steps: [
        step.complete((call) =>
          textResult(`Hello, ${String(acceptedContent(call, "user_name")?.["name"])}!`),
        ),
      ],
    }),
  ];
}
