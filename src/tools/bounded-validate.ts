/**
 * The one owner of the rule "a server's `outputSchema` cannot block the event loop" (DESIGN decision 17: every
 * size a server controls has a documented limit). Validation is synchronous and runs on every result, so its
 * cost is counted, in steps, as it goes; the rule, in full:
 * - One step per visit of a (subschema, value) pair: `$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`, … are
 *   visits like any other, so 40 `$defs` that each `allOf` the previous one twice cost what they really cost
 *   (2^40 visits) and hit the bound instead of running for hours.
 * - Work inside a visit is counted too: one step per required name, listed property and error kept; one per
 *   value compared for `const`, `enum` and `uniqueItems` (which is linear here, not quadratic); one per
 *   character a `format` reads; a `pattern` (or `patternProperties` key) costs the string's length times its
 *   weight (one step per 16 characters of pattern).
 * - Past `maxSteps` the check throws {@link ValidationBudgetError}; nothing is cached from a check, so the next
 *   result starts from zero.
 * - Patterns run on RE2 (re2js), whose matching is linear in the string's length: `^(a+)+$` cannot backtrack. A
 *   pattern RE2 cannot run (lookaround, backreferences) makes the schema unusable when it is compiled, before any
 *   result is checked. The `format` checks are `@cfworker/json-schema`'s fixed expressions, except `url` (no
 *   draft defines it, and its expression backtracks exponentially), which is an annotation only here.
 * - Recursion deeper than {@link MAX_VALIDATION_DEPTH} (a `$ref` chain on one value, or a value nested that deep)
 *   also ends the check with the error, not with a stack overflow.
 *
 * The keywords, the drafts (4, 7, 2019-09, 2020-12) and the error messages are `@cfworker/json-schema` 4.1.6's
 * `validate` (MIT), ported with the counting above; its `dereference` resolves `$ref`s, and its `format` table
 * checks formats.
 */
import { dereference, format as formats, encodePointer, ucs2length } from "@cfworker/json-schema";
import { RE2JS } from "re2js";

export type Draft = "4" | "7" | "2019-09" | "2020-12";

/** One thing that does not match, as `@cfworker/json-schema` reports it. */
export interface ValidationUnit {
  instanceLocation: string;
  keyword: string;
  error: string;
}

/** The default budget: about 0.1 s of work on a 2020 laptop core (docs/performance.md has the measure). */
export const DEFAULT_MAX_STEPS = 1_000_000;
/** The deepest recursion a check may reach: far past an honest schema over a result of `MAX_JSON_DEPTH`. */
export const MAX_VALIDATION_DEPTH = 1_000;
/** Characters of pattern per step of weight: one pass of RE2 over a string costs more for a longer program. */
const PATTERN_CHARS_PER_WEIGHT = 16;
/** Steps per value written for `uniqueItems` (a text per value, and a sort of keys): it costs more than a visit. */
const CANONICAL_STEPS = 5;
/** Characters of a `const` or `enum` a message shows (the error keeps 200). */
const MESSAGE_CHARS = 240;

/** A check that would cost more than its budget. Its message says which bound and how much it allows. */
export class ValidationBudgetError extends Error {
  override name = "ValidationBudgetError";
}

type Schema = Record<string, unknown>;
type Lookup = Record<string, Schema | boolean>;

/**
 * The properties (or items) evaluated at a value, for `unevaluatedProperties` and `unevaluatedItems`: a subschema
 * of `anyOf`/`allOf`/`oneOf` sees its parent's, and adds its own, merged up when it matches (the library's
 * semantics). A chain of sets rather than of prototypes: V8 makes every object used as a prototype slow to build.
 */
class Evaluated {
  own: Set<string | number> | undefined;
  constructor(readonly parent: Evaluated | null = null) {}
  add(key: string | number): void {
    (this.own ??= new Set()).add(key);
  }
  merge(other: Evaluated): void {
    if (other.own !== undefined) for (const key of other.own) this.add(key);
  }
}

