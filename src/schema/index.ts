/**
 * `mcp-tasks/schema`: Zod schemas and TypeScript types of the Tasks extension's wire messages.
 *
 * The flat exports are the latest released revision (2026-07-28), e.g.
 * `import { getTaskResultSchema, type GetTaskResult } from "mcp-tasks/schema"`. Every revision is also
 * available as a namespace: `v2026_07_28` and `draft` (the draft adds `RelatedTaskIds`). The Zod schemas
 * keep unknown keys, so messages from newer revisions pass through unchanged.
 *
 * @module mcp-tasks/schema
 */
export * from "./v2026-07-28.js";
export * as v2026_07_28 from "./v2026-07-28.js";
export * as draft from "./draft.js";

/** The revision the flat exports follow. */
export const LATEST_SCHEMA_VERSION = "2026-07-28";
