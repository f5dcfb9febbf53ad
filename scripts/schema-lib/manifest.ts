/**
 * The manifest of released schema versions (`schema/manifest.json`): the sha256 of every file of each
 * release, so `check:schema` can prove a released snapshot is byte for byte what was released.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import {
  DRAFT,
  SCHEMA_FILES,
  SchemaScriptError,
  displayPath,
  isReleaseDate,
  manifestPath,
  schemaDir,
} from "./layout.js";

export interface Manifest {
  $comment: string;
  /** Release version -> file path relative to `schema/<version>/` -> sha256 hex digest. */
  released: Record<string, Record<string, string>>;
}

export const MANIFEST_COMMENT =
  "sha256 of every file of each released schema version. Written by `npm run snapshot:schema`, " +
  "verified by `npm run check:schema`. Never edit by hand.";

export function sha256(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

export function readManifest(root: string): Manifest {
  const path = manifestPath(root);
  if (!existsSync(path)) return { $comment: MANIFEST_COMMENT, released: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new SchemaScriptError(`schema/manifest.json is not valid JSON: ${(error as Error).message}`);
  }
  if (!isManifest(parsed)) {
    throw new SchemaScriptError(
      'schema/manifest.json must be { "released": { "<YYYY-MM-DD>": { "<file>": "<sha256>" } } }.',
    );
  }
  return parsed;
}

function isManifest(value: unknown): value is Manifest {
  if (typeof value !== "object" || value === null) return false;
  const released = (value as { released?: unknown }).released;
  if (typeof released !== "object" || released === null) return false;
  return Object.values(released).every(
    (files) =>
      typeof files === "object" &&
      files !== null &&
      Object.values(files).every((digest) => typeof digest === "string"),
  );
}

/** The manifest entry for a release folder as it is on disk now. */
export function hashReleaseFolder(root: string, version: string): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const file of SCHEMA_FILES) {
    hashes[file] = sha256(readFileSync(join(schemaDir(root, version), file)));
  }
  return hashes;
}

/** Every file under a folder, as forward-slash paths relative to it, sorted. */
function listFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(relative(dir, path).split(sep).join("/"));
    }
  };
  walk(dir);
  return files.sort();
}

/**
 * Problems that make the released snapshots differ from what was released: an edited, missing or extra
 * file, a release folder the manifest does not know, or a manifest entry without its folder.
 */
export function verifyReleases(root: string): string[] {
  const manifest = readManifest(root);
  const problems: string[] = [];
  const schemaRoot = join(root, "schema");
  const folders = readdirSync(schemaRoot).filter(
    (name) => name !== DRAFT && statSync(join(schemaRoot, name)).isDirectory(),
  );
  for (const folder of folders) {
    if (!isReleaseDate(folder)) {
      problems.push(`schema/${folder}/ is neither "draft" nor a release date (YYYY-MM-DD).`);
    } else if (!(folder in manifest.released)) {
      problems.push(
        `schema/${folder}/ is not recorded in schema/manifest.json; create releases with npm run snapshot:schema.`,
      );
    }
  }
  for (const [version, expected] of Object.entries(manifest.released).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    const dir = schemaDir(root, version);
    if (!existsSync(dir)) {
      problems.push(`schema/${version}/ is recorded in schema/manifest.json but missing.`);
      continue;
    }
    const present = listFiles(dir);
    for (const file of Object.keys(expected).sort()) {
      const path = displayPath(version, file);
      if (!present.includes(file)) problems.push(`${path} is missing (released file).`);
      else if (sha256(readFileSync(join(dir, file))) !== expected[file]) {
        problems.push(
          `${path} differs from the released version (sha256 mismatch); released files never change.`,
        );
      }
    }
    for (const file of present) {
      if (!(file in expected))
        problems.push(`${displayPath(version, file)} is not part of the released version.`);
    }
  }
  return problems;
}
