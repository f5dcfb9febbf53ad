/**
 * The package as a consumer gets it: `npm pack` of the current build, unpacked into a temporary
 * `node_modules/mcp-tasks`, next to links to its production dependencies and nothing else (no
 * `@modelcontextprotocol/server`, no dev tools). Tests here need a fresh `dist/`: `npm test` builds it in
 * `check:package` before the unit tests; a stale or missing build fails them with a message saying so.
 */
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";

export const ROOT = resolve(import.meta.dirname, "../..");
export const run = promisify(execFile);

/** The newest modification time under `path` (a file or a folder), in ms. */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Throws unless `dist/` exists and is newer than everything it is built from. */
export function assertFreshBuild(): void {
  const dist = join(ROOT, "dist", "index.js");
  if (!existsSync(dist))
    throw new Error("dist/ is missing: run `npm run build` (npm test does it in check:package)");
  const sources = Math.max(...["src", "package.json", "tsup.config.ts"].map((p) => newest(join(ROOT, p))));
  if (statSync(dist).mtimeMs < sources) {
    throw new Error("dist/ is older than src/: run `npm run build` (npm test does it in check:package)");
  }
}

export interface PackedFile {
  path: string;
  size: number;
}

export interface PackResult {
  /** Packed (gzip) size in bytes. */
  size: number;
  unpackedSize: number;
  files: PackedFile[];
}

/** `npm pack --dry-run --json` of the current tree (scripts off: the build is checked, not redone). */
export async function packDryRun(): Promise<PackResult> {
  assertFreshBuild();
  const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT });
  const [result] = JSON.parse(stdout) as PackResult[];
  if (result === undefined) throw new Error(`npm pack printed no result: ${stdout}`);
  return result;
}

export interface Consumer {
  /** The consumer project; `node_modules/mcp-tasks` is the unpacked tarball. */
  dir: string;
  packageDir: string;
  remove(): void;
}

/**
 * A consumer project with the packed package installed (production dependencies linked from ours), and the
 * packages of `alsoLink` linked from ours too (an optional peer a test gives the consumer, say).
 */
export async function packedConsumer(alsoLink: readonly string[] = []): Promise<Consumer> {
  assertFreshBuild();
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-consumer-"));
  const { stdout } = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], {
    cwd: ROOT,
  });
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  const packageDir = join(dir, "node_modules", "mcp-tasks");
  mkdirSync(packageDir, { recursive: true });
  await run("tar", ["-xzf", join(dir, filename), "-C", packageDir, "--strip-components=1"]);
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  // Links resolve to their real paths in our node_modules, so their own dependencies are found there; the
  // unpacked package itself is a real folder, so what it resolves is only what a consumer would have.
  for (const name of [...Object.keys(manifest.dependencies), ...alsoLink]) {
    const link = join(dir, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", name), link, "dir");
  }
  return { dir, packageDir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Loads each `mcp-tasks/<name>` entry in the consumer by ESM import and CJS require, in a fresh Node process:
 * `ok` when it exports the function `entry`, else the first line of the error, keyed `"<name> esm"` / `"<name> cjs"`.
 */
export async function loadEntries(
  consumer: Consumer,
  entries: ReadonlyArray<readonly [name: string, entry: string]>,
): Promise<Record<string, string>> {
  const script = `
    const { createRequire } = await import("node:module");
    const require = createRequire(import.meta.url);
    const seen = {};
    for (const [name, entry] of ${JSON.stringify(entries)}) {
      for (const [kind, load] of [["esm", () => import("mcp-tasks/" + name)], ["cjs", async () => require("mcp-tasks/" + name)]]) {
        seen[name + " " + kind] = await load().then(
          (module) => (typeof module[entry] === "function" ? "ok" : "no " + entry),
          (error) => String(error.message).split("\\n")[0],
        );
      }
    }
    console.log(JSON.stringify(seen));`;
  writeFileSync(join(consumer.dir, "load.mjs"), script);
  const { stdout } = await run(process.execPath, ["load.mjs"], { cwd: consumer.dir, timeout: 60_000 });
  return JSON.parse(stdout) as Record<string, string>;
}

/** How package.json wires the entry `mcp-tasks/<name>`: its exports, its typesVersions and its peers. */
export function entryWiring(name: string, peers: readonly string[]): unknown {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
    typesVersions: { "*": Record<string, string[]> };
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
    dependencies: Record<string, string>;
  };
  return {
    exports: manifest.exports[`./${name}`],
    typesVersions: manifest.typesVersions["*"][name],
    peers: peers.map((peer) => ({
      peer,
      range: typeof manifest.peerDependencies[peer],
      meta: manifest.peerDependenciesMeta[peer],
      dependency: manifest.dependencies[peer],
    })),
  };
}

/** The wiring of an entry built at `dist/<file>` whose `peers` are optional peer dependencies, never dependencies. */
export function optionalPeerEntry(file: string, peers: readonly string[]): unknown {
  return {
    exports: {
      import: { types: `./dist/${file}.d.ts`, default: `./dist/${file}.js` },
      require: { types: `./dist/${file}.d.cts`, default: `./dist/${file}.cjs` },
    },
    typesVersions: [`./dist/${file}.d.cts`],
    peers: peers.map((peer) => ({ peer, range: "string", meta: { optional: true }, dependency: undefined })),
  };
}
