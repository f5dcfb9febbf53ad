/**
 * The one owner of what a server's JSON Schema may hand to the type generator of `mcp-tasks types`. The schemas are
 * the server's and the generated module is code someone commits, compiles and runs, so the rule is an allow-list:
 * - Only the keywords the generator needs to build a type are copied, each only in the shape it expects:
 *   `type` (JSON Schema's seven names), `properties`, `patternProperties`, `additionalProperties`, `required`
 *   (strings), `items`, `prefixItems` (written as the generator's tuple form), `additionalItems`, `allOf`, `anyOf`,
 *   `oneOf`, `enum` and `const` (strings, finite numbers, booleans and null only), `$defs`, `definitions`, `$ref`,
 *   `title`, `description` and `deprecated: true`. Every other keyword is dropped wherever it appears, with all it
 *   contains: the generator's own extensions that paste text into the code (`tsType`, `tsEnumNames`, `extends`),
 *   naming and fetching keywords (`$id`, `$schema`, `$anchor`…), annotations and unknown keywords.
 * - Every schema the generator can reach is cleaned by this same rule: the copied keywords are recursed into, and a
 *   `$ref` is kept only when it is local and names a schema that this cleaning kept (so its target is clean too)
 *   and does not come back to itself through references alone; any other `$ref` is dropped, its schema typed from
 *   what is left (`unknown` when nothing is). Nothing is fetched or read from disk.
 * - Server text that the generator writes into a comment (a description, a `patternProperties` key) has every
 *   comment end (`*` then `/`) broken up and its line terminators made plain newlines or escapes; text that
 *   becomes a key or a literal is written by the generator with `JSON.stringify`, and text that becomes an
 *   identifier (a title, a definition's name) is reduced by it to ASCII letters, digits, `_` and `$`. The module's
 *   last pass (types-module.ts) writes the remaining special characters as escapes.
 */

/** A JSON Schema keyword's value kind, as far as the generator reads it. */
const ONE_SCHEMA = new Set(["additionalProperties", "additionalItems"]);
const SCHEMA_LIST = new Set(["allOf", "anyOf", "oneOf"]);
const SCHEMA_MAP = new Set(["properties", "patternProperties", "$defs", "definitions"]);
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

/** Deeper than this, a schema is typed `unknown`. */
export const MAX_SCHEMA_DEPTH = 64;

/**
 * A copy of a server's schema safe to generate from, placed at `base` (a JSON Pointer URI fragment, `#/…`) in the
 * generator's document: only the allowed keywords, its local references checked and re-rooted there.
 */
export function cleanToolSchema(schema: unknown, base: string): unknown {
  const clean = cleanSchema(schema, 0);
  settleReferences(clean, base);
  return clean;
}

function cleanSchema(schema: unknown, depth: number): unknown {
  if (typeof schema === "boolean") return schema;
  if (!isObject(schema) || depth > MAX_SCHEMA_DEPTH) return {};
  const clean: Record<string, unknown> = {};
  const child = (value: unknown) => cleanSchema(value, depth + 1);
  // 2020-12 tuples: `prefixItems` then `items` for what follows, where the generator reads `items` as a list.
  const tuple = Array.isArray(schema.prefixItems);
  for (const [keyword, value] of Object.entries(schema)) {
    if (SCHEMA_MAP.has(keyword) && isObject(value)) {
      const entries = Object.entries(value).map(([name, member]) => [name, child(member)] as const);
      clean[keyword] = Object.fromEntries(
        keyword === "patternProperties" ? patternEntries(entries) : entries,
      );
    } else if (SCHEMA_LIST.has(keyword) && Array.isArray(value)) {
      clean[keyword] = value.map(child);
    } else if (ONE_SCHEMA.has(keyword) && isSchema(value)) {
      if (keyword !== "additionalItems" || !tuple) clean[keyword] = child(value);
    } else if (keyword === "items" && !tuple) {
      if (isSchema(value)) clean.items = child(value);
      else if (Array.isArray(value)) clean.items = value.map(child); // the tuple form before 2020-12
    } else if (keyword === "prefixItems" && tuple) {
      clean.items = (value as unknown[]).map(child);
      clean.additionalItems = isSchema(schema.items) ? child(schema.items) : true;
    } else if (keyword === "type") {
      const type = typeOf(value);
      if (type !== undefined) clean.type = type;
    } else if (keyword === "required" && Array.isArray(value)) {
      clean.required = value.filter((name) => typeof name === "string");
    } else if (keyword === "enum" && Array.isArray(value) && value.every(isLiteral)) {
      clean.enum = [...value];
    } else if (keyword === "const" && isLiteral(value)) {
      clean.const = value;
    } else if (keyword === "$ref" && typeof value === "string") {
      clean.$ref = value; // checked and re-rooted once the whole schema is cleaned
    } else if (keyword === "title" && typeof value === "string") {
      clean.title = value;
    } else if (keyword === "description" && typeof value === "string") {
      clean.description = commentBlock(value);
    } else if (keyword === "deprecated" && value === true) {
      clean.deprecated = true;
    }
  }
  return clean;
}

