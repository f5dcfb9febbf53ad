/**
 * Tool arguments mirrored into HTTP headers (2026-07-28, "custom headers from tool parameters"). A tool's
 * `inputSchema` may mark a property with `x-mcp-header: "Region"`; over Streamable HTTP a `tools/call` then
 * carries `Mcp-Param-Region: <the argument's value>` so gateways can route without reading the body.
 *
 * The rules a client must hold a tool to: the name is a non-empty RFC 9110 token, unique ignoring case within
 * the schema; it sits only on properties reachable from the root through `properties` alone (never under
 * `items`, `anyOf`, `$ref`, …); and only on string, integer or boolean properties (`number` is not allowed).
 * A tool that breaks a rule is dropped from `tools/list` with a warning, so one bad tool cannot block the rest.
 */
import { encodeHeaderValue } from "./headers.js";
import { MAX_JSON_DEPTH, nestedDeeperThan, tooDeep } from "./depth.js";

export const PARAM_HEADER_PREFIX = "Mcp-Param-";
const ANNOTATION = "x-mcp-header";
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVES: ReadonlySet<string> = new Set(["string", "integer", "boolean"]);

/** One mirrored argument: where it sits in `arguments`, and the header it goes to. */
export interface ParamHeader {
  /** The name after `Mcp-Param-`, as the schema spells it. */
  name: string;
  /** Property names from the root of `arguments` down to the value. */
  path: readonly string[];
}

export type ParamHeaderScan = { ok: true; headers: readonly ParamHeader[] } | { ok: false; reason: string };

/** Finds a schema's `x-mcp-header` declarations, or the first rule one of them breaks. */
export function scanParamHeaders(inputSchema: unknown): ParamHeaderScan {
  // The walk below recurses once per level: bounded first (decision 17; a RangeError there lost every tool).
  if (nestedDeeperThan(inputSchema, MAX_JSON_DEPTH)) return { ok: false, reason: `inputSchema ${tooDeep()}` };
  const headers: ParamHeader[] = [];
  const seen = new Map<string, string>();
  const problem = visit(inputSchema, [], true, headers, seen);
  return problem === undefined ? { ok: true, headers } : { ok: false, reason: problem };
}

function visit(
  schema: unknown,
  path: string[],
  reachable: boolean,
  found: ParamHeader[],
  seen: Map<string, string>,
): string | undefined {
  if (Array.isArray(schema)) {
    for (const item of schema) {
      const problem = visit(item, path, false, found, seen);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (!isRecord(schema)) return undefined;
  if (ANNOTATION in schema) {
    const problem = declaration(schema, path, reachable, found, seen);
    if (problem !== undefined) return problem;
  }
  for (const [key, child] of Object.entries(schema)) {
    if (key === ANNOTATION) continue;
    if (key === "properties" && isRecord(child)) {
      for (const [property, sub] of Object.entries(child)) {
        const problem = visit(sub, [...path, property], reachable, found, seen);
        if (problem !== undefined) return problem;
      }
    } else if (typeof child === "object" && child !== null) {
      // Anything else (items, anyOf, $defs, if/then, …) is not statically reachable from `arguments`.
      const problem = visit(child, path, false, found, seen);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

function declaration(
  schema: Record<string, unknown>,
  path: string[],
  reachable: boolean,
  found: ParamHeader[],
  seen: Map<string, string>,
): string | undefined {
  const where = path.length === 0 ? "the schema root" : `property "${path.join(".")}"`;
  const name = schema[ANNOTATION];
  if (!reachable || path.length === 0) {
    return `${ANNOTATION} on ${where} is not reachable through "properties" alone`;
  }
  if (typeof name !== "string" || !TOKEN.test(name)) {
    return `${ANNOTATION} on ${where} is not a valid header name token`;
  }
  if (!isPrimitive(schema.type)) {
    return `${ANNOTATION} "${name}" is on a property that is not a string, integer or boolean`;
  }
  const lower = name.toLowerCase();
  const earlier = seen.get(lower);
  if (earlier !== undefined) return `${ANNOTATION} "${name}" repeats "${earlier}" (names ignore case)`;
  seen.set(lower, name);
  found.push({ name, path: [...path] });
  return undefined;
}

/** `"string"`, or `["integer", "null"]`: exactly one allowed primitive, optionally nullable. */
function isPrimitive(type: unknown): boolean {
  if (typeof type === "string") return PRIMITIVES.has(type);
  if (!Array.isArray(type)) return false;
  const concrete = type.filter((entry) => entry !== "null");
  return concrete.length === 1 && typeof concrete[0] === "string" && PRIMITIVES.has(concrete[0]);
}

/**
 * The `Mcp-Param-*` headers for one call's arguments. A null, absent or non-primitive value sends no header
 * (the server checks the body against its own schema); so does an integer outside JavaScript's safe range.
 */
export function paramHeaderValues(
  declared: readonly ParamHeader[],
  args: Readonly<Record<string, unknown>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, path } of declared) {
    const text = headerText(valueAt(args, path));
    if (text !== undefined) out[`${PARAM_HEADER_PREFIX}${name}`] = encodeHeaderValue(text);
  }
  return out;
}

function valueAt(args: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let value: unknown = args;
  for (const key of path) {
    if (!isRecord(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

function headerText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
