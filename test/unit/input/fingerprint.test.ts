import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, fingerprint } from "../../../src/input/fingerprint.js";

/** The same object with its keys inserted in reverse order, at every level. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .reverse()
      .map(([key, inner]) => [key, reversedKeys(inner)]),
  );
}

describe("request fingerprints", () => {
  it("writes keys in sorted order at every level", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: "x" } })).toBe(
      '{"a":{"c":"x","d":[3,{"e":2,"f":1}]},"b":1}',
    );
  });

  it("leaves out undefined members, as JSON does", () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
  });

  it("gives the same fingerprint whatever the key order", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(fingerprint(reversedKeys(value))).toBe(fingerprint(value));
      }),
    );
  });

  it("tells different requests apart", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (left, right) => {
        fc.pre(canonicalJson(left) !== canonicalJson(right));
        expect(fingerprint(left)).not.toBe(fingerprint(right));
      }),
    );
    expect(fingerprint({ message: "Delete a.txt?" })).not.toBe(fingerprint({ message: "Delete b.txt?" }));
  });

  it("keeps a fingerprint short however large the request", () => {
    const conversation = {
      messages: Array.from({ length: 2000 }, (_, index) => ({ text: `message ${index}` })),
    };
    expect(fingerprint(conversation).length).toBeLessThan(32);
  });

  it("refuses absurdly deep nesting instead of overflowing the stack", () => {
    let deep: unknown = 1;
    for (let level = 0; level < 1000; level++) deep = [deep];
    expect(() => fingerprint(deep)).toThrow(RangeError);
  });
});
