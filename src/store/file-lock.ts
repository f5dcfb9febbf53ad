/**
 * The lock that makes one process the owner of a `fileStore` directory: `.lock`, holding the owner's pid and a
 * random token. It is written whole to a temporary file and then hard-linked to `.lock` (a link fails when the
 * name exists), so taking it is atomic and nobody ever reads a half-written lock. A lock whose process is gone
 * is taken over; one process at a time does that (under `.lock.takeover`, taken the same way), and it removes
 * the old lock only if it is still the one it found stale, so two processes never both believe they own it.
 */
import { randomUUID } from "node:crypto";
import { join, resolve } from "node:path";
import { TaskStoreError } from "../protocol/errors.js";
import type { Logger } from "../protocol/logging.js";
import { isMissing, isTaken, processAlive, unlinkIfThere, withTempFile, type FileIo } from "./file-io.js";

/** Another live process holds the store directory. */
export class StoreLockedError extends TaskStoreError {
  static override readonly errorName: string = "StoreLockedError";
}

export const LOCK = ".lock";
const TAKEOVER = ".lock.takeover";
/** A lock without a readable pid (not written by this version) is left alone this long, then taken over. */
const UNREADABLE_STALE_MS = 10_000;
/** Taking over lasts a few file operations; a takeover lock older than this belongs to a process that died. */
const TAKEOVER_STALE_MS = 5_000;
const ATTEMPTS = 5;

export interface DirLock {
  /** Removes the lock, if it is still this one. */
  release(): Promise<void>;
}

interface Holder {
  pid: number | undefined;
  token: string | undefined;
  text: string;
  ageMs: number;
}

interface Registry {
  /** Tokens of the locks this process holds: a lock naming this pid but none of these is an earlier process's. */
  held: Set<string>;
  /** Per directory, the acquisition in progress: two stores of one process never race each other. */
  acquiring: Map<string, Promise<unknown>>;
}
const registry = ((globalThis as Record<symbol, unknown>)[Symbol.for("mcp-tasks.fileStore.locks")] ??= {
  held: new Set(),
  acquiring: new Map(),
}) as Registry;

/** Takes the lock of `dir` (created when missing), or rejects with `StoreLockedError`. */
export function lockDirectory(io: FileIo, dir: string, log: Logger): Promise<DirLock> {
  const key = resolve(dir);
  const before = registry.acquiring.get(key) ?? Promise.resolve();
  const attempt = before.then(() => acquire(io, dir, log));
  const settled = attempt.catch(() => undefined);
  registry.acquiring.set(key, settled);
  void settled.then(() => {
    if (registry.acquiring.get(key) === settled) registry.acquiring.delete(key);
  });
  return attempt;
}

async function acquire(io: FileIo, dir: string, log: Logger): Promise<DirLock> {
  await io.mkdir(dir);
  const path = join(dir, LOCK);
  const token = randomUUID();
  return withTempFile(io, dir, "lock", async (temp) => {
    const file = await io.open(temp, "wx");
    try {
      await file.write(`${process.pid}\n${token}\n`);
    } finally {
      await file.close();
    }
    try {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (await linkIfFree(io, temp, path)) {
          registry.held.add(token);
          return { release: () => release(io, path, token) };
        }
        const holder = await readHolder(io, path);
        if (holder === undefined) continue; // released meanwhile
        if (isLive(holder)) {
          const who =
            holder.pid === undefined ? "another process (it is being taken)" : `process ${holder.pid}`;
          throw new StoreLockedError(
            `fileStore: ${dir} is in use by ${who}; one process may use a store directory at a time`,
          );
        }
        await takeOver(io, dir, temp, holder, log);
      }
    } finally {
      await unlinkIfThere(io, temp);
    }
    throw new StoreLockedError(`fileStore: could not take the lock ${path}`);
  });
}

/**
 * Removes a stale lock: under the takeover lock, and only if `.lock` still holds what was judged stale (another
 * process may have taken it over and locked the directory since).
 */
async function takeOver(io: FileIo, dir: string, temp: string, stale: Holder, log: Logger): Promise<void> {
  const path = join(dir, LOCK);
  const guard = join(dir, TAKEOVER);
  if (!(await linkIfFree(io, temp, guard))) {
    const taker = await readHolder(io, guard);
    if (taker === undefined) return;
    const takerGone = taker.pid === process.pid || (taker.pid !== undefined && !processAlive(taker.pid));
    if (takerGone || taker.ageMs > TAKEOVER_STALE_MS) await unlinkIfThere(io, guard);
    else await new Promise((resolve) => setTimeout(resolve, 20)); // another process is taking over
    return;
  }
  try {
    const current = await readHolder(io, path);
    if (current?.text !== stale.text) return;
    const whose = stale.pid === undefined ? "a lock without a pid" : `process ${stale.pid}`;
    log.warn(`fileStore: taking over ${path} from ${whose}, which is gone`);
    await unlinkIfThere(io, path);
  } finally {
    await unlinkIfThere(io, guard);
  }
}

/**
 * Whether the lock's holder may still be using the directory. A lock naming this pid is live only if this
 * process took it (else an earlier process with the same pid left it); an unreadable one only while it is young.
 */
function isLive(holder: Holder): boolean {
  if (holder.pid === undefined) return holder.ageMs < UNREADABLE_STALE_MS;
  if (holder.pid === process.pid) return holder.token !== undefined && registry.held.has(holder.token);
  return processAlive(holder.pid);
}

async function release(io: FileIo, path: string, token: string): Promise<void> {
  registry.held.delete(token);
  const holder = await readHolder(io, path);
  if (holder?.token === token) await unlinkIfThere(io, path);
}

async function linkIfFree(io: FileIo, from: string, to: string): Promise<boolean> {
  try {
    await io.link(from, to);
    return true;
  } catch (error) {
    if (isTaken(error)) return false;
    throw error;
  }
}

/** The lock at `path`, or undefined when there is none. */
async function readHolder(io: FileIo, path: string): Promise<Holder | undefined> {
  try {
    const [text, stat] = await Promise.all([io.readFile(path), io.stat(path)]);
    const [pidLine, token] = text.split("\n");
    const pid = /^\d+$/.test(pidLine ?? "") ? Number(pidLine) : undefined;
    return { pid, token: token || undefined, text, ageMs: Date.now() - stat.mtimeMs };
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}
