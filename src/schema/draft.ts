/**
 * The draft revision of the Tasks extension schema (may change): its generated Zod schemas and its
 * hand-written types, as one module so that `mcp-tasks/schema` can expose it as a namespace.
 */
export * from "../../schema/draft/generated/schema.js";
export type * from "../../schema/draft/schema.js";
