/**
 * The JSON Schema validator behind `validateOutput`: `@cfworker/json-schema`'s keywords, run by
 * `bounded-validate.ts` with a budget. It interprets schemas instead of compiling them to code (no `eval`, no
 * `new Function`, which Workers forbid) and supports drafts 4, 7, 2019-09 and 2020-12. This file adapts its
 * errors; `json-schema-validator.ts` (`mcp-tasks/json-schema`) exports it, and the main entry loads that entry on
 * first need, so none of this (nor RE2) is in the main entry's bundle.
 */
import type { OutputProblem } from "../protocol/errors.js";
import { compileBounded, DEFAULT_MAX_STEPS } from "./bounded-validate.js";

/**
 * Checks values against JSON Schemas: what `validateOutput` uses on tools' `outputSchema`. `mcp-tasks/json-schema`
 * exports one (`jsonSchemaValidator`); any object of this shape works (say, over ajv where code generation is
 * allowed).
 */
export interface JsonSchemaValidator {
  /**
   * Prepares a check of values against `schema`, once per schema. The check returns what does not match (an empty
   * list when the value matches). Either may throw: the result it was asked about then fails with the error as
   * the cause.
   */
  compile(schema: Record<string, unknown>): (value: unknown) => OutputProblem[];
}

/**
 * The bundled validator: `@cfworker/json-schema`'s keywords and messages, checked with a budget
 * (`bounded-validate.ts` owns the bound). `maxSteps` is the budget of one check.
 */
export function boundedValidator(maxSteps: number = DEFAULT_MAX_STEPS): JsonSchemaValidator {
  return {
    compile(schema) {
      const validate = compileBounded(schema, draftOf(schema.$schema), maxSteps);
      return (value) => {
        const { valid, errors } = validate(value);
        if (valid) return [];
        // Keywords that failed on a value come first, in the library's order; then the ones that only say a
        // subschema failed ("Property "x" does not match schema."), which locate the former.
        const leaves = errors.filter((unit) => !SUBSCHEMA_KEYWORDS.has(unit.keyword));
        const wrappers = errors.filter((unit) => SUBSCHEMA_KEYWORDS.has(unit.keyword));
        return [...leaves, ...wrappers].map((unit) => ({
          path: pointerOf(unit.instanceLocation),
          message: unit.error,
        }));
      };
    },
  };
}

/** Keywords whose error only reports that a subschema failed; the subschema's own errors follow them. */
const SUBSCHEMA_KEYWORDS = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "dependentSchemas",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "$ref",
  "$recursiveRef",
  "allOf",
  "anyOf",
  "oneOf",
  "if",
  "then",
  "else",
]);

/** The draft a schema's `$schema` names; 2020-12, MCP's default dialect, when it names none the library knows. */
function draftOf(uri: unknown): "4" | "7" | "2019-09" | "2020-12" {
  if (typeof uri !== "string") return "2020-12";
  if (uri.includes("draft-04")) return "4";
  if (uri.includes("draft-06") || uri.includes("draft-07")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** `#/items/0` → `/items/0`, decoded from its URI fragment form. */
function pointerOf(location: string): string {
  const pointer = location.startsWith("#") ? location.slice(1) : location;
  try {
    return decodeURIComponent(pointer);
  } catch {
    return pointer;
  }
}
