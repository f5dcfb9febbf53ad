/**
 * The validation budget's worst case (`npm run bench -- --validation-only`, and at the end of a full
 * `npm run bench`): the bundled validator (`jsonSchemaValidator` of `mcp-tasks/json-schema`) on the schemas and
 * results that cost the most time per step of its budget, each sized to end at or just under the budget
 * (1,000,000 steps), so the time is what one result can block the event loop at most. From the build
 * (`npm run build` first: what users run; the sources through tsx run several times slower), in this process;
 * median of 7 checks after 2 warm-ups.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DEFAULT_MAX_STEPS } from "../src/tools/bounded-validate.js";
import type { JsonSchemaValidator } from "../src/tools/json-schema.js";
import { BACKTRACKING_PATTERN, doublingRefs } from "../test/integration/tools/hostile-schemas.js";

const BUILT = join(dirname(dirname(fileURLToPath(import.meta.url))), "dist", "json-schema.js");

export interface ValidationFigure {
  case: string;
  /** What the check ended with: "valid", "invalid" or "past the budget". */
  ended: string;
  ms: { median: number; max: number };
}

interface Case {
  name: string;
  schema: Record<string, unknown>;
  value: unknown;
}

/** Nested `allOf`s on one object with `unevaluatedProperties`: every lookup walks the chain of evaluated keys. */
function deepUnevaluated(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { properties: { k0: true }, unevaluatedProperties: false };
  for (let level = 1; level < levels; level++)
    schema = { allOf: [schema], properties: { [`k${level}`]: true }, unevaluatedProperties: false };
  return schema;
}

function cases(): Case[] {
  const steps = DEFAULT_MAX_STEPS;
  const longPattern = `^(${Array.from({ length: 60 }, (_, index) => `x${index}y`).join("|")}|a)+$`;
  const weight = Math.ceil(longPattern.length / 16);
  return [
    { name: "40 doubling $refs (2^40 visits) × {}", schema: doublingRefs(40), value: {} },
    {
      name: "items: number × 990,000 numbers",
      schema: { type: "array", items: { type: "number" } },
      value: new Array(990_000).fill(1),
    },
    {
      name: `pattern ${BACKTRACKING_PATTERN} × ${(steps - 10).toLocaleString("en-US")} characters`,
      schema: { type: "string", pattern: BACKTRACKING_PATTERN },
      value: "a".repeat(steps - 10),
    },
    {
      name: `a ${longPattern.length}-character alternation pattern × ${Math.floor(steps / weight - 10).toLocaleString("en-US")} characters`,
      schema: { type: "string", pattern: longPattern },
      value: "a".repeat(Math.floor(steps / weight - 10)),
    },
    {
      name: "uniqueItems × 60,000 objects",
      schema: { type: "array", uniqueItems: true },
      value: Array.from({ length: 60_000 }, (_, index) => ({ id: index, on: true })),
    },
    {
      name: "unevaluatedProperties under 200 nested allOf × 200 keys",
      schema: deepUnevaluated(200),
      value: Object.fromEntries(Array.from({ length: 200 }, (_, index) => [`k${index}`, 1])),
    },
    {
      name: "enum of 20,000 objects × an object in none",
      schema: { enum: Array.from({ length: 20_000 }, (_, index) => ({ id: index, tag: "t" })) },
      value: { id: -1, tag: "t" },
    },
  ];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

export async function measureValidation(): Promise<ValidationFigure[]> {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: npm run build first`);
  const { jsonSchemaValidator } = (await import(pathToFileURL(BUILT).href)) as {
    jsonSchemaValidator: JsonSchemaValidator;
  };
  return cases().map(({ name, schema, value }) => {
    const check = jsonSchemaValidator.compile(schema);
    const times: number[] = [];
    let ended = "";
    for (let run = 0; run < 9; run++) {
      const started = performance.now();
      try {
        ended = check(value).length === 0 ? "valid" : "invalid";
      } catch (error) {
        ended =
          error instanceof Error && error.name === "ValidationBudgetError"
            ? "past the budget"
            : String(error);
      }
      if (run >= 2) times.push(performance.now() - started);
    }
    return { case: name, ended, ms: { median: median(times), max: Math.max(...times) } };
  });
}

export function validationTable(figures: ValidationFigure[]): string {
  const rows = figures.map(
    (figure) =>
      `| ${figure.case} | ${figure.ended} | ${figure.ms.median.toFixed(0)} ms | ${figure.ms.max.toFixed(0)} ms |`,
  );
  return [
    `| Schema × result (budget ${DEFAULT_MAX_STEPS.toLocaleString("en-US")} steps) | Ended | Median | Max |`,
    "| --- | --- | ---: | ---: |",
    ...rows,
  ].join("\n");
}

if (process.argv[1]?.endsWith("validation.ts")) console.log(validationTable(await measureValidation()));
