/**
 * `fileStore(dir)`: one small JSON file per unfinished task. Every write is atomic and durable — write a
 * temporary file, fsync it, rename it into place, fsync the directory — so a process killed at any instant
 * leaves either the old ref or the new one, never half of either. One process owns a directory at a time
 * (a lock file holding its pid; a lock left by a dead process is taken over). A file the store cannot read is
 * moved aside into `quarantine/` with a warning, never a crash. Node only: exported from `mcp-tasks/store`.
 */
import { createHash } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { McpTasksError } from "../protocol/errors.js";
import { safeLogger, type Logger } from "../protocol/logging.js";
import { foreignServer, readTaskRef, type TaskRef } from "../task/ref.js";
import { DEFAULT_PRUNE_GRACE_MS, refExpired, refKey, type TaskStore } from "./types.js";

export interface FileStoreOptions {
  /** Where warnings go (a file moved aside, a stale lock taken over). Default: silent. */
  logger?: Partial<Logger>;
  /** Allowance past `createdAt + ttlMs` before a stored ref is pruned. Default 60000. */
  pruneGraceMs?: number;
  /** Skip fsync (tests and benchmarks only: a crash may then lose refs). Default false. */
  unsafeNoSync?: boolean;
}

/** Another live process holds the store directory. */
export class StoreLockedError extends McpTasksError {
  override name = "StoreLockedError";
}

const FORMAT = "mcp-tasks/task-ref";
const LOCK = ".lock";
const QUARANTINE = "quarantine";
const REF_FILE = /^[0-9a-f]{32}\.json$/;

/** A `TaskStore` whose `open` and `close` are always there. */
export type OpenableStore = TaskStore & { open(): Promise<void>; close(): Promise<void> };

/** A file store over `dir` (created when missing). It takes the directory's lock on first use or `open()`. */
export function fileStore(dir: string, options: FileStoreOptions = {}): OpenableStore {
  return new FileStore(dir, options);
}

class FileStore implements TaskStore {
  private readonly log: Logger;
  private readonly grace: number;
  private opening: Promise<void> | undefined;
  private closed = false;
  private seq = 0;
  /** The directory fsync in progress, and the one that writers renamed since it began are waiting for. */
  private dirSyncRunning: Promise<void> | undefined;
  private dirSyncQueued: Promise<void> | undefined;

  constructor(
    private readonly dir: string,
    private readonly options: FileStoreOptions,
  ) {
    this.log = safeLogger(options.logger);
    this.grace = options.pruneGraceMs ?? DEFAULT_PRUNE_GRACE_MS;
  }

  open(): Promise<void> {
    if (this.closed) return Promise.reject(new McpTasksError(`fileStore(${this.dir}) is closed`));
    this.opening ??= this.lock();
    return this.opening;
  }

  async put(ref: TaskRef): Promise<void> {
    await this.open();
    const name = fileName(ref);
    const body = JSON.stringify({ format: FORMAT, ref });
    const temp = join(this.dir, `.tmp-${process.pid}-${++this.seq}-${name}`);
    const file = await open(temp, "w");
    try {
      await file.writeFile(body);
      if (!this.options.unsafeNoSync) await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, join(this.dir, name));
    await this.syncDir();
  }

  async remove(ref: TaskRef): Promise<void> {
    await this.open();
    if (await unlinkIfThere(join(this.dir, fileName(ref)))) await this.syncDir();
  }

  async list(server?: TaskRef["server"]): Promise<TaskRef[]> {
    await this.open();
    const found: TaskRef[] = [];
    const now = Date.now();
    for (const entry of await readdir(this.dir, { withFileTypes: true })) {
      const name = entry.name;
      if (!entry.isFile() || name === LOCK) continue;
      const path = join(this.dir, name);
      if (name.startsWith(".tmp-")) {
        await unlinkIfThere(path); // a write that never got renamed into place (we hold the lock)
        continue;
      }
      const ref = await this.read(name);
      if (ref === undefined) continue;
      if (refExpired(ref, now, this.grace)) await unlinkIfThere(path);
      else if (server === undefined || foreignServer(ref, server) === undefined) found.push(ref);
    }
    return found;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const opened = await this.opening?.then(
      () => true,
      () => false,
    );
    if (opened) await unlinkIfThere(join(this.dir, LOCK));
  }

  /** A stored ref, or undefined after moving an unreadable or foreign file aside. */
  private async read(name: string): Promise<TaskRef | undefined> {
    let problem: string;
    try {
      const stored = JSON.parse(await readFile(join(this.dir, name), "utf8")) as {
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
      await mkdir(aside, { recursive: true });
      await rename(join(this.dir, name), target);
    } catch (error) {
      this.log.warn(`fileStore: could not move ${name} aside`, error);
    }
  }

  /** Creates the directory and takes its lock; a lock whose process is gone is taken over. */
  private async lock(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, LOCK);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const file = await open(path, "wx");
        await file.writeFile(`${process.pid}\n`);
        await file.close();
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10);
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new StoreLockedError(
          `fileStore: ${this.dir} is in use by process ${holder}; one process may use a store directory at a time`,
        );
      }
      this.log.warn(`fileStore: taking over ${path} from process ${String(holder)}, which is gone`);
      await unlinkIfThere(path);
    }
    throw new StoreLockedError(`fileStore: could not take the lock ${path}`);
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
    const handle = await open(this.dir, "r");
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

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function unlinkIfThere(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
