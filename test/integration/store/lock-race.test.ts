/**
 * One owner at a time, across processes: three processes take and let go of one `fileStore` directory over and
 * over, starting together on a lock left by a dead process (so they race to take it over). None may ever see
 * another inside while it holds the lock, and every write of every round lands.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileStore } from "mcp-tasks/store";
import { bundleChild, runChild, type ChildBundle } from "./child-bundle.js";

const sources = {
  race: new URL("./lock-race-child.ts", import.meta.url),
  takeover: new URL("./lock-takeover-child.ts", import.meta.url),
};
const children: Partial<Record<keyof typeof sources, ChildBundle>> = {};

beforeAll(async () => {
  for (const [which, source] of Object.entries(sources))
    children[which as keyof typeof sources] = await bundleChild(source);
});
afterAll(() => {
  for (const bundle of Object.values(children)) bundle.remove();
});

async function run(
  which: keyof typeof sources,
  args: string[],
): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  const bundle = children[which];
  if (bundle === undefined) throw new Error(`${which}: not bundled`);
  const { code, stdout, stderr } = await runChild(bundle, args);
  return { code, lines: stdout.trim().split("\n"), stderr };
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
