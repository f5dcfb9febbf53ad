/**
 * The draft version is the only one that is ever generated: these helpers regenerate it from its
 * hand-written `schema.ts` and compare the result with the files on disk.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { generateFromSource, type GeneratedFiles } from "./generate.js";
import { DRAFT, displayPath, schemaDir } from "./layout.js";

export async function regenerateDraft(root: string, validate: boolean): Promise<GeneratedFiles> {
  const sourceText = readFileSync(join(schemaDir(root, DRAFT), "schema.ts"), "utf8");
  return generateFromSource(sourceText, DRAFT, { root, validate });
}

/** Repository-relative paths of the draft's generated files that are missing or differ from a fresh generation. */
export function staleFiles(root: string, fresh: GeneratedFiles): string[] {
  const stale: string[] = [];
  for (const [file, content] of Object.entries(fresh)) {
    const path = join(schemaDir(root, DRAFT), file);
    if (!existsSync(path) || readFileSync(path, "utf8") !== content) stale.push(displayPath(DRAFT, file));
  }
  return stale;
}

/** Writes the generated files that changed; returns their repository-relative paths. */
export function writeDraft(root: string, fresh: GeneratedFiles): string[] {
  const changed = staleFiles(root, fresh);
  for (const [file, content] of Object.entries(fresh)) {
    if (!changed.includes(displayPath(DRAFT, file))) continue;
    const path = join(schemaDir(root, DRAFT), file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return changed;
}
