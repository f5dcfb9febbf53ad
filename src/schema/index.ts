/**
 * `mcp-tasks/schema`: the generated Zod schemas and the hand-written types of the Tasks extension.
 * TEMPORARY: points at the draft until the 2026-07-28 snapshot exists (the schema work replaces this file).
 */
export * from "../../schema/draft/generated/schema.js";
export type * from "../../schema/draft/schema.js";
