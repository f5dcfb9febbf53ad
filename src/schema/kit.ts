/**
 * The client's validation kit: the part of zod/mini's API that the generated validators
 * (./generated/validators.ts) and the codec are written in — fifteen constructors and `safeParse` — without
 * zod/mini itself, which weighed 8.7 KB of the main entry's 60 KB gzip budget in a browser bundle (this file
 * weighs about 1 KB). Not another package: valibot, the small one, would still cost 2.9 KB gzip for these shapes
 * and brings another API and issue model; this one keeps the generated code, the codec and the issue words as
 * they were, and the test below holds it to zod/mini itself.
 *
 * Owner of: what a client validator accepts, what it hands back and what it reports. For every value JSON can
 * carry these are zod/mini's (4.x core): the same verdict, the same output (a copy of each object and array,
 * `__proto__` keys left out), the same issues (code, path, expected, values; the message is zod/mini's
 * own "Invalid input") in the same order.
 * test/unit/schema/kit-parity.test.ts holds every generated validator to that, against zod/mini on the same
 * values. A constructor the generated file comes to use that is not here fails its typecheck. The public
 * `mcp-tasks/schema` entry keeps full Zod; nothing here is exported from the package.
 *
 * A schema runs on a value and pushes its issues (paths relative to itself) onto the list it is given; a parent
 * prefixes its key or index to the issues its child added. Unions give each option a list of its own.
 */

/** One thing wrong with a value, as zod/mini reports it (the fields the client reads, and the union's details). */
export interface Issue {
  code: "invalid_type" | "invalid_value" | "invalid_union" | "too_big" | "too_small";
  path: PropertyKey[];
  message: string;
  expected?: string;
  values?: readonly unknown[];
  errors?: Issue[][];
  [detail: string]: unknown;
}

/** What `safeParse` rejects with: an `Error` whose `issues` say why (zod's error has the same two). */
export class KitError extends Error {
  override readonly name = "ValidationError";
  constructor(readonly issues: Issue[]) {
    super("invalid input");
  }
}

export type SafeParseResult<T> =
  { success: true; data: T; error?: undefined } | { success: false; data?: undefined; error: KitError };

/** "optional": an object may leave the key out (zod's `optin`/`optout`, which are equal for every schema here). */
type Absence = "optional" | undefined;

export interface ZodMiniType<Out = unknown> {
  /** Runs on `value`, adding its issues to `issues`; returns the output. */
  run(value: unknown, issues: Issue[]): Out;
  safeParse(value: unknown): SafeParseResult<Out>;
  /** Whether an object may leave this schema's key out. */
  readonly absence: Absence;
  /** The only values it accepts, when it names them (a literal): what a discriminated union looks up. */
  readonly values?: ReadonlySet<unknown>;
  /** Phantom: the output type, for `output<S>`. */
  readonly _out?: Out;
}

export type output<S> = S extends ZodMiniType<infer Out> ? Out : never;

type Shape = Record<string, ZodMiniType>;
type Optional<T> = ZodMiniType<T | undefined> & { readonly absence: "optional" };
type OptionalKeys<S extends Shape> = {
  [K in keyof S]: S[K] extends { absence: "optional" } ? K : never;
}[keyof S];
type Flat<T> = { [K in keyof T]: T[K] } & {};
type ObjectOut<S extends Shape> = Flat<
  { [K in Exclude<keyof S, OptionalKeys<S>>]: output<S[K]> } & { [K in OptionalKeys<S>]?: output<S[K]> }
> & { [key: string]: unknown };

export interface ZodMiniObject<S extends Shape> extends ZodMiniType<ObjectOut<S>> {
  readonly shape: S;
}

const MESSAGE = "Invalid input";

function schema<Out>(
  run: (value: unknown, issues: Issue[]) => Out,
  absence?: Absence,
  extra?: object,
): ZodMiniType<Out> {
  return {
    run,
    absence,
    ...extra,
    safeParse(value) {
      const issues: Issue[] = [];
      const data = run(value, issues);
      return issues.length === 0 ? { success: true, data } : { success: false, error: new KitError(issues) };
    },
  };
}

function issue(code: Issue["code"], details: Partial<Issue>): Issue {
  return { code, ...details, path: [], message: MESSAGE };
}

