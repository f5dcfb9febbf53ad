/**
 * Every JSON example of the Tasks extension spec and the requestor checklist (fixtures in
 * test/fixtures/spec/) must be accepted by both validators of both schema versions.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SPEC_FIXTURES, type MessagePart } from "../../fixtures/spec/catalog.js";
import { VERSIONS, repoPath, validatorsFor } from "./validators.js";

function loadFixture(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(repoPath(`test/fixtures/spec/${file}`), "utf8"));
}

function partOf(message: Record<string, unknown>, part: MessagePart): unknown {
  if (part === "message") return message;
  expect(message, `the fixture has no "${part}"`).toHaveProperty(part);
  return message[part];
}

describe.each(VERSIONS)("schema %s accepts the spec's examples", (version) => {
  const validators = validatorsFor(version);
  describe.each(SPEC_FIXTURES)("$file ($source)", ({ file, checks }) => {
    const message = loadFixture(file);
    it.each(validators.flatMap((validator) => checks.map((check) => ({ validator, ...check }))))(
      "$validator.name: $part is a valid $def",
      ({ validator, part, def }) => {
        const value = partOf(message, part);
        expect(validator.accepts(def, value), validator.explain(def, value)).toBe(true);
      },
    );
  });
});
