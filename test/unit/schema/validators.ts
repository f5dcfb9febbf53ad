/**
 * The validators of each schema version, behind one interface so every test runs against all of them:
 * the JSON Schema (`schema/<version>/schema.json`, ajv 2020-12), the Zod schemas exported by
 * `mcp-tasks/schema` (`src/schema/index.ts`), and for the revision the client speaks, the validators
 * the client itself uses (`src/schema/generated/validators.ts`, derived by `generate:schemas`).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import type * as z from "zod/v4";
import { draft, v2026_07_28 } from "mcp-tasks/schema";
import { validators as clientValidators } from "../../../src/schema/validators.js";

export const VERSIONS = ["2026-07-28", "draft"] as const;
export type SchemaVersion = (typeof VERSIONS)[number];

const ZOD_MODULES: Record<SchemaVersion, Record<string, unknown>> = { "2026-07-28": v2026_07_28, draft };

export interface Validator {
  name: "JSON Schema" | "Zod" | "client (kit)";
  /** True when `value` satisfies the definition `def` (a type name such as `GetTaskResult`). */
  accepts(def: string, value: unknown): boolean;
  /** A short reason for the last rejection, for assertion messages. */
  explain(def: string, value: unknown): string;
}

export function repoPath(relativePath: string): string {
  return fileURLToPath(new URL(`../../../${relativePath}`, import.meta.url));
}

export function readJsonSchema(version: SchemaVersion): { $id: string; $defs: Record<string, unknown> } {
  return JSON.parse(readFileSync(repoPath(`schema/${version}/schema.json`), "utf8"));
}

function jsonSchemaValidator(version: SchemaVersion): Validator {
  const document = readJsonSchema(version);
  // Strict, except that `"type": ["string", "number"]` (RequestId) is valid 2020-12 that strict mode flags.
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  ajv.addSchema(document);
  const compiled = (def: string) => {
    const validate = ajv.getSchema(`${document.$id}#/$defs/${def}`);
    if (!validate) throw new Error(`schema/${version}/schema.json has no $defs/${def}`);
    return validate;
  };
  return {
    name: "JSON Schema",
    accepts: (def, value) => compiled(def)(value) as boolean,
    explain: (def, value) => {
      const validate = compiled(def);
      return validate(value) ? "accepted" : ajv.errorsText(validate.errors);
    },
  };
}

/** The Zod schema of a type: ts-to-zod names it camelCase(TypeName) + "Schema". */
export function zodSchemaFor(version: SchemaVersion, def: string): z.ZodType {
  const moduleExports = ZOD_MODULES[version];
  const key = Object.keys(moduleExports).find((name) => name.toLowerCase() === `${def}Schema`.toLowerCase());
  if (!key) throw new Error(`mcp-tasks/schema (${version}) exports no Zod schema for ${def}`);
  return moduleExports[key] as z.ZodType;
}

function zodValidator(version: SchemaVersion): Validator {
  return {
    name: "Zod",
    accepts: (def, value) => zodSchemaFor(version, def).safeParse(value).success,
    explain: (def, value) => {
      const parsed = zodSchemaFor(version, def).safeParse(value);
      return parsed.success ? "accepted" : parsed.error.message;
    },
  };
}

/** The client's validator of a type (src/schema/kit.ts), found by the same naming rule. */
function miniSchemaFor(def: string): { safeParse(value: unknown): { success: boolean; error?: unknown } } {
  const moduleExports = clientValidators() as Record<string, unknown>;
  const key = Object.keys(moduleExports).find((name) => name.toLowerCase() === `${def}Schema`.toLowerCase());
  if (!key) throw new Error(`src/schema/generated/validators.ts has no schema for ${def}`);
  return moduleExports[key] as { safeParse(value: unknown): { success: boolean; error?: unknown } };
}

function miniValidator(): Validator {
  return {
    name: "client (kit)",
    accepts: (def, value) => miniSchemaFor(def).safeParse(value).success,
    explain: (def, value) => {
      const parsed = miniSchemaFor(def).safeParse(value);
      return parsed.success ? "accepted" : JSON.stringify(parsed.error);
    },
  };
}

export function validatorsFor(version: SchemaVersion): Validator[] {
  const validators = [jsonSchemaValidator(version), zodValidator(version)];
  return version === "2026-07-28" ? [...validators, miniValidator()] : validators;
}
