/**
 * Releases the draft as `schema/<YYYY-MM-DD>/`: copies its three files, rewrites what names the version
 * (the revision block of `schema.ts`, the generated file's header, the JSON Schema `$id` and title) and
 * records the new files' hashes in the manifest. Released folders are never regenerated afterwards.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { regenerateDraft, staleFiles } from "./draft.js";
import { formatJson, renderJsonSchemaDocument } from "./generate.js";
import {
  DRAFT,
  SCHEMA_FILES,
  SchemaScriptError,
  type SchemaFile,
  generatedHeader,
  isReleaseDate,
  manifestPath,
  schemaDir,
  sourceRevisionBlock,
} from "./layout.js";
import { MANIFEST_COMMENT, hashReleaseFolder, readManifest } from "./manifest.js";

export async function createSnapshot(root: string, version: string): Promise<void> {
  if (!isReleaseDate(version)) {
    throw new SchemaScriptError(
      `"${version}" is not a release date; pass a real calendar date as YYYY-MM-DD, e.g. npm run snapshot:schema -- 2026-07-28.`,
    );
  }
  const target = schemaDir(root, version);
  const manifest = readManifest(root);
  if (existsSync(target) || version in manifest.released) {
    throw new SchemaScriptError(
      `schema/${version}/ already exists; released versions are never overwritten.`,
    );
  }
  const stale = staleFiles(root, await regenerateDraft(root, false));
  if (stale.length > 0) {
    throw new SchemaScriptError(
      `The draft's generated files are out of date (${stale.join(", ")}); run npm run generate:schemas first.`,
    );
  }

  const released: Record<SchemaFile, string> = {
    "schema.ts": swapVersion(readDraft(root, "schema.ts"), sourceRevisionBlock, version, "schema.ts"),
    "generated/schema.ts": swapVersion(
      readDraft(root, "generated/schema.ts"),
      generatedHeader,
      version,
      "generated/schema.ts",
    ),
    "schema.json": await renderJsonSchemaDocument(draftDefs(root), version, root),
  };
  try {
    for (const file of SCHEMA_FILES) {
      mkdirSync(join(target, file, ".."), { recursive: true });
      writeFileSync(join(target, file), released[file]);
    }
    manifest.released[version] = hashReleaseFolder(root, version);
    const sorted = Object.fromEntries(
      Object.entries(manifest.released).sort(([a], [b]) => a.localeCompare(b)),
    );
    writeFileSync(
      manifestPath(root),
      await formatJson({ $comment: MANIFEST_COMMENT, released: sorted }, root),
    );
  } catch (error) {
    // Leave no half-written release behind: a partial folder would be refused by the next snapshot.
    rmSync(target, { recursive: true, force: true });
    throw error;
  }
}

function readDraft(root: string, file: SchemaFile): string {
  return readFileSync(join(schemaDir(root, DRAFT), file), "utf8");
}

/** Replaces the draft's version text (exactly once) with the release's; fails loudly if it is not there. */
function swapVersion(
  content: string,
  text: (version: string) => string,
  version: string,
  file: string,
): string {
  const draftText = text(DRAFT);
  const occurrences = content.split(draftText).length - 1;
  if (occurrences !== 1) {
    throw new SchemaScriptError(
      `schema/draft/${file} must contain its draft revision text exactly once (found ${occurrences}):\n${draftText}`,
    );
  }
  return content.replace(draftText, () => text(version));
}

function draftDefs(root: string): Record<string, unknown> {
  const document = JSON.parse(readDraft(root, "schema.json")) as { $defs?: Record<string, unknown> };
  if (!document.$defs) throw new SchemaScriptError("schema/draft/schema.json has no $defs.");
  return document.$defs;
}
