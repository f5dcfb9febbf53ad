/**
 * `fileStore`: one file per task, written atomically, readable by the next process; one process per
 * directory; corrupt, foreign and expired files never crash it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync, existsSync, readFileSync } from "node:fs";
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
    writeFileSync(join(dir, ".tmp-1-1-half.json"), "{");

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
    const child = spawn(process.execPath, ["-e", ""]);
    const pid = child.pid as number;
    await new Promise((resolve) => child.on("exit", resolve));
    writeFileSync(join(dir, ".lock"), `${pid}\n`);
    const warn = vi.fn();
    const made = store(dir, { logger: { warn } });
    await made.put(ref("x"));
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("which is gone"));
    expect(readFileSync(join(dir, ".lock"), "utf8")).toBe(`${process.pid}\n`);
    await made.close();
    expect(existsSync(join(dir, ".lock"))).toBe(false);
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
