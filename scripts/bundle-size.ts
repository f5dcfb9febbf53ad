/**
 * What each public entry costs a bundler's user: esbuild `--bundle --minify`, bytes and gzip bytes. Used by the
 * bundle-size budget test (test/package/bundle-size.test.ts) and by `npm run size`, which prints the size
 * table of docs/runtimes.md for the current build (`npm run build` first).
 *
 * Two figures per entry:
 * - **whole**: one file, no code splitting (what Workers' and many edge builders do): everything the import can
 *   ever load, lazy `import()`s included (esbuild inlines them);
 * - **first load**: with `--splitting` (ESM), the entry chunk and the chunks it imports statically: what a page
 *   or a Worker loads before the first request. Lazily loaded parts (the SDK's transport behind `oauth()`, …)
 *   come in later chunks, only when used.
 *
 * The main entry is `esbuild --bundle --minify --platform=browser` of `import { TaskClient } from "mcp-tasks"`
 * with no externals at all: OAuth and OpenTelemetry are entries of their own (`mcp-tasks/oauth`,
 * `mcp-tasks/telemetry`) that an app imports to use them, so nothing is left out of the figure. The other entries
 * are bundled for the browser with `node:` built-ins and the package's optional peers left out (the runtime or the
 * app provides them); `mcp-tasks/oauth` carries the SDK's client package it drives.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";

export const ROOT = resolve(import.meta.dirname, "..");

export interface SizedEntry {
  /** The import specifier, e.g. `mcp-tasks/schema`. */
  entry: string;
  /** The statement measured. */
  source: string;
  whole: { bytes: number; gzip: number };
  firstLoad: { bytes: number; gzip: number };
  /** Bytes in the whole bundle per package (`mcp-tasks` for our own files), largest first. */
  byPackage: Array<[string, number]>;
}

interface EntrySpec {
  entry: string;
  source: string;
  /** Leave out `node:` built-ins and optional peers. */
  externals: boolean;
}

/** The entries measured: the main entry as the client a page uses, every other public entry whole. */
export function entrySpecs(packageJson = readPackageJson()): EntrySpec[] {
  const specs: EntrySpec[] = [
    {
      entry: "mcp-tasks",
      source: 'import { TaskClient } from "mcp-tasks";\nglobalThis.TaskClient = TaskClient;',
      externals: false,
    },
  ];
  for (const key of Object.keys(packageJson.exports)) {
    if (key === "." || key === "./package.json" || key === "./testing") continue;
    const entry = `mcp-tasks/${key.slice(2)}`;
    specs.push({
      entry,
      source: `import * as entry from "${entry}";\nglobalThis.entry = entry;`,
      externals: true,
    });
  }
  return specs;
}

interface PackageJson {
  exports: Record<string, unknown>;
  peerDependencies?: Record<string, string>;
}

function readPackageJson(): PackageJson {
  return JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as PackageJson;
}

/**
 * Measures one entry. `dir` is a project that can resolve `mcp-tasks` (the packed consumer in the test; the
 * repository itself for `npm run size`, through the package's own name).
 */
export async function measureEntry(dir: string, spec: EntrySpec): Promise<SizedEntry> {
  const peers = Object.keys(readPackageJson().peerDependencies ?? {});
  const external = spec.externals ? ["node:*", ...peers] : [];
  const common = {
    stdin: { contents: spec.source, resolveDir: dir, sourcefile: "entry.js" },
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
    // The repository's tsconfig maps `mcp-tasks` to src/: measure the build, as a consumer gets it.
    tsconfigRaw: "{}",
    absWorkingDir: dir,
    external,
  } as const;
  const whole = await build(common);
  const wholeBytes = whole.outputFiles[0]?.contents ?? new Uint8Array();
  const split = await build({ ...common, splitting: true, outdir: join(dir, ".size-out") });
  const firstLoad = firstLoadFiles(split.metafile, dir);
  let firstBytes = 0;
  let firstGzip = 0;
  for (const file of split.outputFiles) {
    if (!firstLoad.has(file.path)) continue;
    firstBytes += file.contents.length;
    firstGzip += gzipSync(file.contents, { level: 9 }).length;
  }
  const sized: SizedEntry = {
    entry: spec.entry,
    source: spec.source,
    whole: { bytes: wholeBytes.length, gzip: gzipSync(wholeBytes, { level: 9 }).length },
    firstLoad: { bytes: firstBytes, gzip: firstGzip },
    byPackage: byPackage(whole.metafile),
  };
  return sized;
}

/** The entry chunk and, transitively, every chunk it imports statically (absolute paths, as outputFiles name them). */
function firstLoadFiles(metafile: Metafile, dir: string): Set<string> {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((path) => outputs[path]?.entryPoint !== undefined);
  const seen = new Set<string>();
  const queue = entry === undefined ? [] : [entry];
  while (queue.length > 0) {
    const path = queue.pop() as string;
    if (seen.has(path)) continue;
    seen.add(path);
    for (const imported of outputs[path]?.imports ?? []) {
      if (imported.kind === "import-statement" && !imported.external) queue.push(imported.path);
    }
  }
  // Metafile paths are relative to absWorkingDir; outputFiles carry absolute paths.
  const absolute = new Set<string>();
  for (const path of seen) absolute.add(resolve(dir, path));
  return absolute;
}

function byPackage(metafile: Metafile): Array<[string, number]> {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
      const name = match?.[1] ?? (input.startsWith("<stdin>") ? "(entry)" : "mcp-tasks");
      totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

/** Measures every entry of `packageJson` from `dir`. */
export async function measureAll(dir: string): Promise<SizedEntry[]> {
  const sized: SizedEntry[] = [];
  for (const spec of entrySpecs()) sized.push(await measureEntry(dir, spec));
  return sized;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** The size table of docs/runtimes.md. */
export function sizeTable(sized: SizedEntry[]): string {
  const rows = [
    "| Entry (what is imported) | First load, minified | First load, gzip | Whole, minified | Whole, gzip |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const entry of sized) {
    const what = entry.entry === "mcp-tasks" ? "`mcp-tasks` (`TaskClient`)" : `\`${entry.entry}\` (all)`;
    rows.push(
      `| ${what} | ${kb(entry.firstLoad.bytes)} | ${kb(entry.firstLoad.gzip)} | ${kb(entry.whole.bytes)} | ${kb(entry.whole.gzip)} |`,
    );
  }
  return rows.join("\n");
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  if (!existsSync(join(ROOT, "dist", "index.js"))) throw new Error("no dist/: run `npm run build` first");
  const sized = await measureAll(ROOT);
  console.log(sizeTable(sized));
  for (const entry of sized) {
    const parts = entry.byPackage.slice(0, 8).map(([name, bytes]) => `${name} ${kb(bytes)}`);
    console.log(`\n${entry.entry}: ${parts.join(", ")}`);
  }
}