const typeIssue = (expected: string): Issue => issue("invalid_type", { expected });

/** Runs `inner` on `value` and puts `key` in front of the path of every issue it added. */
function runAt<Out>(inner: ZodMiniType<Out>, value: unknown, issues: Issue[], key: PropertyKey): Out {
  const before = issues.length;
  const out = inner.run(value, issues);
  for (let i = before; i < issues.length; i++) (issues[i] as Issue).path.unshift(key);
  return out;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const string = (): ZodMiniType<string> =>
  schema((value, issues) => {
    if (typeof value !== "string") issues.push(typeIssue("string"));
    return value as string;
  });

export const boolean = (): ZodMiniType<boolean> =>
  schema((value, issues) => {
    if (typeof value !== "boolean") issues.push(typeIssue("boolean"));
    return value as boolean;
  });

export const unknown = (): ZodMiniType<unknown> => schema((value) => value);

/** A finite number (zod refuses NaN and the infinities). */
export const number = (): ZodMiniType<number> =>
  schema((value, issues) => {
    if (!Number.isFinite(value)) issues.push(typeIssue("number"));
    return value as number;
  });

/** A safe integer: a number first, then whole, then within ±(2^53 - 1), each reported as zod reports it. */
export const int = (): ZodMiniType<number> =>
  schema((value, issues) => {
    if (!Number.isFinite(value)) issues.push(typeIssue("number"));
    else if (!Number.isInteger(value)) issues.push(typeIssue("int"));
    else if (!Number.isSafeInteger(value)) {
      issues.push(
        (value as number) > 0
          ? issue("too_big", { origin: "int", maximum: Number.MAX_SAFE_INTEGER })
          : issue("too_small", { origin: "int", minimum: Number.MIN_SAFE_INTEGER }),
      );
    }
    return value as number;
  });

export function literal<const L extends string | number | boolean | null>(value: L): ZodMiniType<L> {
  const values = new Set<unknown>([value]);
  return schema(
    (input, issues) => {
      if (!values.has(input)) issues.push(issue("invalid_value", { values: [value] }));
      return input as L;
    },
    undefined,
    { values },
  );
}

export const optional = <T>(inner: ZodMiniType<T>): Optional<T> =>
  schema(
    (value, issues) => (value === undefined ? undefined : inner.run(value, issues)),
    "optional",
  ) as Optional<T>;

export const nullable = <T>(inner: ZodMiniType<T>): ZodMiniType<T | null> =>
  schema((value, issues) => (value === null ? null : inner.run(value, issues)), inner.absence);

export const array = <T>(element: ZodMiniType<T>): ZodMiniType<T[]> =>
  schema((value, issues) => {
    if (!Array.isArray(value)) {
      issues.push(typeIssue("array"));
      return value as T[];
    }
    const out: T[] = new Array<T>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = runAt(element, value[i], issues, i);
    return out;
  });

/**
 * A record with string keys: every own enumerable key's value checked (JSON has no other keys). zod also refuses
 * an object made by a class; JSON makes none.
 */
export const record = <V>(
  _key: ZodMiniType<string>,
  values: ZodMiniType<V>,
): ZodMiniType<Record<string, V>> =>
  schema((value, issues) => {
    if (!isObject(value)) {
      issues.push(typeIssue("record"));
      return value as Record<string, V>;
    }
    const out: Record<string, V> = {};
    for (const key of Object.keys(value)) {
      if (key !== "__proto__") out[key] = runAt(values, value[key], issues, key);
    }
    return out;
  });

/**
 * An object with the keys of `shape` checked and every other key kept as it is (zod's `looseObject`). A
 * `__proto__` key of the value is left out of the output: copied, it would set the copy's prototype.
 */
export function looseObject<const S extends Shape>(shape: S): ZodMiniObject<S> {
  const keys = Object.keys(shape);
  const run = (value: unknown, issues: Issue[]): ObjectOut<S> => {
    if (!isObject(value)) {
      issues.push(typeIssue("object"));
      return value as ObjectOut<S>;
    }
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      const inner = shape[key] as ZodMiniType;
      const present = key in value;
      const before = issues.length;
      const result = runAt(inner, value[key], issues, key);
      if (!present) {
        // An absent key adds nothing to the output; a required one that its schema would take as undefined
        // (`unknown`) is reported as missing.
        if (inner.absence !== "optional" && issues.length === before) {
          issues.push({ ...typeIssue("nonoptional"), path: [key] });
        }
      } else {
        out[key] = result;
      }
    }
    for (const key in value) {
      if (key !== "__proto__" && !Object.hasOwn(shape, key)) out[key] = value[key];
    }
    return out as ObjectOut<S>;
  };
  return schema(run, undefined, { shape }) as ZodMiniObject<S>;
}

