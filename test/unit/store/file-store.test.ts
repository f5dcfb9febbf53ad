/**
 * `fileStore`: one file per task, written atomically, readable by the next process; one process per
 * directory; corrupt, foreign and expired files never crash it.
 */
import { spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  statSync,
  writeFileSync,
  readFileSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { TaskRef } from "mcp-tasks";
import { StoreLockedError, fileStore, memoryStore } from "mcp-tasks/store";

const server = { url: "http://127.0.0.1:9/mcp", name: "ref", protocolVersion: "2026-07-28" };

function ref(taskId: string, fields: Partial<TaskRef> = {}): TaskRef {
  return { v: 1, taskId, server, method: "tools/call", toolName: "t", answeredInputKeys: [], ...fields };
}

const opened: { close(): Promise<void> }[] = [];
function store(dir: string, options: Parameters<typeof fileStore>[1] = {}) {
  const made = fileStore(dir, options);
  opened.push(made);
  return made;
}

afterEach(async () => {
  for (const made of opened.splice(0)) await made.close();
});

const tempDir = () => mkdtempSync(join(tmpdir(), "mcp-tasks-store-"));

describe("fileStore", () => {
  it("keeps one file per task; a new store on the directory lists what the last one wrote", async () => {
    const dir = tempDir();
    const first = store(dir);
    await first.put(ref("a"));
    await first.put(ref("b"));
    await first.put(ref("a", { answeredInputKeys: ["q"] }));
    await first.remove(ref("b"));
    await first.remove(ref("never-stored"));
    await first.close();

    const files = readdirSync(dir).filter((name) => name.endsWith(".json"));
    expect(files).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(dir, files[0] as string), "utf8"))).toMatchObject({
      ref: { taskId: "a" },
    });
    expect(files[0]).not.toContain("a.json"); // names are hashes: task ids are secrets

    const second = store(dir);
    await expect(second.list()).resolves.toEqual([ref("a", { answeredInputKeys: ["q"] })]);
  });

  it("lists only the refs of the server asked about", async () => {
    const dir = tempDir();
    const made = store(dir);
    await made.put(ref("here"));
    await made.put(ref("there", { server: { ...server, url: "http://127.0.0.1:10/mcp" } }));
    const refs = await made.list(server);
    expect(refs.map((r) => r.taskId)).toEqual(["here"]);
  });

  it("moves a corrupt or foreign file aside with a warning and keeps going", async () => {
    const dir = tempDir();
    const warn = vi.fn();
    const made = store(dir, { logger: { warn } });
    await made.put(ref("good"));
    writeFileSync(
      join(dir, "0123456789abcdef0123456789abcdef.json"),
      '{"format":"mcp-tasks/task-ref","ref":',
    );
    writeFileSync(join(dir, "notes.txt"), "someone else's file");
    writeFileSync(join(dir, `.tmp-${await deadPid()}-1-half.json`), "{"); // its writer is gone

    const refs = await made.list();
    expect(refs.map((r) => r.taskId)).toEqual(["good"]);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(readdirSync(join(dir, "quarantine"))).toHaveLength(2);
    expect(readdirSync(dir).filter((name) => name.startsWith(".tmp-"))).toEqual([]);
  });

  it("prunes refs past createdAt + ttlMs plus the grace", async () => {
    const dir = tempDir();
    const made = store(dir, { pruneGraceMs: 1000 });
    const old = new Date(Date.now() - 10_000).toISOString();
    await made.put(ref("expired", { createdAt: old, ttlMs: 5000 }));
    await made.put(ref("alive", { createdAt: old, ttlMs: 60_000 }));
    await made.put(ref("forever", { createdAt: old, ttlMs: null }));
    const refs = await made.list();
    expect(refs.map((r) => r.taskId).sort()).toEqual(["alive", "forever"]);
    expect(readdirSync(dir).filter((name) => name.endsWith(".json"))).toHaveLength(2);
  });

  it("refuses a second owner of the directory while the first lives, with a clear error", async () => {
    const dir = tempDir();
    await store(dir).open();
    const second = store(dir);
    await expect(second.open()).rejects.toThrow(StoreLockedError);
    await expect(second.put(ref("x"))).rejects.toThrow(/in use by process \d+/);
  });

  it("takes over the lock of a process that is gone", async () => {
    const dir = tempDir();
    const pid = await deadPid();
    writeFileSync(join(dir, ".lock"), `${pid}\n`);
    const warn = vi.fn();
    const made = store(dir, { logger: { warn } });
    await made.put(ref("x"));
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(`from process ${pid}, which is gone`));
    expect(readFileSync(join(dir, ".lock"), "utf8")).toMatch(new RegExp(`^${process.pid}\n[0-9a-f-]{36}\n$`));
    await made.close();
    expect(readdirSync(dir).filter((name) => name.startsWith(".lock"))).toEqual([]);
  });

  it("does not take over a lock without a pid while it is young (being written); takes it once old", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, ".lock"), ""); // how a lock looked while an earlier version was writing it
    const warn = vi.fn();
    await expect(store(dir, { logger: { warn } }).open()).rejects.toThrow(
      /in use by another process \(it is being taken\)/,
    );
    expect(readFileSync(join(dir, ".lock"), "utf8")).toBe("");
    expect(warn).not.toHaveBeenCalled();

    const aMinuteAgo = new Date(Date.now() - 60_000);
    utimesSync(join(dir, ".lock"), aMinuteAgo, aMinuteAgo);
    const made = store(dir, { logger: { warn } });
    await made.open();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("from a lock without a pid, which is gone"));
    expect(readFileSync(join(dir, ".lock"), "utf8")).toMatch(new RegExp(`^${process.pid}\n`));
  });

  it("takes over a lock naming this process's pid that this process never took (an earlier process's)", async () => {
    // In a container every start may get the same pid: the lock a crashed run left then names "us".
    const dir = tempDir();
    writeFileSync(join(dir, ".lock"), `${process.pid}\n`);
    const warn = vi.fn();
    const made = store(dir, { logger: { warn } });
    await made.put(ref("x"));
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(`from process ${process.pid}, which is gone`));
    // A lock this process did take still keeps a second store of it out.
    await expect(store(dir).open()).rejects.toThrow(StoreLockedError);
  });

  it("a failed open holds nothing: after the owner closes, the same store opens", async () => {
    const dir = tempDir();
    const owner = store(dir);
    await owner.open();
    const waiting = store(dir);
    await expect(waiting.open()).rejects.toThrow(StoreLockedError);
    await owner.close();
    await waiting.put(ref("x"));
    expect((await waiting.list()).map((r) => r.taskId)).toEqual(["x"]);
  });

  it("list() removes temporary files their writers abandoned, and no other", async () => {
    const dir = tempDir();
    const made = store(dir);
    await made.open();
    const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000);
    const temp = (pid: number, what: string) => join(dir, `.tmp-${pid}-1-${what}.json`);
    writeFileSync(temp(await deadPid(), "dead-writer"), "{");
    writeFileSync(temp(process.pid, "earlier-process-with-our-pid"), "{");
    // process.ppid is alive: the vitest process that started this one.
    writeFileSync(temp(process.ppid, "live-writer"), "{");
    writeFileSync(temp(process.ppid, "live-but-old"), "{");
    utimesSync(temp(process.ppid, "live-but-old"), elevenMinutesAgo, elevenMinutesAgo);
    await made.list();
    expect(readdirSync(dir).filter((name) => name.startsWith(".tmp-"))).toEqual([
      `.tmp-${process.ppid}-1-live-writer.json`,
    ]);
  });

  it("list() while puts are on their way never removes their temporary files: every put lands", async () => {
    const dir = tempDir();
    const made = store(dir);
    const puts = Array.from({ length: 200 }, (_, index) => made.put(ref(`t${index}`)));
    let settled = 0;
    const count = () => void settled++;
    for (const put of puts) void put.then(count, count);
    let lists = 0;
    for (; settled < puts.length; lists++) await made.list(); // one after another, as an adoption loop does
    const results = await Promise.allSettled(puts);
    expect(results.filter((result) => result.status === "rejected")).toEqual([]);
    expect(lists).toBeGreaterThan(1);
    expect(await made.list()).toHaveLength(200);
  });
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid as number;
}

