/**
 * The one-way direction of imports between the folders of src/ (docs/architecture.md, "The direction of
 * imports"): the layers, bottom first, and a reader of every import statement that finds the imports going the
 * other way. `npx tsx scripts/import-layers.ts` prints the folder graph and those imports; the architecture test
 * (test/readme/architecture.test.ts) holds the page's list of known exceptions to what this finds.
 *
 * A folder may import only folders of a lower layer; folders of one layer do not import each other. Imports are
 * read with TypeScript's own pre-processor (static, `export … from`, `import type` and literal `import()`), so a
 * snippet in a comment is not taken for one. A package import of this package's own entries (`mcp-tasks`,
 * `mcp-tasks/oauth`, `#stdio`) counts as an import of the folder its source lives in (tsconfig.json "paths").
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SRC = join(ROOT, "src");

/** Bottom first. `index` is src/index.ts, the main entry. */
export const LAYERS: readonly (readonly string[])[] = [
  ["schema"],
  ["protocol"],
  ["scheduler"],
  ["session"],
  ["auth"],
  ["task", "tools", "notifications"],
  ["store", "telemetry", "lifecycle", "input", "eras"],
  ["run"],
  ["client"],
  ["adapters"],
  ["index"],
  ["bridges", "testing", "host", "engines"],
  ["cli"],
];

export interface FolderImport {
  /** `from → to`, folder names. */
  from: string;
  to: string;
  /** `file → imported file`, relative to src/, one per import statement. */
  files: string[];
}

export interface ImportReport {
  /** Every import between two folders. */
  imports: FolderImport[];
  /** The imports that go against the layers (or between folders of one layer). */
  against: FolderImport[];
  /** Folders of src/ that no layer names (each must be given one). */
  unplaced: string[];
}

const layerOf = new Map(LAYERS.flatMap((layer, rank) => layer.map((folder) => [folder, rank] as const)));

function folderOf(file: string): string {
  const path = relative(SRC, file).split(sep);
  return path.length === 1 ? "index" : (path[0] as string);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The package's own specifiers (tsconfig.json "paths") → their source file. */
function ownSpecifiers(): Map<string, string> {
  const config = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8")) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  return new Map(
    Object.entries(config.compilerOptions.paths).map(([name, [path]]) => [name, join(ROOT, path as string)]),
  );
}

/** Reads every import of src/ and sorts out those against the layers. */
export function importReport(): ImportReport {
  const own = ownSpecifiers();
  const byPair = new Map<string, FolderImport>();
  const folders = new Set<string>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    folders.add(from);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName: specifier } of importedFiles) {
      const target = specifier.startsWith(".") ? resolve(dirname(file), specifier) : own.get(specifier);
      if (target === undefined || !target.startsWith(SRC + sep)) continue; // a dependency, or schema/ outside src/
      const to = folderOf(target);
      if (to === from) continue;
      const key = `${from} → ${to}`;
      const entry = byPair.get(key) ?? { from, to, files: [] };
      entry.files.push(`${relative(SRC, file)} → ${relative(SRC, target).replace(/\.js$/, ".ts")}`);
      byPair.set(key, entry);
    }
  }
  const imports = [...byPair.values()].sort(
    (a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to),
  );
  const against = imports.filter(({ from, to }) => {
    const [a, b] = [layerOf.get(from), layerOf.get(to)];
    return a === undefined || b === undefined || a <= b;
  });
  const unplaced = [...folders].filter((folder) => !layerOf.has(folder)).sort();
  return { imports, against, unplaced };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { imports, against, unplaced } = importReport();
  console.log("Layers, bottom first:");
  for (const layer of LAYERS) console.log(`  ${layer.join(", ")}`);
  console.log(`\nImports between folders: ${imports.length} folder pairs`);
  for (const { from, to, files } of imports) console.log(`  ${from} → ${to} (${files.length})`);
  console.log(`\nAgainst the direction: ${against.length}`);
  for (const { from, to, files } of against) console.log(`  ${from} → ${to}: ${files.join(", ")}`);
  if (unplaced.length > 0) console.log(`\nFolders in no layer: ${unplaced.join(", ")}`);
}
