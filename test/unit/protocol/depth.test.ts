/**
 * The one bound on how deep server JSON may nest (decision 17): 256 levels of objects and arrays, counted as
 * docs/calling-tools.md says (`{}` is one level), checked without recursing past the bound itself, on JSON as
 * `JSON.parse` builds it from a string (which takes any depth).
 */
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../../../src/protocol/depth.js";

/** JSON text nested `levels` deep, alternating objects and arrays, parsed. */
function nested(levels: number): unknown {
  let text = "1";
  for (let level = 0; level < levels; level++) text = level % 2 === 0 ? `[${text}]` : `{"a":${text}}`;
  return JSON.parse(text);
}

describe("nestedDeeperThan", () => {
  it("allows 256 levels and refuses 257", () => {
    expect(MAX_JSON_DEPTH).toBe(256);
    expect(nestedDeeperThan(nested(256))).toBe(false);
    expect(nestedDeeperThan(nested(257))).toBe(true);
  });

  it("counts an object or array as one level, and a scalar as none", () => {
    expect(nestedDeeperThan({}, 1)).toBe(false);
    expect(nestedDeeperThan({ a: [] }, 1)).toBe(true);
    expect(nestedDeeperThan({ a: [] }, 2)).toBe(false);
    expect(nestedDeeperThan([1, "x", null, true], 1)).toBe(false);
    expect(nestedDeeperThan("text", 0)).toBe(false);
    expect(nestedDeeperThan(null, 0)).toBe(false);
  });

  it("finds a deep branch beside shallow ones", () => {
    const value = { a: 1, b: [1, 2, 3], c: { d: nested(300) } };
    expect(nestedDeeperThan(value)).toBe(true);
    expect(nestedDeeperThan({ a: 1, b: [1, 2, 3], c: { d: nested(254) } })).toBe(false);
  });

  it("answers for JSON 100,000 levels deep without overflowing the stack", () => {
    const text = "[".repeat(100_000) + "]".repeat(100_000);
    expect(nestedDeeperThan(JSON.parse(text))).toBe(true);
  });
});
