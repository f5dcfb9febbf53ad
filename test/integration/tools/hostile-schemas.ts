/**
 * Output schemas a server can send to freeze a client that validates without a bound, shared by the tests and the
 * bench (`bench/validation.ts`), which measures the worst the budget allows.
 */

/** A pattern that backtracks catastrophically in a backtracking matcher, and a string that makes it. */
export const BACKTRACKING_PATTERN = "^(a+)+$";
export const BACKTRACKING_STRING = `${"a".repeat(41)}!`;

/** 40 `$defs`, each an `allOf` of two `$ref`s to the previous one: 2^40 visits of any value, in 2.6 KB. */
export function doublingRefs(levels = 40): Record<string, unknown> {
  const $defs: Record<string, unknown> = { d0: { type: "object" } };
  for (let level = 1; level <= levels; level++) {
    const previous = { $ref: `#/$defs/d${level - 1}` };
    $defs[`d${level}`] = { allOf: [previous, previous] };
  }
  return { $defs, $ref: `#/$defs/d${levels}` };
}