/** `type` as the generator reads it: one of JSON Schema's names, or a list of them. */
function typeOf(value: unknown): string | string[] | undefined {
  if (typeof value === "string") return TYPES.has(value) ? value : undefined;
  if (!Array.isArray(value)) return undefined;
  const names = [
    ...new Set(value.filter((name): name is string => typeof name === "string" && TYPES.has(name))),
  ];
  return names.length > 0 ? names : undefined;
}

/** The values the generator writes as literal types, with `JSON.stringify`. */
function isLiteral(value: unknown): boolean {
  return (
    value === null ||
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

/**
 * `patternProperties` keyed by comment text: the generator quotes each pattern in a comment (escaping only the first
 * comment end), and uses it for nothing else, since TypeScript cannot constrain keys by a pattern.
 */
function patternEntries(
  entries: ReadonlyArray<readonly [string, unknown]>,
): Array<readonly [string, unknown]> {
  const used = new Set<string>();
  const next = new Map<string, number>(); // the next number to try for a text, so that each key costs O(1)
  return entries.map(([pattern, schema]) => {
    const text = patternText(pattern);
    let key = text;
    for (let n = next.get(text) ?? 2; used.has(key); n += 1) {
      key = `${text} (${n})`;
      next.set(text, n + 1);
    }
    used.add(key);
    return [key, schema] as const;
  });
}

/** A pattern quoted in a comment: its line terminators and comment ends written as escapes, on one line. */
function patternText(pattern: string): string {
  return pattern
    .replace(/\r/g, "\\r")
    .replace(/\n/g, "\\n")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")
    .replace(/\*\//g, "*\\/");
}

/**
 * Server text for a multi-line comment: no comment end, CR and CRLF plain newlines, the line and paragraph
 * separators written as escapes.
 */
export function commentBlock(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")
    .replace(/\*\//g, "* /");
}

/** Server text inside a one-line comment: no comment end, whitespace runs one space, at most 120 characters. */
export function commentLine(text: string): string {
  const line = [...text.replace(/\s+/g, " ").replace(/\*\//g, "* /")];
  return line.length > 120 ? `${line.slice(0, 120).join("")}…` : line.join("");
}

/**
 * Every `$ref` in `root` (a cleaned schema) kept, re-rooted at `base`, only when it is local, names a schema in
 * `root` and does not lead back to itself through other references alone; otherwise dropped. A kept `$ref` next to
 * subschemas of its own moves into `allOf` (what it means since 2019-09), so that no reference passes through a
 * schema that is itself a reference (the generator's resolver cannot follow those).
 */
function settleReferences(root: unknown, base: string): void {
  const references = new Map<Record<string, unknown>, { tokens: string[]; target: unknown } | undefined>();
  eachSchema(root, (node) => {
    if (typeof node.$ref !== "string") return;
    const tokens = pointerTokens(node.$ref);
    const target = tokens === undefined ? undefined : schemaAt(root, tokens);
    references.set(node, tokens === undefined || target === undefined ? undefined : { tokens, target });
  });
  for (const [node, reference] of references) {
    if (reference === undefined || leadsBack(node, references)) {
      delete node.$ref;
      references.set(node, undefined);
      continue;
    }
    const $ref = base + reference.tokens.map((token) => `/${pointerToken(token)}`).join("");
    if (Object.keys(node).some(holdsSchemas)) {
      delete node.$ref;
      node.allOf = [...(Array.isArray(node.allOf) ? node.allOf : []), { $ref }];
    } else {
      node.$ref = $ref;
    }
  }
}

/** Whether following references from `start`, through schemas that are references, comes back to `start`. */
function leadsBack(
  start: Record<string, unknown>,
  references: ReadonlyMap<unknown, { target: unknown } | undefined>,
): boolean {
  const seen = new Set<unknown>();
  for (let next = references.get(start)?.target; references.get(next) !== undefined;) {
    if (next === start) return true;
    if (seen.has(next)) return false; // a loop that `start` only leads into: its own members break it
    seen.add(next);
    next = references.get(next)?.target;
  }
  return false;
}

/** Calls `visit` on `schema` and every schema inside it, through the keywords the cleaning keeps. */
function eachSchema(schema: unknown, visit: (node: Record<string, unknown>) => void): void {
  if (!isObject(schema)) return;
  visit(schema);
  for (const [keyword, value] of Object.entries(schema)) {
    if (SCHEMA_MAP.has(keyword) && isObject(value)) {
      for (const member of Object.values(value)) eachSchema(member, visit);
    } else if (Array.isArray(value) && (SCHEMA_LIST.has(keyword) || keyword === "items")) {
      for (const member of value) eachSchema(member, visit);
    } else if (ONE_SCHEMA.has(keyword) || keyword === "items") {
      eachSchema(value, visit);
    }
  }
}

function holdsSchemas(keyword: string): boolean {
  return (
    SCHEMA_MAP.has(keyword) || SCHEMA_LIST.has(keyword) || ONE_SCHEMA.has(keyword) || keyword === "items"
  );
}

/** The tokens of a same-document JSON Pointer reference (`#` or `#/…`); undefined for anything else. */
function pointerTokens(reference: string): string[] | undefined {
  if (reference === "#") return [];
  if (!reference.startsWith("#/")) return undefined;
  try {
    return reference
      .slice(2)
      .split("/")
      .map((token) => decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~"));
  } catch {
    return undefined; // a malformed percent-escape
  }
}

/**
 * The schema `tokens` lead to from `root` through schema-holding keywords only, or undefined: a reference into an
 * enum, a `required` list, a map of properties itself or anything the cleaning dropped names no schema the
 * generator may read.
 */
function schemaAt(root: unknown, tokens: readonly string[]): unknown {
  let node = root;
  for (let index = 0; index < tokens.length;) {
    if (!isObject(node)) return undefined;
    const keyword = tokens[index] as string;
    const value = own(node, keyword);
    if (
      SCHEMA_MAP.has(keyword) ||
      (Array.isArray(value) && (SCHEMA_LIST.has(keyword) || keyword === "items"))
    ) {
      const name = tokens[index + 1];
      if (name === undefined) return undefined;
      if (Array.isArray(value)) {
        if (!/^(0|[1-9][0-9]*)$/.test(name) || Number(name) >= value.length) return undefined;
        node = value[Number(name)];
      } else {
        if (!isObject(value)) return undefined;
        node = own(value, name);
      }
      index += 2;
    } else if (ONE_SCHEMA.has(keyword) || keyword === "items") {
      node = value;
      index += 1;
    } else {
      return undefined;
    }
  }
  return isSchema(node) ? node : undefined;
}

/** A name as one JSON Pointer token inside a URI fragment. */
export function pointerToken(name: string): string {
  return encodeURIComponent(name.replace(/~/g, "~0").replace(/\//g, "~1"));
}

function own(object: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

function isSchema(value: unknown): boolean {
  return typeof value === "boolean" || isObject(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