export const extend = <S extends Shape, E extends Shape>(
  base: ZodMiniObject<S>,
  shape: E,
): ZodMiniObject<Flat<Omit<S, keyof E> & E>> =>
  looseObject({ ...base.shape, ...shape } as Flat<Omit<S, keyof E> & E>);

/**
 * The first option that accepts the value. When none does: the issues of the one option that failed only on an
 * integer's range, if exactly one did (zod lets those issues through: they do not abort); otherwise one
 * `invalid_union` issue with each option's issues. A union of one option is that option.
 */
export function union<const O extends readonly ZodMiniType[]>(options: O): ZodMiniType<output<O[number]>> {
  const absence = options.some((option) => option.absence === "optional") ? "optional" : undefined;
  if (options.length === 1) return options[0] as ZodMiniType<output<O[number]>>;
  return schema((value, issues) => {
    const errors: Issue[][] = [];
    let ranged: { out: unknown; issues: Issue[] } | undefined;
    let rangedCount = 0;
    for (const option of options) {
      const own: Issue[] = [];
      const out = option.run(value, own);
      if (own.length === 0) return out as output<O[number]>;
      if (own.every((found) => found.code === "too_big" || found.code === "too_small")) {
        ranged = { out, issues: own };
        rangedCount++;
      }
      errors.push(own);
    }
    if (rangedCount === 1 && ranged !== undefined) {
      issues.push(...ranged.issues);
      return ranged.out as output<O[number]>;
    }
    issues.push(issue("invalid_union", { errors }));
    return value as output<O[number]>;
  }, absence);
}

/** The option whose `key` literal the value's `key` names, or one issue saying no option does. */
export function discriminatedUnion<const O extends readonly ZodMiniObject<Shape>[]>(
  key: string,
  options: O,
): ZodMiniType<output<O[number]>> {
  const byValue = new Map<unknown, ZodMiniType>();
  for (const option of options) {
    for (const value of option.shape[key]?.values ?? []) byValue.set(value, option);
  }
  return schema((value, issues) => {
    if (!isObject(value)) {
      issues.push(typeIssue("object"));
      return value as output<O[number]>;
    }
    const option = byValue.get(value[key]);
    if (option !== undefined) return option.run(value, issues) as output<O[number]>;
    issues.push({
      ...issue("invalid_union", { errors: [], note: "No matching discriminator" }),
      path: [key],
    });
    return value as output<O[number]>;
  });
}

/** Both schemas' checks on the same value (left's issues first), their two outputs merged. */
export const intersection = <A, B>(left: ZodMiniType<A>, right: ZodMiniType<B>): ZodMiniType<A & B> =>
  schema((value, issues) => {
    const before = issues.length;
    const a = left.run(value, issues);
    const b = right.run(value, issues);
    return (issues.length === before ? merge(a, b) : value) as A & B;
  });

/**
 * Two outputs of the same value, merged as zod merges them. Both sides here copy the one input, so they always
 * agree; a value they did not agree on would be a defect of a schema here, and throws as zod's does.
 */
function merge(a: unknown, b: unknown): unknown {
  if (a === b) return a;
  if (isObject(a) && isObject(b)) {
    const merged: Record<string, unknown> = { ...a, ...b };
    if (Object.hasOwn(merged, "__proto__")) delete merged.__proto__;
    for (const key of Object.keys(a))
      if (key !== "__proto__" && Object.hasOwn(b, key)) merged[key] = merge(a[key], b[key]);
    return merged;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.map((item, i) => merge(item, b[i]));
  throw new Error("Unmergeable intersection");
}
