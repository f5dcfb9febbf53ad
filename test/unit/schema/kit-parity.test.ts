/**
 * The client's validation kit (src/schema/kit.ts) against zod/mini, whose API and behaviour it keeps. Every
 * validator of src/schema/generated/validators.ts is built twice from the same generated text, once on each
 * library, and for the same value both must give the same verdict, the same output and the same issues (code,
 * path, expected, values, and a union's inner issues), in the same order. Not the message: zod's depends on
 * whether some other import loaded its English locale (full Zod does, as in this process); the kit's is always
 * zod/mini's own "Invalid input", and src/protocol/issues.ts words every issue the client reports from the
 * fields compared here.
 *
 * The values: the spec's example messages and their parts, each changed at one place (a key removed, a value
 * replaced by another JSON value or by one chosen to sit on a rule's edge), and JSON values of any shape.
 */
import { readFileSync, readdirSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as mini from "zod/mini";
import * as kit from "../../../src/schema/kit.js";
import { repoPath } from "./validators.js";

type Built = Record<
  string,
  { safeParse(value: unknown): { success: boolean; data?: unknown; error?: unknown } }
>;

/** `createValidators` of the generated file, run on `z`: the same text for both libraries. */
function buildOn(z: unknown): Built {
  const source = readFileSync(repoPath("src/schema/generated/validators.ts"), "utf8");
  const start = source.indexOf("export function createValidators() {");
  const end = source.lastIndexOf("export type Validators");
  expect(start, "the generated file's layout changed: update this test").toBeGreaterThan(0);
  const body = source.slice(source.indexOf("{", start) + 1, source.lastIndexOf("}", end));
  return new Function("z", body)(z) as Built;
}

const onKit = buildOn(kit);
const onMini = buildOn(mini);

interface Seen {
  code: unknown;
  path: unknown;
  expected: unknown;
  values: unknown;
  errors: Seen[][] | undefined;
}

function seen(issue: Record<string, unknown>): Seen {
  return {
    code: issue.code,
    path: issue.path,
    expected: issue.expected,
    values: issue.values,
    errors: (issue.errors as Record<string, unknown>[][] | undefined)?.map((list) => list.map(seen)),
  };
}

/** Whether every object in `value` has an ordinary prototype (a copied `__proto__` key would change one). */
function ordinary(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== Array.prototype) return false;
  return Object.values(value).every(ordinary);
}

/** What a caller can read of one parse: the verdict, and the output or the issues. */
function outcome(parsed: { success: boolean; data?: unknown; error?: unknown }): unknown {
  if (parsed.success) return { success: true, data: parsed.data, ordinary: ordinary(parsed.data) };
  const issues = (parsed.error as { issues: Record<string, unknown>[] }).issues;
  return { success: false, issues: issues.map(seen) };
}

function expectSame(value: unknown, kitBuilt = onKit, miniBuilt = onMini): void {
  for (const name of Object.keys(kitBuilt)) {
    const expected = outcome((miniBuilt[name] as Built[string]).safeParse(value));
    const actual = outcome((kitBuilt[name] as Built[string]).safeParse(value));
    expect(actual, `${name} on ${JSON.stringify(value)}`).toStrictEqual(expected);
  }
}

/** Every example message of the spec, and its params, result and error. */
const SEEDS: unknown[] = readdirSync(repoPath("test/fixtures/spec"))
  .filter((file) => file.endsWith(".json"))
  .flatMap((file) => {
    const message = JSON.parse(readFileSync(repoPath(`test/fixtures/spec/${file}`), "utf8")) as Record<
      string,
      unknown
    >;
    return [message, message.params, message.result, message.error].filter((part) => part !== undefined);
  });

/** Values on the edge of some rule: each literal's neighbours, integers past the safe range, wrong kinds. */
const EDGES: unknown[] = [
  null,
  "",
  0,
  -1,
  1.5,
  2 ** 53,
  -(2 ** 53),
  Number.MAX_SAFE_INTEGER,
  1e308,
  true,
  [],
  {},
  [1, "a"],
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
  "complete",
  "task",
  "2.0",
  "text",
  "user",
  "assistant",
  -32021,
  { type: "text", text: "x" },
  JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'),
];

