/**
 * One owner at a time, across processes: three processes take and let go of one `fileStore` directory over and
 * over, starting together on a lock left by a dead process (so they race to take it over). None may ever see
 * another inside while it holds the lock, and every write of every round lands.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileStore } from "mcp-tasks/store";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const cache = `${root}node_modules/.cache/mcp-tasks-tests`;
const children = {
  race: { source: "./lock-race-child.ts", bundle: `${cache}/lock-race-child-${process.pid}.mjs` },
  takeover: { source: "./lock-takeover-child.ts", bundle: `${cache}/lock-takeover-child-${process.pid}.mjs` },
};

beforeAll(async () => {
  for (const { source, bundle } of Object.values(children)) {
    await build({
      entryPoints: [fileURLToPath(new URL(source, import.meta.url))],
      outfile: bundle,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      tsconfig: `${root}tsconfig.json`,
      logLevel: "warning",
    });
  }
});
afterAll(() => {
  for (const { bundle } of Object.values(children)) rmSync(bundle, { force: true });
});

function run(
  which: keyof typeof children,
  args: string[],
): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [children[which].bundle, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on("error", reject);
    proc.on("close", (code) => resolve({ code, lines: stdout.trim().split("\n"), stderr }));
  });
}

async function deadPid(): Promise<number> {
  const gone = spawn(process.execPath, ["-e", ""]);
  await new Promise((resolve) => gone.on("exit", resolve));
  return gone.pid as number;
}

const ROUNDS = 60;

describe("three processes sharing one store directory", () => {
  it("never hold its lock at the same time, and every put of every round lands", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-lock-race-"));
    writeFileSync(join(dir, ".lock"), `${await deadPid()}\n`);
    const runs = await Promise.all(
      ["p1", "p2", "p3"].map((name) => run("race", [dir, name, String(ROUNDS)])),
    );
    for (const { code, lines, stderr } of runs) {
      expect(code, stderr).toBe(0);
      expect(lines).toEqual([`done ${ROUNDS}`]); // no conflict, no failed write
    }
    const store = fileStore(dir);
    expect(await store.list()).toHaveLength(3 * ROUNDS);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it("that all judged one stale lock: one takes it over, the others are refused", async () => {
    // The second and third act 100 and 200 ms after the first: long after it took the lock over.
    const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-takeover-"));
    writeFileSync(join(dir, ".lock"), `${await deadPid()}\n`);
    const runs = await Promise.all(
      ["a", "b", "c"].map((name, index) => run("takeover", [dir, name, "2", String(index * 100)])),
    );
    const said = runs.map(({ lines, stderr, code }) => {
      expect(code, stderr).toBe(0);
      return lines.join(" ");
    });
    expect(said.sort()).toEqual(["held still held", "refused StoreLockedError", "refused StoreLockedError"]);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