describe("fileStore permissions", () => {
  it("writes refs, the lock and the quarantine readable by this user only, under umask 022", async () => {
    const previous = process.umask(0o022);
    try {
      const dir = join(tempDir(), "store"); // created by the store
      const made = store(dir, { logger: { warn: () => undefined } });
      await made.put(ref("secret", { pendingInputAnswers: { password: { action: "accept" } } }));
      writeFileSync(join(dir, "0".repeat(32) + ".json"), "not json"); // a file the store moves aside
      await made.list();
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, "quarantine")).mode & 0o777).toBe(0o700);
      const files = readdirSync(dir).filter((name) => name !== "quarantine" && !name.startsWith("0"));
      expect(files.sort()).toEqual([".lock", expect.stringMatching(/^[0-9a-f]{32}\.json$/)]);
      for (const name of files) expect(statSync(join(dir, name)).mode & 0o777, name).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });

  it("warns about an existing directory other users may read, and leaves its mode to its owner", async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const warn = vi.fn();
    await store(dir, { logger: { warn } }).put(ref("a"));
    expect(warn).toHaveBeenCalledWith(
      `fileStore: other users may read ${dir} (mode 0755); its refs hold task ids, server URLs and input answers: make it private (chmod 700)`,
    );
    expect(statSync(dir).mode & 0o777).toBe(0o755);

    // The group's bits count as much as everybody's.
    for (const [shown, bits] of [
      ["0750", 0o750],
      ["0770", 0o770],
    ] as const) {
      const groupDir = tempDir();
      chmodSync(groupDir, bits);
      const heard = vi.fn();
      await store(groupDir, { logger: { warn: heard } }).put(ref("g"));
      expect(heard).toHaveBeenCalledWith(
        `fileStore: other users may read ${groupDir} (mode ${shown}); its refs hold task ids, server URLs and input answers: make it private (chmod 700)`,
      );
    }

    const quiet = vi.fn();
    const privateDir = tempDir(); // mkdtemp makes it 0700
    mkdirSync(join(privateDir, "sub"), { mode: 0o700 });
    await store(join(privateDir, "sub"), { logger: { warn: quiet } }).put(ref("b"));
    expect(quiet).not.toHaveBeenCalled();
  });
});

describe("memoryStore", () => {
  it("puts, lists by server, removes and prunes", async () => {
    const made = memoryStore({ pruneGraceMs: 0 });
    await made.put(ref("a"));
    await made.put(ref("old", { createdAt: new Date(0).toISOString(), ttlMs: 1 }));
    expect((await made.list(server)).map((r) => r.taskId)).toEqual(["a"]);
    await made.remove(ref("a"));
    expect(made.size).toBe(0);
  });
});
