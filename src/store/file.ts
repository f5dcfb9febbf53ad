/**
 * `fileStore(dir)`: one small JSON file per unfinished task. A write goes to a temporary file, is fsynced,
 * renamed over the task's file, and the directory is fsynced before `put` resolves: a process killed at any
 * instant, or a power loss after `put` resolved, leaves the old ref or the new one, never a torn one (what the
 * tests prove is listed in docs/durable-tasks.md). One process owns a directory at a time (see file-lock.ts). A file the
 * store cannot read is moved aside into `quarantine/` with a warning, never a crash. Node only: exported from
 * `mcp-tasks/store`.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { TaskStoreError } from "../protocol/errors.js";
import { safeLogger, type Logger } from "../protocol/logging.js";
import { storedRefOf, readTaskRef, type TaskRef } from "../task/ref.js";
import { DEFAULT_PRUNE_GRACE_MS, refExpired, refKey, type TaskStore } from "./types.js";
import {
  abandonedTemp,
  isTempName,
  nodeFileIo,
  unlinkIfThere,
  withTempFile,
  type FileIo,
} from "./file-io.js";
import { LOCK, StoreLockedError, lockDirectory, type DirLock } from "./file-lock.js";

export { StoreLockedError };

/** Options of `fileStore`. */
export interface FileStoreOptions {
  /** Where warnings go (a file moved aside, a stale lock taken over). Default: silent. */
  logger?: Partial<Logger>;
  /** Allowance past `createdAt + ttlMs` before a stored ref is pruned. Default 60000. */
  pruneGraceMs?: number;
  /** Skip fsync (tests and benchmarks only: a crash may then lose refs). Default false. */
  unsafeNoSync?: boolean;
}

const FORMAT = "mcp-tasks/task-ref";
const QUARANTINE = "quarantine";
const REF_FILE = /^[0-9a-f]{32}\.json$/;

/** A `TaskStore` whose `open` and `close` are always there. */
export type OpenableStore = TaskStore & { open(): Promise<void>; close(): Promise<void> };

/** A file store over `dir` (created when missing). It takes the directory's lock on first use or `open()`. */
export function fileStore(dir: string, options: FileStoreOptions = {}): OpenableStore {
  return new FileStore(dir, options, nodeFileIo);
}

/**
 * A file store doing its file operations through `io` (tests inject faults and model power loss this way).
 * @internal
 */
export function fileStoreOver(io: FileIo, dir: string, options: FileStoreOptions = {}): OpenableStore {
  return new FileStore(dir, options, io);
}

class FileStore implements TaskStore {
  private readonly log: Logger;
  private readonly grace: number;
  private opening: Promise<DirLock> | undefined;
  private closed = false;
  /** The directory fsync in progress, and the one that writers renamed since it began are waiting for. */
  private dirSyncRunning: Promise<void> | undefined;
  private dirSyncQueued: Promise<void> | undefined;

  constructor(
    private readonly dir: string,
    private readonly options: FileStoreOptions,
    private readonly io: FileIo,
  ) {
    this.log = safeLogger(options.logger);
    this.grace = options.pruneGraceMs ?? DEFAULT_PRUNE_GRACE_MS;
  }

  /** Takes the directory's lock. A failed attempt holds nothing and may be tried again. */
  async open(): Promise<void> {
    if (this.closed) throw new TaskStoreError(`fileStore(${this.dir}) is closed`);
    this.opening ??= lockDirectory(this.io, this.dir, this.log).then(async (lock) => {
      await this.warnIfShared();
      return lock;
    });
    const opening = this.opening;
    try {
      await opening;
    } catch (error) {
      if (this.opening === opening) this.opening = undefined;
      throw error;
    }
  }

  /**
   * Warns when the directory lets other users in (group or other permission bits): its refs hold task ids,
   * server URLs and input answers. A directory the store creates is 0700; an existing one is the caller's, so
   * it is not changed. Never throws: this is advice.
   */
  private async warnIfShared(): Promise<void> {
    if (process.platform === "win32") return; // modes are not what protects a file there
    try {
      const { mode } = await this.io.stat(this.dir);
      if (mode === undefined || (mode & 0o077) === 0) return;
      const bits = `0${(mode & 0o777).toString(8)}`;
      this.log.warn(
        `fileStore: other users may read ${this.dir} (mode ${bits}); its refs hold task ids, server URLs and ` +
          "input answers: make it private (chmod 700)",
      );
    } catch {
      // no advice then
    }
  }

