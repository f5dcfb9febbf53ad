/**
 * Revision 2026-07-28 of the Tasks extension schema (released, frozen): its generated Zod schemas and its
 * hand-written types, as one module so that `mcp-tasks/schema` can expose it as a namespace.
 */
export * from "../../schema/2026-07-28/generated/schema.js";
export type * from "../../schema/2026-07-28/schema.js";
