/**
 * The bundled validator's budget (`jsonSchemaValidator` from `mcp-tasks/json-schema`): schemas a server can send
 * to freeze the event loop end the check within the budget, and the keywords answer as `@cfworker/json-schema`
 * (the library whose keywords and messages it keeps) answers, on schemas that fit.
 */
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { jsonSchemaValidator } from "mcp-tasks/json-schema";
import { doublingRefs } from "../../integration/tools/hostile-schemas.js";

function check(schema: Record<string, unknown>, value: unknown) {
  return jsonSchemaValidator.compile(schema)(value);
}

describe("the validation budget", () => {
  it("runs a pattern that backtracks catastrophically in linear time: ^(a+)+$ on 41 characters", () => {
    const started = performance.now();
    expect(check({ type: "string", pattern: "^(a+)+$" }, `${"a".repeat(41)}!`)).toEqual([
      { path: "", message: "String does not match pattern." },
    ]);
    expect(check({ type: "string", pattern: "^(a+)+$" }, "a".repeat(41))).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("runs patternProperties keys on the same matcher", () => {
    const schema = { type: "object", patternProperties: { "^(a+)+$": { type: "number" } } };
    expect(check(schema, { [`${"a".repeat(41)}!`]: "x", aaa: 1 })).toEqual([]);
    expect(check(schema, { aaa: "x" })[0]).toEqual({
      path: "/aaa",
      message: 'Instance type "string" is invalid. Expected "number".',
    });
  });

  it("ends 2^40 visits of 40 doubling $refs with the budget's error", () => {
    const started = performance.now();
    expect(() => check(doublingRefs(40), {})).toThrow(
      /^checking it against its outputSchema takes more than 1,000,000 steps$/,
    );
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("counts the work of a large result: 1,000,001 items cost more than the budget", () => {
    expect(() => check({ type: "array", items: { type: "number" } }, new Array(1_000_001).fill(1))).toThrow(
      /more than 1,000,000 steps/,
    );
  });

  it("finds duplicates of uniqueItems in linear time, reporting the pair a pairwise scan reports", () => {
    const items = Array.from({ length: 50_000 }, (_, index) => ({ id: index }));
    items.push({ id: 7 });
    expect(check({ type: "array", uniqueItems: true }, items)).toEqual([
      { path: "", message: "Duplicate items at indexes 7 and 50000." },
    ]);
  });

  it("shows at most 240 characters of a long enum in its message, whatever its size", () => {
    const [problem] = check({ enum: ["x".repeat(100_000), 1] }, "y");
    expect(problem?.message).toMatch(/^Instance does not match any of \["x{200,}…\.$/);
    expect(problem?.message.length).toBeLessThan(300);
  });

  it("stops a $ref cycle on one value with the budget's error, not a stack overflow", () => {
    expect(() => check({ $defs: { a: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" }, 1)).toThrow(
      /recurses more than 1,000 levels deep/,
    );
  });

  it("refuses at compile time a pattern a linear-time matcher cannot run (lookaround, backreference)", () => {
    expect(() => jsonSchemaValidator.compile({ type: "string", pattern: "^(?=a)a$" })).toThrow(
      /the pattern "\^\(\?=a\)a\$" cannot be run by a linear-time matcher/,
    );
    expect(() => jsonSchemaValidator.compile({ patternProperties: { "(a)\\1": {} } })).toThrow(
      /linear-time matcher/,
    );
  });

  it('does not assert format "url", whose expression backtracks exponentially; other formats still apply', () => {
    const started = performance.now();
    expect(check({ type: "string", format: "url" }, `http://${"a".repeat(40)}!`)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(check({ type: "string", format: "date" }, "2026-13-01")).toEqual([
      { path: "", message: 'String does not match format "date".' },
    ]);
  });
});

/** Schemas and values across the keywords, each answered as @cfworker/json-schema answers it. */
const CASES: Array<[Record<string, unknown>, unknown[]]> = [
  [
    { type: "object", properties: { a: { type: "integer", minimum: 2 } }, required: ["a", "b"] },
    [{ a: 1 }, { a: 2, b: 0 }, { a: 1.5, b: 1 }, []],
  ],
  [{ type: ["string", "null"], minLength: 2, maxLength: 3 }, ["a", "abc", "abcd", null, 1]],
  [{ enum: [1, "x", { k: [1] }] }, [1, "x", { k: [1] }, { k: [2] }, 2]],
  [{ const: { a: [1, { b: null }] } }, [{ a: [1, { b: null }] }, { a: [1, { b: 0 }] }]],
  [{ anyOf: [{ type: "string" }, { type: "number", multipleOf: 0.1 }] }, ["s", 0.3, 0.35, true]],
  [{ oneOf: [{ minimum: 0 }, { maximum: 10 }] }, [-1, 5, 11]],
  [{ not: { type: "string" } }, ["s", 1]],
  [
    { if: { properties: { k: { const: "a" } } }, then: { required: ["a"] }, else: { required: ["b"] } },
    [{ k: "a" }, { k: "b" }, { k: "a", a: 1 }, { b: 1 }],
  ],
  [
    { type: "object", patternProperties: { "^x-": { type: "string" } }, additionalProperties: false },
    [{ "x-a": "s" }, { "x-a": 1 }, { y: 1 }],
  ],
  [
    {
      type: "object",
      properties: { a: true },
      unevaluatedProperties: false,
      allOf: [{ properties: { b: true } }],
    },
    [
      { a: 1, b: 2 },
      { a: 1, c: 3 },
    ],
  ],
  [
    { type: "array", prefixItems: [{ type: "string" }], items: { type: "number" }, minItems: 1, maxItems: 3 },
    [["a", 1], [1], ["a", "b"], [], ["a", 1, 2, 3]],
  ],
  [
    { type: "array", contains: { type: "string" }, minContains: 2, maxContains: 3 },
    [["a"], ["a", "b"], ["a", "b", "c", "d"], [1, 2]],
  ],
  [
    { type: "array", items: { type: "integer" }, unevaluatedItems: false, uniqueItems: true },
    [
      [1, 2],
      [1, 1],
      [[1], [1]],
    ],
  ],
  [
    { type: "object", propertyNames: { pattern: "^[a-z]+$" }, minProperties: 1, maxProperties: 2 },
    [{}, { a: 1 }, { A: 1 }, { a: 1, b: 2, c: 3 }],
  ],
  [
    { dependentRequired: { a: ["b"] }, dependentSchemas: { c: { required: ["d"] } } },
    [{ a: 1 }, { a: 1, b: 1 }, { c: 1 }],
  ],
  [
    {
      $defs: { pos: { type: "number", exclusiveMinimum: 0 } },
      type: "object",
      properties: { p: { $ref: "#/$defs/pos" } },
    },
    [{ p: 1 }, { p: 0 }],
  ],
  [{ type: "string", format: "date-time" }, ["2026-12-07T04:00:00Z", "yesterday"]],
  [
    {
      $schema: "http://json-schema.org/draft-07/schema#",
      items: [{ type: "string" }],
      additionalItems: false,
    },
    [["a"], ["a", 1]],
  ],
  [{ $schema: "http://json-schema.org/draft-04/schema#", minimum: 1, exclusiveMinimum: true }, [1, 2]],
  [
    {
      $schema: "http://json-schema.org/draft-07/schema#",
      dependencies: { a: ["b"], c: { required: ["d"] } },
    },
    [{ a: 1 }, { c: 1, d: 1 }, { c: 1 }],
  ],
];

function draftOf(schema: Record<string, unknown>): "4" | "7" | "2020-12" {
  const uri = String(schema.$schema ?? "");
  return uri.includes("draft-04") ? "4" : uri.includes("draft-07") ? "7" : "2020-12";
}

describe("the keywords within the budget", () => {
  it.each(CASES.map(([schema, values], index) => [index, schema, values] as const))(
    "case %i answers as @cfworker/json-schema does",
    (_, schema, values) => {
      for (const value of values) {
        const reference = new Validator(structuredClone(schema), draftOf(schema)).validate(value);
        const problems = check(schema, value);
        expect(problems.length === 0, JSON.stringify(value)).toBe(reference.valid);
        expect(new Set(problems.map((problem) => problem.message))).toEqual(
          new Set(reference.errors.map((unit) => unit.error)),
        );
      }
    },
  );
});