  /** Temporary file, fsync, rename over the ref's file, directory fsync; rejects if any step failed. */
  async put(ref: TaskRef): Promise<void> {
    await this.open();
    const name = fileName(ref);
    const body = JSON.stringify({ format: FORMAT, ref });
    await withTempFile(this.io, this.dir, name, async (temp) => {
      const file = await this.io.open(temp, "w");
      try {
        await file.write(body);
        if (!this.options.unsafeNoSync) await file.sync();
      } finally {
        await file.close();
      }
      await this.io.rename(temp, join(this.dir, name));
    });
    await this.syncDir();
  }

  async remove(ref: TaskRef): Promise<void> {
    await this.open();
    if (await unlinkIfThere(this.io, join(this.dir, fileName(ref)))) await this.syncDir();
  }

  /**
   * Reads every ref. Along the way it moves unreadable files aside, deletes expired refs, and deletes temporary
   * files their writers abandoned (never one being written: see `abandonedTemp`).
   */
  async list(server?: TaskRef["server"]): Promise<TaskRef[]> {
    await this.open();
    const found: TaskRef[] = [];
    const now = Date.now();
    for (const { name, isFile } of await this.io.readdir(this.dir)) {
      if (!isFile || name.startsWith(LOCK)) continue;
      const path = join(this.dir, name);
      if (isTempName(name)) {
        if (await abandonedTemp(this.io, this.dir, name, now)) await unlinkIfThere(this.io, path);
        continue;
      }
      const ref = await this.read(name);
      if (ref === undefined) continue;
      if (refExpired(ref, now, this.grace)) await unlinkIfThere(this.io, path);
      else if (server === undefined || storedRefOf(ref, server)) found.push(ref);
    }
    return found;
  }

  /** Removes the lock (if this store took it). Later calls are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const lock = await this.opening?.catch(() => undefined);
    await lock?.release();
  }

  /** A stored ref, or undefined after moving an unreadable or foreign file aside. */
  private async read(name: string): Promise<TaskRef | undefined> {
    let problem: string;
    try {
      const stored = JSON.parse(await this.io.readFile(join(this.dir, name))) as {
        format?: unknown;
        ref?: unknown;
      };
      if (stored?.format !== FORMAT) problem = "not a task ref written by mcp-tasks";
      else {
        const ref = readTaskRef(stored.ref);
        if (REF_FILE.test(name) && fileName(ref) === name) return ref;
        problem = "its name does not match the ref it holds";
      }
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    await this.quarantine(name, problem);
    return undefined;
  }

  private async quarantine(name: string, problem: string): Promise<void> {
    const aside = join(this.dir, QUARANTINE);
    const target = join(aside, `${name}.${Date.now()}`);
    this.log.warn(`fileStore: moved ${name} aside to ${target}: ${problem}`);
    try {
      await this.io.mkdir(aside);
      await this.io.rename(join(this.dir, name), target);
    } catch (error) {
      this.log.warn(`fileStore: could not move ${name} aside`, error);
    }
  }

  /**
   * Makes every rename done so far durable. Concurrent writers share one directory fsync (group commit): a caller
   * joins the fsync queued behind the running one, which starts only after its rename, so no write is reported
   * durable before an fsync that covers it.
   */
  private syncDir(): Promise<void> {
    if (this.options.unsafeNoSync) return Promise.resolve();
    this.dirSyncQueued ??= (async () => {
      await this.dirSyncRunning?.catch(() => undefined);
      this.dirSyncQueued = undefined; // renames from here on need a later fsync
      const running = this.fsyncDir();
      this.dirSyncRunning = running;
      try {
        await running;
      } finally {
        if (this.dirSyncRunning === running) this.dirSyncRunning = undefined;
      }
    })();
    return this.dirSyncQueued;
  }

  private async fsyncDir(): Promise<void> {
    const handle = await this.io.open(this.dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

/** One file per server and task id; the name is a hash so task ids (secrets) never appear in file names. */
function fileName(ref: TaskRef): string {
  return `${createHash("sha256").update(refKey(ref)).digest("hex").slice(0, 32)}.json`;
}
