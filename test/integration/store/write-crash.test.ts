/**
 * `fileStore` killed during a write, for real: a child process (write-crash-child.ts) sends itself SIGKILL just
 * before its Nth file operation (temporary file open, write, fsync, close, rename, directory open, fsync,
 * close, then the same for a second write), for every N. After each kill a new store on the directory holds
 * the old ref or the new one, intact, has moved nothing to quarantine, removes the dead writer's temporary
 * file, and keeps every write the child had reported. (What a power loss keeps is modelled in
 * test/unit/store/file-store-crash.test.ts: a SIGKILL leaves the page cache, so only the order of operations
 * matters here.)
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TaskRef } from "mcp-tasks";
import { fileStore } from "mcp-tasks/store";
import { bundleChild, runChild as runBundle, type ChildBundle } from "./child-bundle.js";

// One bundle, run by plain node: each of the ~50 processes starts in a fraction of a second.
let child: ChildBundle;
beforeAll(async () => {
  child = await bundleChild(new URL("./write-crash-child.ts", import.meta.url));
});
afterAll(() => child.remove());

const server = { url: "http://127.0.0.1:9/mcp", name: "ref", protocolVersion: "2026-07-28" };
function ref(taskId: string, keys: string[] = []): TaskRef {
  return { v: 1, taskId, server, method: "tools/call", toolName: "t", answeredInputKeys: keys };
}

interface Run {
  signal: NodeJS.Signals | null;
  code: number | null;
  lines: string[];
  stderr: string;
}

async function runChild(dir: string, scenario: string, killBefore: number): Promise<Run> {
  const { code, signal, stdout, stderr } = await runBundle(child, [dir, scenario, String(killBefore)]);
  return { code, signal, lines: stdout.split("\n"), stderr };
}

/** A directory holding `refs`, written by a store that has closed. */
async function seeded(refs: TaskRef[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-write-crash-"));
  const store = fileStore(dir);
  for (const stored of refs) await store.put(stored);
  await store.close();
  return dir;
}

/** What the next process finds. */
async function recovered(dir: string): Promise<{ refs: Map<string, TaskRef>; moved: string[] }> {
  const moved: string[] = [];
  const store = fileStore(dir, { logger: { warn: (message: string) => moved.push(message) } });
  const refs = new Map((await store.list()).map((found) => [found.taskId, found]));
  await store.close();
  return { refs, moved: moved.filter((warning) => warning.includes("moved")) };
}

// [scenario, "a" before, "a" after the first write]
const scenarios = [
  ["update", ref("a"), ref("a", ["q"])],
  ["create", undefined, ref("a")],
  ["remove", ref("a"), undefined],
] as const;

describe("fileStore killed before each file operation of a write", () => {
  it.each(scenarios)(
    "%s: the next process finds the old ref or the new one, never a torn one",
    async (scenario, before, after) => {
      // A run without a kill counts the operations, and shows the writes complete.
      const counted = await runChild(await seeded(before ? [before] : []), scenario, 0);
      expect(counted.code, counted.stderr).toBe(0);
      const operations = Number(counted.lines.find((line) => line.startsWith("operations "))?.split(" ")[1]);
      expect(operations).toBeGreaterThan(2);

      let reportedBeforeDeath = 0;
      const killAt = async (killBefore: number) => {
        const dir = await seeded(before ? [before] : []);
        const run = await runChild(dir, scenario, killBefore);
        const where = `${scenario}, killed before operation ${killBefore}`;
        expect(run.signal, `${where}: ${run.stderr}`).toBe("SIGKILL");
        const { refs, moved } = await recovered(dir);
        expect(moved, where).toEqual([]);
        const first = refs.get("a");
        if (run.lines.includes("reported first")) {
          reportedBeforeDeath++;
          expect(first, `${where}: the reported write was lost`).toEqual(after);
        } else {
          expect([before, after], `${where}: neither old nor new`).toContainEqual(first);
        }
        expect([undefined, ref("b")], where).toContainEqual(refs.get("b"));
        expect(
          readdirSync(dir).filter((name) => name.startsWith(".tmp-")),
          where,
        ).toEqual([]);
        rmSync(dir, { recursive: true, force: true });
      };
      // Four children at a time: they spend most of their life waiting for fsync.
      const points = Array.from({ length: operations }, (_, index) => index + 1);
      for (let start = 0; start < points.length; start += 4) {
        await Promise.all(points.slice(start, start + 4).map(killAt));
      }
      // The kills landed on both sides of the first write's report.
      expect(reportedBeforeDeath).toBeGreaterThan(0);
      expect(reportedBeforeDeath).toBeLessThan(operations);
    },
    120_000,
  );
});
