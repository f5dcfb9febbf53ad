/**
 * The file operations `fileStore` performs, one call per system call that matters for durability (open, write,
 * fsync, rename, link, unlink). The store goes through this seam so tests can stop it between any two of them
 * and model what a power loss would keep; the Node implementation is a thin layer over `node:fs/promises`.
 */
import { link, mkdir, open, readdir, readFile, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";

export interface FileIoHandle {
  /** Writes `data` at the current position. */
  write(data: string): Promise<void>;
  /** fsync: the file's data (or a directory's entries) reach the disk. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface FileIo {
  /**
   * `"w"` creates (readable by this user only) or truncates, `"wx"` fails with EEXIST when the file exists, `"r"`
   * opens (a directory too).
   */
  open(path: string, flags: "w" | "wx" | "r"): Promise<FileIoHandle>;
  /** Atomically replaces `to` with `from`. */
  rename(from: string, to: string): Promise<void>;
  /** A second name for `existing`; fails with EEXIST when `path` exists (the atomic test-and-set of the lock). */
  link(existing: string, path: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Creates the directory and its parents (private to this user); an existing one is fine and left as it is. */
  mkdir(path: string): Promise<void>;
  readdir(path: string): Promise<Array<{ name: string; isFile: boolean }>>;
  readFile(path: string): Promise<string>;
  /** `mode` when the file system has one (the permission bits, POSIX). */
  stat(path: string): Promise<{ mtimeMs: number; mode?: number }>;
}

const PRIVATE_FILE = 0o600;
const PRIVATE_DIRECTORY = 0o700;

export const nodeFileIo: FileIo = {
  open: async (path, flags) => {
    const handle = await open(path, flags, PRIVATE_FILE);
    return {
      write: (data) => handle.writeFile(data),
      sync: () => handle.sync(),
      close: () => handle.close(),
    };
  },
  rename,
  link,
  unlink,
  mkdir: async (path) => {
    await mkdir(path, { recursive: true, mode: PRIVATE_DIRECTORY });
  },
  readdir: async (path) =>
    (await readdir(path, { withFileTypes: true })).map((entry) => ({
      name: entry.name,
      isFile: entry.isFile(),
    })),
  readFile: (path) => readFile(path, "utf8"),
  stat,
};

/** Whether a failed file operation failed because the file is not there. */
export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

/** Whether a failed file operation failed because the name is taken. */
export function isTaken(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "EEXIST";
}

/** Removes `path`; true when it was there. */
export async function unlinkIfThere(io: FileIo, path: string): Promise<boolean> {
  try {
    await io.unlink(path);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

/** Whether the process with this pid exists on this machine (EPERM: it exists, owned by another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/* ---- Temporary files: `.tmp-<pid>-<n>-<what>`, written in full, then renamed or linked into place ---------- */

const TEMP = ".tmp-";
/** An abandoned temporary file of a live process other than this one is removed only after this long. */
export const TEMP_STALE_MS = 10 * 60_000;

/** Temporary files this process is writing, by path; shared by every copy of this module in the process. */
const writing: Set<string> = ((globalThis as Record<symbol, unknown>)[
  Symbol.for("mcp-tasks.fileStore.writing")
] ??= new Set<string>()) as Set<string>;
let sequence = 0;

/** Whether a directory entry is a temporary file. */
export function isTempName(name: string): boolean {
  return name.startsWith(TEMP);
}

/**
 * Runs `use` with a fresh temporary path in `dir`, known to this process as in flight until `use` settles. When
 * `use` fails, the file is removed (a failure to remove it is ignored: `list()` removes it later).
 */
export async function withTempFile<T>(
  io: FileIo,
  dir: string,
  what: string,
  use: (path: string) => Promise<T>,
): Promise<T> {
  const path = join(dir, `${TEMP}${process.pid}-${++sequence}-${what}`);
  writing.add(path);
  try {
    return await use(path);
  } catch (error) {
    await unlinkIfThere(io, path).catch(() => undefined);
    throw error;
  } finally {
    writing.delete(path);
  }
}

/**
 * Whether the temporary file `name` in `dir` was abandoned by its writer: never one this process is writing;
 * one of this pid that is not in flight (left by an earlier process that had the same pid, common in
 * containers); one of a process that is gone; or one older than `TEMP_STALE_MS`.
 */
export async function abandonedTemp(io: FileIo, dir: string, name: string, now: number): Promise<boolean> {
  const path = join(dir, name);
  if (writing.has(path)) return false;
  const pid = Number(/^\.tmp-(\d+)-/.exec(name)?.[1]);
  if (pid === process.pid) return true;
  if (Number.isSafeInteger(pid) && pid > 0 && !processAlive(pid)) return true;
  try {
    return now - (await io.stat(path)).mtimeMs > TEMP_STALE_MS;
  } catch (error) {
    if (isMissing(error)) return false; // renamed into place meanwhile
    throw error;
  }
}
