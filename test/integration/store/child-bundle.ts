/**
 * Child processes for the store's multi-process tests. Each child script is bundled once with esbuild and run by
 * plain node: dozens of processes loading every module through tsx spend more CPU starting than the test itself.
 * Bundles sit under node_modules/.cache, so packages left out of them (`external`, e.g. `redis`) still resolve.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const root = fileURLToPath(new URL("../../..", import.meta.url));
const cache = `${root}node_modules/.cache/mcp-tasks-tests`;

export interface ChildBundle {
  /** The bundle's path, to run with `process.execPath`. */
  readonly path: string;
  /** Deletes the bundle. */
  remove(): void;
}

/** Bundles `source` (a child script beside the test) for this test process. */
export async function bundleChild(source: URL, options: { external?: string[] } = {}): Promise<ChildBundle> {
  const entry = fileURLToPath(source);
  const name = entry.slice(entry.lastIndexOf("/") + 1).replace(/\.ts$/, "");
  const path = `${cache}/${name}-${process.pid}.mjs`;
  await build({
    entryPoints: [entry],
    outfile: path,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // undici is CommonJS that requires Node's built-ins: bundled into an ES module it cannot load them, so the
    // child resolves it from node_modules, as the library's users do.
    external: ["undici", ...(options.external ?? [])],
    tsconfig: `${root}tsconfig.json`,
    logLevel: "warning",
  });
  return { path, remove: () => rmSync(path, { force: true }) };
}

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a bundle with `args` to its end and resolves with what it printed and how it ended. */
export function runChild(bundle: ChildBundle, args: string[]): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [bundle.path, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on("error", reject);
    proc.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