type Path = (string | number)[];

/** Every place in `value` (depth-first, at most 8 deep). */
function placesIn(value: unknown, at: Path = [], found: Path[] = []): Path[] {
  found.push(at);
  if (at.length < 8 && typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) {
      placesIn(
        (value as Record<string, unknown>)[key],
        [...at, Array.isArray(value) ? Number(key) : key],
        found,
      );
    }
  }
  return found;
}

const REMOVE = Symbol("remove");

/** `seed` with the value at `at` replaced by `value`, or removed. */
function changed(seed: unknown, at: Path, value: unknown): unknown {
  if (at.length === 0) return value === REMOVE ? undefined : value;
  const copy = structuredClone(seed) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of at.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = at[at.length - 1] as string | number;
  if (value === REMOVE) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else {
    parent[last] = value;
  }
  return copy;
}

const changedSeed = fc
  .constantFrom(...SEEDS)
  .chain((seed) =>
    fc.tuple(
      fc.constant(seed),
      fc.constantFrom(...placesIn(seed)),
      fc.oneof(fc.constant(REMOVE), fc.constantFrom(...EDGES), fc.jsonValue({ maxDepth: 3 })),
    ),
  )
  .map(([seed, at, value]) => changed(seed, at, value));

/**
 * Each constructor on its own, including the cases the generated validators do not reach today: a required key
 * whose schema takes undefined, a union whose one option failed only on an integer's range, a present key that
 * holds undefined.
 */
function small(z: typeof kit): Built {
  return {
    required: z.looseObject({ a: z.unknown() }),
    optional: z.looseObject({ o: z.optional(z.string()), n: z.nullable(z.optional(z.int())) }),
    ranged: z.union([z.looseObject({ n: z.int() }), z.looseObject({ s: z.string() })]),
    rangedAlone: z.union([z.int(), z.string()]),
    single: z.union([z.int()]),
    tagged: z.discriminatedUnion("k", [
      z.looseObject({ k: z.literal("a"), x: z.int() }),
      z.looseObject({ k: z.literal("b") }),
    ]),
    both: z.intersection(z.looseObject({ a: z.int() }), z.looseObject({ b: z.string() })),
    record: z.record(z.string(), z.int()),
    list: z.array(z.nullable(z.int())),
    extended: z.extend(z.looseObject({ a: z.string(), c: z.boolean() }), {
      a: z.int(),
      b: z.optional(z.boolean()),
    }),
  };
}

const SMALL_VALUES: unknown[] = [
  ...EDGES,
  { a: 1 },
  { a: undefined },
  { o: undefined, n: null },
  { o: 1, n: 1.5 },
  { n: 2 ** 53 },
  { n: -(2 ** 53), s: 1 },
  { s: "x" },
  { k: "a", x: 1.5 },
  { k: "a", x: 1 },
  { k: "b", y: [] },
  { k: "c" },
  { a: 1, b: "x", c: true },
  { a: "1", b: 2 },
  { a: 1, b: "x", __proto__: null },
  [null, 1, 1.5, "x"],
  Object.assign(Object.create(null) as object, { a: 1 }),
  { constructor: 1, a: 2 },
];

describe("the validation kit gives what zod/mini gives", () => {
  it("for each constructor on its own", () => {
    const kitBuilt = small(kit);
    const miniBuilt = small(mini as unknown as typeof kit);
    for (const value of SMALL_VALUES) expectSame(value, kitBuilt, miniBuilt);
  });

  it("on every spec example as it is", () => {
    for (const seed of SEEDS) expectSame(seed);
  });

  it("on every edge value", () => {
    for (const value of EDGES) expectSame(value);
  });

  it("on spec examples changed at one place", () => {
    fc.assert(
      fc.property(changedSeed, (value) => expectSame(value)),
      { numRuns: 600 },
    );
  });

  it("on JSON values of any shape", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => expectSame(value)),
      { numRuns: 300 },
    );
  });
});
