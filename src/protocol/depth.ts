/**
 * How deep server JSON may nest, in one place (DESIGN decision 17: every depth a server controls has a documented
 * limit). `JSON.parse` takes any depth, but every recursive walk after it does not: the `Mcp-Param` mirror, the
 * input ledger's fingerprints and comparisons, `JSON.stringify`, a host's schema converter. A `tools/list` entry
 * nested a few thousand levels deep overflowed the stack in `listTools()` and lost every tool.
 * Each place that reads server data checks it here once, so the walks after it never recurse past this bound.
 */

/**
 * Objects and arrays nested deeper than this are refused: far beyond any honest schema, result, input request or
 * `_meta` (a JSON Schema rarely passes 20), and far below what recursive code can take.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Whether `value` nests objects and arrays more than `limit` levels deep (`{}` is one level, `{ "a": [] }` two).
 * Stops at the first path past the limit, so its own recursion is bounded by the limit too. Allocates nothing.
 */
export function nestedDeeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  return typeof value === "object" && value !== null && deeper(value, limit - 1);
}

/** `node` is an object at the current level; `room` is how many levels may still open below it. */
function deeper(node: object, room: number): boolean {
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index++) {
      const child: unknown = node[index];
      if (typeof child === "object" && child !== null && (room === 0 || deeper(child, room - 1))) return true;
    }
    return false;
  }
  const record = node as Record<string, unknown>;
  for (const key in record) {
    const child = record[key];
    if (typeof child === "object" && child !== null && (room === 0 || deeper(child, room - 1))) return true;
  }
  return false;
}

/** The sentence a refusal says, the same everywhere. */
export function tooDeep(limit: number = MAX_JSON_DEPTH): string {
  return `nests objects or arrays deeper than ${limit} levels`;
}
