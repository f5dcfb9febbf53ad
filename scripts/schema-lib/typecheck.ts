/**
 * Type-checks the schema sources (every version's `schema.ts` and `generated/schema.ts`) with the
 * repository's compiler options, so a broken schema fails `check:schema` without a full project build.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";
import { SchemaScriptError } from "./layout.js";

export function schemaSourceFiles(root: string): string[] {
  const schemaRoot = join(root, "schema");
  const files: string[] = [];
  for (const entry of readdirSync(schemaRoot, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    for (const file of ["schema.ts", join("generated", "schema.ts")]) {
      const path = join(schemaRoot, entry.name, file);
      if (existsSync(path)) files.push(path);
    }
  }
  return files.sort();
}

/** Compiler diagnostics of the schema sources, formatted one per entry with a repository-relative path. */
export function typecheckSchemaSources(root: string): string[] {
  const configPath = join(root, "tsconfig.json");
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (config.error) {
    throw new SchemaScriptError(ts.flattenDiagnosticMessageText(config.error.messageText, "\n"));
  }
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram(schemaSourceFiles(root), { ...options, noEmit: true });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const path = relative(root, diagnostic.file.fileName).split(sep).join("/");
    return `${path}:${line + 1}:${character + 1} ${message}`;
  });
}