/** A pattern RE2 cannot run makes the schema unusable; the message says which. */
function compilePattern(source: unknown): RE2JS {
  if (typeof source !== "string") throw new Error("a pattern is not a string");
  try {
    return RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the pattern ${JSON.stringify(clipped(source))} cannot be run by a linear-time matcher (${why}), so it is refused`,
    );
  }
}

function clipped(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** Compiles `schema` (a copy of it: the library marks the objects it reads) into a check with a budget. */
export function compileBounded(
  schema: Schema,
  draft: Draft,
  maxSteps: number = DEFAULT_MAX_STEPS,
): (value: unknown) => { valid: boolean; errors: ValidationUnit[] } {
  const root = structuredClone(schema);
  const lookup = dereference(root) as Lookup;
  const patterns = new Map<string, { re: RE2JS; weight: number }>();
  const patternOf = (source: unknown) => {
    const key = String(source);
    let known = patterns.get(key);
    if (known === undefined) {
      known = {
        re: compilePattern(source),
        weight: Math.ceil(Math.max(1, key.length) / PATTERN_CHARS_PER_WEIGHT),
      };
      patterns.set(key, known);
    }
    return known;
  };
  let tracks = false;
  // Every pattern is compiled now, so a schema with one RE2 cannot run is refused before any result.
  for (const node of Object.values(lookup)) {
    if (typeof node !== "object") continue;
    if (node.unevaluatedProperties !== undefined || node.unevaluatedItems !== undefined) tracks = true;
    if (node.pattern !== undefined) patternOf(node.pattern);
    const byPattern = node.patternProperties;
    if (isRecord(byPattern)) for (const key of Object.keys(byPattern)) patternOf(key);
  }
  return (value) => new Run(root, draft, lookup, patternOf, maxSteps, tracks).check(value);
}

function isRecord(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasOwn(value: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(value, key);
}

/** One check of one value: its own step count. */
class Run {
  private steps = 0;
  private depth = 0;

  constructor(
    private readonly root: Schema,
    private readonly draft: Draft,
    private readonly lookup: Lookup,
    private readonly patternOf: (source: unknown) => { re: RE2JS; weight: number },
    private readonly maxSteps: number,
    /** Whether any subschema has `unevaluatedProperties` or `unevaluatedItems`: otherwise nothing reads it. */
    private readonly tracks: boolean,
  ) {}

  check(value: unknown): { valid: boolean; errors: ValidationUnit[] } {
    return this.validate(value, this.root, null, "#", this.child(null));
  }

  private spend(steps: number): void {
    this.steps += steps;
    if (this.steps > this.maxSteps)
      throw new ValidationBudgetError(
        `checking it against its outputSchema takes more than ${this.maxSteps.toLocaleString("en-US")} steps`,
      );
  }

  /** Appends `from` to `to` without spreading (a long list would overflow the argument stack). */
  private append(to: ValidationUnit[], from: readonly ValidationUnit[]): void {
    this.spend(from.length);
    for (const unit of from) to.push(unit);
  }

  /** `deepCompareStrict`, one step per value compared. */
  private equal(a: unknown, b: unknown): boolean {
    this.spend(1);
    if (typeof a !== typeof b) return false;
    if (Array.isArray(a) || Array.isArray(b)) {
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
      for (let index = 0; index < a.length; index++) if (!this.equal(a[index], b[index])) return false;
      return true;
    }
    if (typeof a === "object") {
      if (a === null || b === null) return a === b;
      const left = a as Schema;
      const right = b as Schema;
      const keys = Object.keys(left);
      if (keys.length !== Object.keys(right).length) return false;
      for (const key of keys) if (!hasOwn(right, key) || !this.equal(left[key], right[key])) return false;
      return true;
    }
    // Comparing two strings of one length reads them.
    if (typeof a === "string" && a.length === (b as string).length) this.spend(a.length >> 6);
    return a === b;
  }

  /** A text that is equal for values `equal` calls equal (keys sorted), one step per value. */
  private canonical(value: unknown): string {
    this.spend(CANONICAL_STEPS);
    if (Array.isArray(value)) {
      let text = "[";
      for (const item of value) text += `${this.canonical(item)},`;
      return `${text}]`;
    }
    if (isRecord(value)) {
      const keys = Object.keys(value).sort();
      this.spend(keys.length * CANONICAL_STEPS);
      let text = "{";
      for (const key of keys) text += `${JSON.stringify(key)}:${this.canonical(value[key])},`;
      return `${text}}`;
    }
    if (typeof value === "string") this.spend(value.length >> 6);
    return JSON.stringify(value) ?? "null";
  }

  /** The start of `value` as JSON, for a message: `enum` can be long, and the message keeps 200 characters. */
  private shown(value: unknown): string {
    const text = preview(value, MESSAGE_CHARS);
    this.spend(text.length);
    return text;
  }

  private test(source: unknown, text: string): boolean {
    const { re, weight } = this.patternOf(source);
    this.spend(text.length * weight);
    return re.test(text);
  }

  /** A fresh record of evaluated keys; one shared, never written, when nothing reads them. */
  private child(parent: Evaluated | null): Evaluated {
    return this.tracks ? new Evaluated(parent) : UNTRACKED;
  }

  /** Notes `key` as evaluated, when the schema has an `unevaluated*` keyword to read it (a step each). */
  private mark(evaluated: Evaluated, key: string | number): void {
    if (!this.tracks) return;
    this.spend(1);
    evaluated.add(key);
  }

  /** Whether `key` was evaluated, one step per link of the chain read. */
  private seen(evaluated: Evaluated, key: string | number): boolean {
    for (let link: Evaluated | null = evaluated; link !== null; link = link.parent) {
      this.spend(1);
      if (link.own?.has(key) === true) return true;
    }
    return false;
  }

  private fail(errors: ValidationUnit[], instanceLocation: string, keyword: string, error: string): void {
    this.spend(1);
    errors.push({ instanceLocation, keyword, error });
  }

  /** One visit. No closure is made per visit: a check may visit a million times. */
  private validate(
    instance: unknown,
    schema: unknown,
    recursiveAnchor: Schema | null,
    instanceLocation: string,
    evaluated: Evaluated,
  ): Result {
    this.spend(1);
    if (this.depth >= MAX_VALIDATION_DEPTH)
      throw new ValidationBudgetError(
        `checking it against its outputSchema recurses more than ${MAX_VALIDATION_DEPTH.toLocaleString("en-US")} levels deep`,
      );
    if (schema === true) return VALID;
    if (schema === false)
      return {
        valid: false,
        errors: [{ instanceLocation, keyword: "false", error: "False boolean schema." }],
      };
    if (!isRecord(schema)) return VALID;
    this.depth++;
    const result = this.visit(instance, schema, recursiveAnchor, instanceLocation, evaluated);
    this.depth--;
    return result;
  }

  private visit(
    instance: unknown,
    s: Schema & { __absolute_ref__?: string; __absolute_recursive_ref__?: string },
    recursiveAnchor: Schema | null,
    instanceLocation: string,
    evaluated: Evaluated,
  ): Result {
    const draft = this.draft;
    const instanceType = typeOf(instance);
    const errors: ValidationUnit[] = [];

    if (s.$recursiveAnchor === true && recursiveAnchor === null) recursiveAnchor = s;
    if (s.$recursiveRef === "#") {
      const refSchema =
        recursiveAnchor === null ? this.lookup[s.__absolute_recursive_ref__ ?? ""] : recursiveAnchor;
      const result = this.validate(
        instance,
        recursiveAnchor === null ? s : recursiveAnchor,
        isRecord(refSchema) ? refSchema : null,
        instanceLocation,
        evaluated,
      );
      if (!result.valid) {
        this.fail(errors, instanceLocation, "$recursiveRef", "A subschema had errors.");
        this.append(errors, result.errors);
      }
    }
    if (s.$ref !== undefined) {
      const ref = String(s.$ref);
      const uri = s.__absolute_ref__ || ref;
      const refSchema = this.lookup[uri];
      if (refSchema === undefined) {
        let message = `Unresolved $ref "${ref}".`;
        if (s.__absolute_ref__ && s.__absolute_ref__ !== ref)
          message += `  Absolute URI "${s.__absolute_ref__}".`;
        throw new Error(message);
      }
      const result = this.validate(instance, refSchema, recursiveAnchor, instanceLocation, evaluated);
      if (!result.valid) {
        this.fail(errors, instanceLocation, "$ref", "A subschema had errors.");
        this.append(errors, result.errors);
      }
      if (draft === "4" || draft === "7") return { valid: errors.length === 0, errors };
    }

    const $type = s.type;
    const integer = instanceType === "number" && (instance as number) % 1 === 0;
    if (Array.isArray($type)) {
      this.spend($type.length);
      let valid = false;
      for (const type of $type) if (instanceType === type || (type === "integer" && integer)) valid = true;
      if (!valid)
        this.fail(
          errors,
          instanceLocation,
          "type",
          `Instance type "${instanceType}" is invalid. Expected "${$type.join('", "')}".`,
        );
    } else if ($type !== undefined && !(instanceType === $type || ($type === "integer" && integer))) {
      this.fail(
        errors,
        instanceLocation,
        "type",
        `Instance type "${instanceType}" is invalid. Expected "${String($type)}".`,
      );
    }

    if (s.const !== undefined && !this.equal(instance, s.const))
      this.fail(errors, instanceLocation, "const", `Instance does not match ${this.shown(s.const)}.`);
    if (Array.isArray(s.enum)) {
      this.spend(s.enum.length);
      let found = false;
      for (const value of s.enum) if (!found && this.equal(instance, value)) found = true;
      if (!found)
        this.fail(errors, instanceLocation, "enum", `Instance does not match any of ${this.shown(s.enum)}.`);
    }
    if (s.not !== undefined) {
      const result = this.validate(instance, s.not, recursiveAnchor, instanceLocation, this.child(null));
      if (result.valid) this.fail(errors, instanceLocation, "not", 'Instance matched "not" schema.');
    }

    const subEvaluateds: Evaluated[] = [];
    const anchor = s.$recursiveAnchor === true ? recursiveAnchor : null;
    for (const keyword of COMBINATORS) {
      const subSchemas = s[keyword];
      if (!Array.isArray(subSchemas)) continue;
      const from = errors.length;
      const matches = this.each(
        instance,
        subSchemas,
        anchor,
        instanceLocation,
        evaluated,
        errors,
        subEvaluateds,
      );
      const [holds, message] = combinatorVerdict(keyword, matches, subSchemas.length);
      this.settle(errors, from, holds, instanceLocation, keyword, message);
    }
    if (instanceType === "object" || instanceType === "array")
      for (const subEvaluated of subEvaluateds) evaluated.merge(subEvaluated);

    if (s.if !== undefined) {
      const ifEvaluated = this.child(null);
      if (this.validate(instance, s.if, recursiveAnchor, instanceLocation, ifEvaluated).valid) {
        evaluated.merge(ifEvaluated);
        if (s.then !== undefined) {
          const result = this.validate(instance, s.then, recursiveAnchor, instanceLocation, evaluated);
          if (!result.valid) {
            this.fail(errors, instanceLocation, "if", 'Instance does not match "then" schema.');
            this.append(errors, result.errors);
          }
        }
      } else if (s.else !== undefined) {
        const result = this.validate(instance, s.else, recursiveAnchor, instanceLocation, evaluated);
        if (!result.valid) {
          this.fail(errors, instanceLocation, "if", 'Instance does not match "else" schema.');
          this.append(errors, result.errors);
        }
      }
    }

    if (instanceType === "object")
      this.object(instance as Schema, s, recursiveAnchor, instanceLocation, evaluated, errors);
    else if (instanceType === "array")
      this.array(instance as unknown[], s, recursiveAnchor, instanceLocation, evaluated, errors);
    else if (instanceType === "number") this.number(instance as number, s, instanceLocation, errors);
    else if (instanceType === "string") this.string(instance as string, s, instanceLocation, errors);
    return { valid: errors.length === 0, errors };
  }

  /** `anyOf`, `allOf`, `oneOf`: every subschema on the value; how many matched. */
  private each(
    instance: unknown,
    subSchemas: unknown[],
    anchor: Schema | null,
    instanceLocation: string,
    evaluated: Evaluated,
    errors: ValidationUnit[],
    subEvaluateds: Evaluated[],
  ): number {
    let matches = 0;
    for (const subSchema of subSchemas) {
      const subEvaluated = this.child(evaluated);
      const result = this.validate(instance, subSchema, anchor, instanceLocation, subEvaluated);
      this.append(errors, result.errors);
      if (result.valid) {
        subEvaluateds.push(subEvaluated);
        matches++;
      }
    }
    return matches;
  }

  /** Drops the subschemas' errors when the keyword holds, otherwise puts its own error before them. */
  private settle(
    errors: ValidationUnit[],
    from: number,
    holds: boolean,
    instanceLocation: string,
    keyword: string,
    error: string,
  ): void {
    if (holds) errors.length = from;
    else {
      this.spend(1);
      errors.splice(from, 0, { instanceLocation, keyword, error });
    }
  }

  private object(
    instance: Schema,
    s: Schema,
    recursiveAnchor: Schema | null,
    instanceLocation: string,
    evaluated: Evaluated,
    errors: ValidationUnit[],
  ): void {
    const keys = Object.keys(instance);
    this.spend(keys.length);
    if (Array.isArray(s.required)) {
      this.spend(s.required.length);
      for (const key of s.required)
        if (!hasOwn(instance, String(key)))
          this.fail(
            errors,
            instanceLocation,
            "required",
            `Instance does not have required property "${String(key)}".`,
          );
    }
    const minProperties = s.minProperties as number | undefined;
    const maxProperties = s.maxProperties as number | undefined;
    if (minProperties !== undefined && keys.length < minProperties)
      this.fail(
        errors,
        instanceLocation,
        "minProperties",
        `Instance does not have at least ${minProperties} properties.`,
      );
    if (maxProperties !== undefined && keys.length > maxProperties)
      this.fail(
        errors,
        instanceLocation,
        "maxProperties",
        `Instance does not have at least ${maxProperties} properties.`,
      );
    if (s.propertyNames !== undefined) {
      for (const key of keys) {
        const result = this.validate(
          key,
          s.propertyNames,
          recursiveAnchor,
          at(instanceLocation, key),
          this.child(null),
        );
        if (!result.valid) {
          this.fail(
            errors,
            instanceLocation,
            "propertyNames",
            `Property name "${key}" does not match schema.`,
          );
          this.append(errors, result.errors);
        }
      }
    }
    if (isRecord(s.dependentRequired)) {
      for (const [key, required] of Object.entries(s.dependentRequired)) {
        this.spend(1);
        if (!hasOwn(instance, key) || !Array.isArray(required)) continue;
        this.spend(required.length);
        for (const dependantKey of required)
          if (!hasOwn(instance, String(dependantKey)))
            this.fail(
              errors,
              instanceLocation,
              "dependentRequired",
              `Instance has "${key}" but does not have "${String(dependantKey)}".`,
            );
      }
    }
    if (isRecord(s.dependentSchemas)) {
      for (const [key, dependentSchema] of Object.entries(s.dependentSchemas)) {
        this.spend(1);
        if (!hasOwn(instance, key)) continue;
        const result = this.validate(instance, dependentSchema, recursiveAnchor, instanceLocation, evaluated);
        if (!result.valid) {
          this.fail(
            errors,
            instanceLocation,
            "dependentSchemas",
            `Instance has "${key}" but does not match dependant schema.`,
          );
          this.append(errors, result.errors);
        }
      }
    }
    if (isRecord(s.dependencies)) {
      for (const [key, propsOrSchema] of Object.entries(s.dependencies)) {
        this.spend(1);
        if (!hasOwn(instance, key)) continue;
        if (Array.isArray(propsOrSchema)) {
          this.spend(propsOrSchema.length);
          for (const dependantKey of propsOrSchema)
            if (!hasOwn(instance, String(dependantKey)))
              this.fail(
                errors,
                instanceLocation,
                "dependencies",
                `Instance has "${key}" but does not have "${String(dependantKey)}".`,
              );
        } else {
          const result = this.validate(
            instance,
            propsOrSchema,
            recursiveAnchor,
            instanceLocation,
            this.child(null),
          );
          if (!result.valid) {
            this.fail(
              errors,
              instanceLocation,
              "dependencies",
              `Instance has "${key}" but does not match dependant schema.`,
            );
            this.append(errors, result.errors);
          }
        }
      }
    }
    const thisEvaluated = new Set<string>();
    let stop = false;
    if (isRecord(s.properties)) {
      for (const [key, propertySchema] of Object.entries(s.properties)) {
        this.spend(1);
        if (!hasOwn(instance, key)) continue;
        const result = this.validate(
          instance[key],
          propertySchema,
          recursiveAnchor,
          at(instanceLocation, key),
          this.child(null),
        );
        thisEvaluated.add(key);
        if (result.valid) this.mark(evaluated, key);
        else {
          stop = true;
          this.fail(errors, instanceLocation, "properties", `Property "${key}" does not match schema.`);
          this.append(errors, result.errors);
          break;
        }
      }
    }
    if (!stop && isRecord(s.patternProperties)) {
      for (const [pattern, subSchema] of Object.entries(s.patternProperties)) {
        for (const key of keys) {
          if (!this.test(pattern, key)) continue;
          const result = this.validate(
            instance[key],
            subSchema,
            recursiveAnchor,
            at(instanceLocation, key),
            this.child(null),
          );
          thisEvaluated.add(key);
          if (result.valid) this.mark(evaluated, key);
          else {
            stop = true;
            this.fail(
              errors,
              instanceLocation,
              "patternProperties",
              `Property "${key}" matches pattern "${pattern}" but does not match associated schema.`,
            );
            this.append(errors, result.errors);
          }
        }
      }
    }
    if (!stop && s.additionalProperties !== undefined) {
      for (const key of keys) {
        if (thisEvaluated.has(key)) continue;
        const result = this.validate(
          instance[key],
          s.additionalProperties,
          recursiveAnchor,
          at(instanceLocation, key),
          this.child(null),
        );
        if (result.valid) this.mark(evaluated, key);
        else {
          stop = true;
          this.fail(
            errors,
            instanceLocation,
            "additionalProperties",
            `Property "${key}" does not match additional properties schema.`,
          );
          this.append(errors, result.errors);
        }
      }
    } else if (!stop && s.unevaluatedProperties !== undefined) {
      for (const key of keys) {
        if (this.seen(evaluated, key)) continue;
        const result = this.validate(
          instance[key],
          s.unevaluatedProperties,
          recursiveAnchor,
          at(instanceLocation, key),
          this.child(null),
        );
        if (result.valid) this.mark(evaluated, key);
        else {
          this.fail(
            errors,
            instanceLocation,
            "unevaluatedProperties",
            `Property "${key}" does not match unevaluated properties schema.`,
          );
          this.append(errors, result.errors);
        }
      }
    }
  }

  /** Items `from` up to `end`, each against `schemas[index]` (an array) or `schemas` itself; the next index. */
  private items(
    instance: unknown[],
    from: number,
    end: number,
    schemas: unknown,
    recursiveAnchor: Schema | null,
    instanceLocation: string,
    evaluated: Evaluated,
    errors: ValidationUnit[],
    keyword: string,
    error: string,
    stopAtFailure: boolean,
  ): { next: number; stop: boolean } {
    let index = from;
    let failed = false;
    for (; index < end; index++) {
      const schema = Array.isArray(schemas) ? schemas[index] : schemas;
      const result = this.validate(
        instance[index],
        schema,
        recursiveAnchor,
        `${instanceLocation}/${index}`,
        this.child(null),
      );
      this.mark(evaluated, index);
      if (!result.valid) {
        this.fail(errors, instanceLocation, keyword, error);
        this.append(errors, result.errors);
        failed = true;
        if (stopAtFailure) break;
      }
    }
    return { next: index, stop: failed };
  }

  private array(
    instance: unknown[],
    s: Schema,
    recursiveAnchor: Schema | null,
    instanceLocation: string,
    evaluated: Evaluated,
    errors: ValidationUnit[],
  ): void {
    const length = instance.length;
    const maxItems = s.maxItems as number | undefined;
    const minItems = s.minItems as number | undefined;
    if (maxItems !== undefined && length > maxItems)
      this.fail(errors, instanceLocation, "maxItems", `Array has too many items (${length} > ${maxItems}).`);
    if (minItems !== undefined && length < minItems)
      this.fail(errors, instanceLocation, "minItems", `Array has too few items (${length} < ${minItems}).`);
    let i = 0;
    let stop = false;
    const at = instanceLocation;
    if (Array.isArray(s.prefixItems)) {
      const end = Math.min(s.prefixItems.length, length);
      ({ next: i, stop } = this.items(
        instance,
        i,
        end,
        s.prefixItems,
        recursiveAnchor,
        at,
        evaluated,
        errors,
        "prefixItems",
        "Items did not match schema.",
        true,
      ));
    }
    if (s.items !== undefined) {
      const end = Array.isArray(s.items) ? Math.min(s.items.length, length) : length;
      ({ next: i, stop } = this.items(
        instance,
        i,
        end,
        s.items,
        recursiveAnchor,
        at,
        evaluated,
        errors,
        "items",
        "Items did not match schema.",
        true,
      ));
      if (!stop && s.additionalItems !== undefined) {
        ({ next: i, stop } = this.items(
          instance,
          i,
          length,
          s.additionalItems,
          recursiveAnchor,
          at,
          evaluated,
          errors,
          "additionalItems",
          "Items did not match additional items schema.",
          false,
        ));
      }
    }
    const minContains = s.minContains as number | undefined;
    const maxContains = s.maxContains as number | undefined;
    if (s.contains !== undefined) {
      if (length === 0 && minContains === undefined) {
        this.fail(
          errors,
          at,
          "contains",
          "Array is empty. It must contain at least one item matching the schema.",
        );
      } else if (minContains !== undefined && length < minContains) {
        this.fail(
          errors,
          at,
          "minContains",
          `Array has less items (${length}) than minContains (${minContains}).`,
        );
      } else {
        const from = errors.length;
        let contained = 0;
        for (let j = 0; j < length; j++) {
          const result = this.validate(
            instance[j],
            s.contains,
            recursiveAnchor,
            `${at}/${j}`,
            this.child(null),
          );
          if (result.valid) {
            this.mark(evaluated, j);
            contained++;
          } else this.append(errors, result.errors);
        }
        if (contained >= (minContains || 0)) errors.length = from;
        if (minContains === undefined && contained === 0) {
          this.spend(1);
          errors.splice(from, 0, {
            instanceLocation: at,
            keyword: "contains",
            error: "Array does not contain item matching schema.",
          });
        } else if (minContains !== undefined && contained < minContains) {
          this.fail(
            errors,
            at,
            "minContains",
            `Array must contain at least ${minContains} items matching schema. Only ${contained} items were found.`,
          );
        } else if (maxContains !== undefined && contained > maxContains) {
          this.fail(
            errors,
            at,
            "maxContains",
            `Array may contain at most ${maxContains} items matching schema. ${contained} items were found.`,
          );
        }
      }
    }
    if (!stop && s.unevaluatedItems !== undefined) {
      for (; i < length; i++) {
        if (this.seen(evaluated, i)) continue;
        const result = this.validate(
          instance[i],
          s.unevaluatedItems,
          recursiveAnchor,
          `${at}/${i}`,
          this.child(null),
        );
        this.mark(evaluated, i);
        if (!result.valid) {
          this.fail(errors, at, "unevaluatedItems", "Items did not match unevaluated items schema.");
          this.append(errors, result.errors);
        }
      }
    }
    if (s.uniqueItems === true) this.unique(instance, at, errors);
  }

  /** The first item that has a twin, and its first twin: what a pairwise scan reports, in linear time. */
  private unique(instance: unknown[], instanceLocation: string, errors: ValidationUnit[]): void {
    const seen = new Map<string, number[]>();
    const texts: string[] = [];
    for (let index = 0; index < instance.length; index++) {
      const text = this.canonical(instance[index]);
      texts.push(text);
      const list = seen.get(text);
      if (list === undefined) seen.set(text, [index]);
      else list.push(index);
    }
    for (let j = 0; j < texts.length; j++) {
      const twins = seen.get(texts[j] as string) as number[];
      if (twins.length < 2) continue;
      const k = twins[0] === j ? (twins[1] as number) : (twins[0] as number);
      this.fail(errors, instanceLocation, "uniqueItems", `Duplicate items at indexes ${j} and ${k}.`);
      return;
    }
  }

  private number(instance: number, s: Schema, at: string, errors: ValidationUnit[]): void {
    const fail = (keyword: string, error: string) => this.fail(errors, at, keyword, error);
    const minimum = s.minimum as number | undefined;
    const maximum = s.maximum as number | undefined;
    const exclusiveMinimum = s.exclusiveMinimum as number | boolean | undefined;
    const exclusiveMaximum = s.exclusiveMaximum as number | boolean | undefined;
    if (this.draft === "4") {
      if (minimum !== undefined && ((exclusiveMinimum === true && instance <= minimum) || instance < minimum))
        fail("minimum", `${instance} is less than ${exclusiveMinimum ? "or equal to " : ""} ${minimum}.`);
      if (maximum !== undefined && ((exclusiveMaximum === true && instance >= maximum) || instance > maximum))
        fail("maximum", `${instance} is greater than ${exclusiveMaximum ? "or equal to " : ""} ${maximum}.`);
    } else {
      if (minimum !== undefined && instance < minimum)
        fail("minimum", `${instance} is less than ${minimum}.`);
      if (maximum !== undefined && instance > maximum)
        fail("maximum", `${instance} is greater than ${maximum}.`);
      if (typeof exclusiveMinimum === "number" && instance <= exclusiveMinimum)
        fail("exclusiveMinimum", `${instance} is less than ${exclusiveMinimum}.`);
      if (typeof exclusiveMaximum === "number" && instance >= exclusiveMaximum)
        fail("exclusiveMaximum", `${instance} is greater than or equal to ${exclusiveMaximum}.`);
    }
    const multipleOf = s.multipleOf;
    if (typeof multipleOf === "number" && !isMultipleOf(instance, multipleOf))
      fail("multipleOf", `${instance} is not a multiple of ${multipleOf}.`);
  }

  private string(instance: string, s: Schema, at: string, errors: ValidationUnit[]): void {
    const fail = (keyword: string, error: string) => this.fail(errors, at, keyword, error);
    const minLength = s.minLength as number | undefined;
    const maxLength = s.maxLength as number | undefined;
    let length = 0;
    if (minLength !== undefined || maxLength !== undefined) {
      this.spend(instance.length);
      length = ucs2length(instance);
    }
    if (minLength !== undefined && length < minLength)
      fail("minLength", `String is too short (${length} < ${minLength}).`);
    if (maxLength !== undefined && length > maxLength)
      fail("maxLength", `String is too long (${length} > ${maxLength}).`);
    if (s.pattern !== undefined && !this.test(s.pattern, instance))
      fail("pattern", "String does not match pattern.");
    const name = s.format;
    if (typeof name === "string" && name !== "url" && hasOwn(formats, name)) {
      this.spend(instance.length);
      const check = (formats as Record<string, (value: string) => boolean>)[name] as (
        value: string,
      ) => boolean;
      if (!check(instance)) fail("format", `String does not match format "${name}".`);
    }
  }
}

const UNTRACKED = new Evaluated();

/** `JSON.stringify(value)`, stopped once it passes `limit` characters (then ending in "…"). */
function preview(value: unknown, limit: number): string {
  let text = "";
  const write = (node: unknown): boolean => {
    if (text.length > limit) return false;
    if (Array.isArray(node)) {
      text += "[";
      for (let index = 0; index < node.length; index++) {
        if (index > 0) text += ",";
        if (!write(node[index])) return false;
      }
      text += "]";
    } else if (isRecord(node)) {
      text += "{";
      let first = true;
      for (const key in node) {
        text += `${first ? "" : ","}${JSON.stringify(key.slice(0, limit))}:`;
        first = false;
        if (!write(node[key])) return false;
      }
      text += "}";
    } else {
      text +=
        typeof node === "string"
          ? JSON.stringify(node.slice(0, limit + 1))
          : (JSON.stringify(node) ?? "null");
    }
    return text.length <= limit;
  };
  return write(value) ? text : `${text.slice(0, limit)}…`;
}

type Result = { valid: boolean; errors: ValidationUnit[] };

const VALID: Result = Object.freeze({ valid: true, errors: [] }) as unknown as Result;

function at(instanceLocation: string, key: string): string {
  return `${instanceLocation}/${encodePointer(key)}`;
}

function typeOf(instance: unknown): "boolean" | "number" | "string" | "null" | "array" | "object" {
  switch (typeof instance) {
    case "boolean":
    case "number":
    case "string":
      return typeof instance as "boolean" | "number" | "string";
    case "object":
      return instance === null ? "null" : Array.isArray(instance) ? "array" : "object";
    default:
      throw new Error(`Instances of "${typeof instance}" type are not supported.`);
  }
}

function decimalInteger(value: number): [bigint, number] {
  const [coefficient = "0", exponent = "0"] = Math.abs(value).toString().split("e");
  const point = coefficient.indexOf(".");
  const fractionLength = point === -1 ? 0 : coefficient.length - point - 1;
  return [BigInt(coefficient.replace(".", "")), Number(exponent) - fractionLength];
}

function isMultipleOf(instance: number, divisor: number): boolean {
  if (!Number.isFinite(instance) || !Number.isFinite(divisor) || divisor <= 0) return false;
  const [instanceCoefficient, instanceExponent] = decimalInteger(instance);
  const [divisorCoefficient, divisorExponent] = decimalInteger(divisor);
  const difference = instanceExponent - divisorExponent;
  if (difference >= 0) return (instanceCoefficient * 10n ** BigInt(difference)) % divisorCoefficient === 0n;
  return instanceCoefficient % (divisorCoefficient * 10n ** BigInt(-difference)) === 0n;
}

/** The combinators, in the order they are checked (and their errors reported). */
const COMBINATORS = ["anyOf", "allOf", "oneOf"] as const;

/** Whether a combinator holds for `matches` of its `count` subschemas, and its error when it does not. */
function combinatorVerdict(
  keyword: (typeof COMBINATORS)[number],
  matches: number,
  count: number,
): [boolean, string] {
  if (keyword === "anyOf") return [matches > 0, "Instance does not match any subschemas."];
  if (keyword === "allOf") return [matches === count, "Instance does not match every subschema."];
  return [matches === 1, `Instance does not match exactly one subschema (${matches} matches).`];
}
