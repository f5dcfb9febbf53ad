/**
 * `fileStore` under power loss, modelled (crash-model.ts): before every file operation of a `put` or `remove`,
 * and once after the last, every file system a crash at that instant may leave behind is opened by a new store.
 * Each must hold, per task, the old ref or the new one, intact (nothing moved to quarantine), and every write
 * that had been reported (its promise resolved) must be there. A process killed by a signal keeps even less at
 * risk (the page cache survives it); test/integration/store/write-crash.test.ts kills real processes.
 */
import { describe, expect, it } from "vitest";
import type { TaskRef } from "mcp-tasks";
import { fileStoreOver } from "../../../src/store/file.js";
import { CrashModelFs, type CrashChoice } from "./crash-model.js";

const ROOT = "/store";
const server = { url: "http://127.0.0.1:9/mcp", name: "ref", protocolVersion: "2026-07-28" };

function ref(taskId: string, keys: string[] = []): TaskRef {
  return { v: 1, taskId, server, method: "tools/call", toolName: "t", answeredInputKeys: keys };
}

/** What one crash point saw: the file systems left behind, and the writes reported by then. */
interface CrashPoint {
  at: string;
  images: Array<{ choice: CrashChoice; fs: CrashModelFs }>;
  reported: ReadonlySet<string>;
}

/** The state a store starts from: `refs` written and made durable. */
async function prepared(refs: TaskRef[]): Promise<CrashModelFs> {
  const fs = new CrashModelFs(ROOT);
  const setup = fileStoreOver(fs, ROOT);
  for (const stored of refs) await setup.put(stored);
  await setup.close();
  fs.syncAll();
  return fs;
}

/**
 * Runs `writes` (named) on a store over `fs`, recording a crash point before every file operation and one at the
 * end. The store is opened (its lock taken) before recording starts.
 */
async function crashPoints(
  fs: CrashModelFs,
  writes: Record<string, (store: ReturnType<typeof fileStoreOver>) => Promise<void>>,
): Promise<CrashPoint[]> {
  const store = fileStoreOver(fs, ROOT);
  await store.open();
  const points: CrashPoint[] = [];
  const reported = new Set<string>();
  fs.beforeOperation = (operation, path) =>
    points.push({ at: `${operation} ${path}`, images: fs.crashImages(), reported: new Set(reported) });
  await Promise.all(
    Object.entries(writes).map(([name, write]) => write(store).then(() => reported.add(name))),
  );
  fs.beforeOperation = undefined;
  points.push({ at: "the end", images: fs.crashImages(), reported: new Set(reported) });
  await store.close();
  return points;
}

/** What a new store finds on a crash image: the refs by task id, and whether anything was moved aside. */
async function recovered(fs: CrashModelFs): Promise<{ refs: Map<string, TaskRef>; quarantined: string[] }> {
  const warnings: string[] = [];
  const store = fileStoreOver(fs, ROOT, { logger: { warn: (message: string) => warnings.push(message) } });
  const refs = new Map((await store.list()).map((found) => [found.taskId, found]));
  await store.close();
  return { refs, quarantined: warnings.filter((warning) => warning.includes("moved")) };
}

/**
 * Per task: the refs acceptable after a crash (undefined: not stored), and which one a reported write
 * guarantees.
 */
interface Expectation {
  before: TaskRef | undefined;
  after: TaskRef | undefined;
  /** The name of the write whose report guarantees `after`. */
  write: string;
}

async function checkEveryCrash(points: CrashPoint[], expected: Record<string, Expectation>): Promise<number> {
  let checked = 0;
  for (const { at, images, reported } of points) {
    for (const { choice, fs } of images) {
      const where = `crash before ${at} (${choice.entries} entries, ${choice.data} data)`;
      const { refs, quarantined } = await recovered(fs);
      expect(quarantined, `${where}: a torn ref`).toEqual([]);
      for (const [taskId, { before, after, write }] of Object.entries(expected)) {
        const found = refs.get(taskId);
        if (reported.has(write)) expect(found, `${where}: ${write} was reported`).toEqual(after);
        else expect([before, after], `${where}: ${taskId} is neither old nor new`).toContainEqual(found);
      }
      expect(refs.size, where).toBeLessThanOrEqual(Object.keys(expected).length);
      checked++;
    }
  }
  return checked;
}

describe("fileStore: a crash at any point of a write leaves the old ref or the new one", () => {
  it("a ref rewritten (input answered): old or new, never torn; new once put resolved", async () => {
    const fs = await prepared([ref("a")]);
    const points = await crashPoints(fs, { update: (store) => store.put(ref("a", ["q"])) });
    // temp open, write, fsync, close, rename, directory open, fsync, close: eight crash points and the end.
    expect(points.length).toBeGreaterThanOrEqual(9);
    const checked = await checkEveryCrash(points, {
      a: { before: ref("a"), after: ref("a", ["q"]), write: "update" },
    });
    expect(checked).toBe(points.length * 6);
  });

  it("a new ref: absent or whole; whole once put resolved", async () => {
    const fs = await prepared([]);
    const points = await crashPoints(fs, { create: (store) => store.put(ref("b")) });
    await checkEveryCrash(points, { b: { before: undefined, after: ref("b"), write: "create" } });
  });

  it("a ref removed: there or gone; gone once remove resolved", async () => {
    const fs = await prepared([ref("c")]);
    const points = await crashPoints(fs, { remove: (store) => store.remove(ref("c")) });
    await checkEveryCrash(points, { c: { before: ref("c"), after: undefined, write: "remove" } });
  });

  it("writes made at once (sharing a directory fsync): each old or new, each new once reported", async () => {
    const fs = await prepared([ref("a"), ref("gone")]);
    const points = await crashPoints(fs, {
      update: (store) => store.put(ref("a", ["q"])),
      create: (store) => store.put(ref("b")),
      second: (store) => store.put(ref("c")),
      remove: (store) => store.remove(ref("gone")),
    });
    await checkEveryCrash(points, {
      a: { before: ref("a"), after: ref("a", ["q"]), write: "update" },
      b: { before: undefined, after: ref("b"), write: "create" },
      c: { before: undefined, after: ref("c"), write: "second" },
      gone: { before: ref("gone"), after: undefined, write: "remove" },
    });
  });

  it("a write renamed while an earlier write's directory fsync runs waits for the next fsync", async () => {
    const fs = await prepared([]);
    fs.directorySyncTurns = 20; // long enough for a whole second write to happen meanwhile
    const points = await crashPoints(fs, {
      first: (store) => store.put(ref("a")),
      during: async (store) => {
        await fs.next("fsync-dir");
        await store.put(ref("b"));
      },
    });
    await checkEveryCrash(points, {
      a: { before: undefined, after: ref("a"), write: "first" },
      b: { before: undefined, after: ref("b"), write: "during" },
    });
    expect(fs.log.filter((operation) => operation.startsWith("fsync-dir"))).toHaveLength(2);
  });

  it("leaves no temporary file behind once a later list() ran after the crash", async () => {
    const fs = await prepared([ref("a")]);
    const points = await crashPoints(fs, { update: (store) => store.put(ref("a", ["q"])) });
    for (const { images } of points) {
      for (const { fs: image } of images) {
        await recovered(image);
        expect(image.names().filter((name) => name.startsWith(".tmp-"))).toEqual([]);
      }
    }
  });
});
