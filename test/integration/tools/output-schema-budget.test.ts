/**
 * A server cannot freeze the client through a tool's `outputSchema`: through the real client against the
 * reference server, a result checked against a schema that would run for hours in a validator without a bound
 * ends its handle within a second or two, with `OutputSchemaError` carrying the task id. Validation is
 * synchronous, so a frozen event loop would also freeze this test: the test timeout and the elapsed time are
 * the guard.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutputSchemaError, TaskClient, type TaskOutcome } from "../../../src/index.js";
import {
  defineTool,
  startTaskServer,
  step,
  structuredResult,
  type HttpTaskServer,
} from "../../../src/testing/index.js";
import { BACKTRACKING_PATTERN, BACKTRACKING_STRING, doublingRefs } from "./hostile-schemas.js";

const FAST = { polling: { defaultIntervalMs: 10, minIntervalMs: 5, jitter: 0 } } as const;

function taskTool(name: string, outputSchema: Record<string, unknown>, structured: Record<string, unknown>) {
  return defineTool({
    name,
    outputSchema,
    task: "required",
    pollIntervalMs: 10,
    steps: [step.working("thinking"), step.complete(structuredResult(structured))],
  });
}

const TOOLS = [
  taskTool(
    "backtracking_pattern",
    { type: "object", properties: { name: { type: "string", pattern: BACKTRACKING_PATTERN } } },
    { name: BACKTRACKING_STRING },
  ),
  taskTool(
    "backtracking_property_names",
    { type: "object", patternProperties: { [BACKTRACKING_PATTERN]: { type: "number" } } },
    { [BACKTRACKING_STRING]: "not checked: the key does not match", aaaa: "checked" },
  ),
  taskTool("doubling_refs", doublingRefs(40), { any: "object" }),
  taskTool(
    "lookaround_pattern",
    { type: "object", properties: { name: { type: "string", pattern: "^(?!admin).*$" } } },
    { name: "root" },
  ),
  taskTool(
    "backtracking_format",
    { type: "object", properties: { home: { type: "string", format: "url" } } },
    { home: `http://${"a".repeat(40)}!` },
  ),
];

let server: HttpTaskServer;
let client: TaskClient;

beforeAll(async () => {
  server = await startTaskServer({ tools: TOOLS });
  client = await TaskClient.connect(server.url, FAST);
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

/** The outcome of a call of `tool`, and how long the client took from the call to its end. */
async function timedOutcome(tool: string): Promise<{ outcome: TaskOutcome; ms: number }> {
  const started = performance.now();
  const outcome = await client.callTool(tool).outcome();
  return { outcome, ms: performance.now() - started };
}

function schemaErrorOf(outcome: TaskOutcome): OutputSchemaError {
  expect(outcome.kind).toBe("error");
  const error = (outcome as { error?: unknown }).error;
  expect(error).toBeInstanceOf(OutputSchemaError);
  expect((error as OutputSchemaError).taskId).toBe(outcome.taskId);
  expect(outcome.taskId).toEqual(expect.any(String));
  return error as OutputSchemaError;
}

describe("a hostile outputSchema", { timeout: 10_000 }, () => {
  it("pattern ^(a+)+$ against 41 characters: checked in linear time, the mismatch reported", async () => {
    const { outcome, ms } = await timedOutcome("backtracking_pattern");
    const error = schemaErrorOf(outcome);
    expect(error.problems[0]).toEqual({ path: "/name", message: "String does not match pattern." });
    expect(ms).toBeLessThan(3_000);
  });

  it("the same pattern as a patternProperties key: the key is matched in linear time", async () => {
    const { outcome, ms } = await timedOutcome("backtracking_property_names");
    const error = schemaErrorOf(outcome);
    expect(error.problems[0]).toEqual({
      path: "/aaaa",
      message: 'Instance type "string" is invalid. Expected "number".',
    });
    expect(ms).toBeLessThan(3_000);
  });

  it("40 $defs doubling through allOf and $ref (2^40 visits): ends past the budget, saying so", async () => {
    const { outcome, ms } = await timedOutcome("doubling_refs");
    const error = schemaErrorOf(outcome);
    expect(error.problems).toEqual([]);
    // A TaskError: the message names the task, redacted, then the request.
    expect(error.message).toMatch(/^task \w{4}…\w{2}: tasks\/get: /);
    expect(error.message.replace(/^task \S+: /, "")).toBe(
      'tasks/get: the result of "doubling_refs" could not be checked: it is past the validation budget ' +
        "(checking it against its outputSchema takes more than 1,000,000 steps)",
    );
    expect(error.result.structuredContent).toEqual({ any: "object" });
    expect(ms).toBeLessThan(3_000);
  });

  it("a pattern no linear-time matcher can run (lookahead) is refused, the result not handed on", async () => {
    const { outcome } = await timedOutcome("lookaround_pattern");
    const error = schemaErrorOf(outcome);
    expect(error.message).toMatch(
      /could not be checked: its outputSchema could not be compiled \(the pattern "\^\(\?!admin\)\.\*\$" cannot be run by a linear-time matcher/,
    );
  });

  it('format "url", whose expression backtracks exponentially, is not asserted: the result is handed on', async () => {
    const { outcome, ms } = await timedOutcome("backtracking_format");
    expect(outcome).toMatchObject({
      kind: "completed",
      result: { structuredContent: { home: expect.any(String) } },
    });
    expect(ms).toBeLessThan(3_000);
  });

  it("leaves the client working: a later result of the same tool is checked again from zero", async () => {
    const again = await timedOutcome("doubling_refs");
    expect(schemaErrorOf(again.outcome).message).toMatch(/past the validation budget/);
    expect(again.ms).toBeLessThan(3_000);
  });
});
