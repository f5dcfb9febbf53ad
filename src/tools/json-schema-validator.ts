/**
 * `mcp-tasks/json-schema`: the validator `validateOutput` uses, imported statically. The main entry imports
 * `@cfworker/json-schema` only when a tool has an `outputSchema`, by a specifier a bundler leaves alone; a bundle
 * made into one file (a Worker, a page) cannot load it then, so such an app passes this instead:
 *
 * ```ts
 * import { jsonSchemaValidator } from "mcp-tasks/json-schema";
 * const client = await TaskClient.connect(url, { validateOutput: jsonSchemaValidator });
 * ```
 *
 * @module mcp-tasks/json-schema
 */
import { boundedValidator, type JsonSchemaValidator } from "./json-schema.js";

export type { JsonSchemaValidator } from "./json-schema.js";
export type { OutputProblem } from "../protocol/errors.js";

/**
 * JSON Schema (drafts 4, 7, 2019-09 and 2020-12, the default) with `@cfworker/json-schema`'s keywords: no `eval`,
 * and a budget per check (patterns on RE2, in linear time; every subschema visit counted), so a server's schema
 * cannot block the event loop.
 */
export const jsonSchemaValidator: JsonSchemaValidator = boundedValidator();
