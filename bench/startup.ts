/**
 * Start-up figures (`npm run bench -- --startup-only`, and at the end of a full `npm run bench`), from the build
 * (`npm run build` first), each over fresh Node processes, one at a time, medians:
 *
 * - **import**: `await import("mcp-tasks")` in a fresh `node` process, timed inside it (performance.now() before
 *   and after), so Node's own boot is not counted;
 * - **CLI first request**: from spawning `mcp-tasks call <url> <tool>` (the built CLI, as installed) to the first
 *   HTTP request arriving at a loopback server here, which answers nothing useful (the CLI then exits).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

export interface StartupFigures {
  runs: number;
  importMs: { median: number; min: number; max: number };
  importCpuMs: { median: number; min: number; max: number };
  cliFirstRequestMs: { median: number; min: number; max: number };
}

function summary(values: number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

const IMPORT_SCRIPT = `
const cpu = process.cpuUsage();
const started = performance.now();
await import("mcp-tasks");
const wall = performance.now() - started;
const { user, system } = process.cpuUsage(cpu);
console.log(JSON.stringify({ wall, cpu: (user + system) / 1000 }));
`;

/**
 * One fresh process importing the package by its name (Node resolves it to the build through "exports"): wall
 * and CPU milliseconds. CPU time is the steadier figure on a shared machine; the target is on wall time.
 */
function importOnce(): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", IMPORT_SCRIPT], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolve(JSON.parse(stdout) as { wall: number; cpu: number });
      } catch (error) {
        reject(new Error(`import run failed (${String(error)}): ${stdout}`));
      }
    });
  });
}

/** One CLI process: milliseconds from spawn to its first request on the wire. */
async function cliOnce(): Promise<number> {
  let arrived: number | undefined;
  const server = createServer((request, response) => {
    arrived ??= performance.now();
    request.resume();
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  try {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [join(REPO_ROOT, "bin", "mcp-tasks.js"), "call", url, "noop"], {
        cwd: REPO_ROOT,
        env: { ...process.env, MCP_TASKS_CLI_BUILT: "1" },
        stdio: "ignore",
      });
      child.on("error", reject);
      child.on("close", () => resolve());
    });
    if (arrived === undefined) throw new Error("the CLI exited without sending a request");
    return arrived - started;
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export async function measureStartup(runs = 10): Promise<StartupFigures> {
  if (!existsSync(join(REPO_ROOT, "dist", "index.js")) || !existsSync(join(REPO_ROOT, "dist", "cli.js"))) {
    throw new Error("no build: run `npm run build` first");
  }
  const imports: Array<{ wall: number; cpu: number }> = [];
  const firstRequests: number[] = [];
  for (let run = 0; run < runs; run++) {
    imports.push(await importOnce());
    firstRequests.push(await cliOnce());
  }
  return {
    runs,
    importMs: summary(imports.map(({ wall }) => wall)),
    importCpuMs: summary(imports.map(({ cpu }) => cpu)),
    cliFirstRequestMs: summary(firstRequests),
  };
}

export function startupTable(figures: StartupFigures): string {
  const row = (what: string, { median, min, max }: StartupFigures["importMs"], target: string) =>
    `| ${what} | ${median.toFixed(1)} ms | ${min.toFixed(1)}–${max.toFixed(1)} ms | ${target} |`;
  return [
    `| Start-up (${figures.runs} fresh processes) | median | range | target |`,
    "| --- | --- | --- | --- |",
    row('`await import("mcp-tasks")`', figures.importMs, "≤ 40 ms"),
    row('`await import("mcp-tasks")`, CPU time', figures.importCpuMs, "—"),
    row("CLI: process start → first request on the wire", figures.cliFirstRequestMs, "≤ 300 ms"),
  ].join("\n");
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(startupTable(await measureStartup()));
}
