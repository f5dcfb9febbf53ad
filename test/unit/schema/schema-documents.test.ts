/**
 * The shape of what `schema/` publishes: one JSON Schema definition per exported type with the right
 * `$id`, and the `mcp-tasks/schema` entry point exposing 2026-07-28 flat and every version as a namespace.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { exportedTypeNames } from "../../../scripts/schema-lib/generate.js";
import * as schemaEntry from "mcp-tasks/schema";
import { VERSIONS, readJsonSchema, repoPath, zodSchemaFor } from "./validators.js";

describe.each(VERSIONS)("schema/%s/schema.json", (version) => {
  const document = readJsonSchema(version);
  const typeNames = exportedTypeNames(readFileSync(repoPath(`schema/${version}/schema.ts`), "utf8"));

  it("has the version's $id", () => {
    expect(document.$id).toBe(`https://modelcontextprotocol.io/ext-tasks/${version}/schema.json`);
  });

  it("has exactly one $defs entry per exported type of schema.ts, each with a Zod schema", () => {
    expect(Object.keys(document.$defs).sort()).toEqual([...typeNames].sort());
    for (const name of typeNames) expect(() => zodSchemaFor(version, name)).not.toThrow();
  });

  it("never closes an object to unknown keys", () => {
    expect(JSON.stringify(document)).not.toContain('"additionalProperties":false');
  });
});

describe("the mcp-tasks/schema entry point", () => {
  it("exports the 2026-07-28 schemas flat", () => {
    expect(schemaEntry.LATEST_SCHEMA_VERSION).toBe("2026-07-28");
    expect(schemaEntry.getTaskResultSchema).toBe(schemaEntry.v2026_07_28.getTaskResultSchema);
    expect(schemaEntry.createTaskResultSchema).toBe(schemaEntry.v2026_07_28.createTaskResultSchema);
  });

  it("exposes the draft as a namespace with its draft-only RelatedTaskIds", () => {
    expect(schemaEntry.draft.relatedTaskIdsSchema.safeParse(["task_1234"]).success).toBe(true);
    expect("relatedTaskIdsSchema" in schemaEntry).toBe(false);
    expect("relatedTaskIdsSchema" in schemaEntry.v2026_07_28).toBe(false);
  });
});
