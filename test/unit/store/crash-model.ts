/**
 * An in-memory file system for `fileStoreOver` that knows what a power loss keeps. A file's data reaches the
 * disk only when the file is fsynced; a directory's entries (creations, renames, links, removals) only when the
 * directory is fsynced. Until then either may or may not have reached the disk, and data may be half written.
 * `crashImages()` gives every file system a crash at this instant may leave behind (for the choices below), so
 * a test can open a new store on each and check what survived.
 *
 * The model follows POSIX and the usual reading of ext4/xfs semantics: rename is atomic, fsync of a file says
 * nothing about the directory entry naming it, fsync of a directory makes durable the entries it held when the
 * fsync began. Every operation yields (setImmediate) so concurrent writers interleave.
 */
import { join } from "node:path";
import type { FileIo, FileIoHandle } from "../../../src/store/file-io.js";

interface Inode {
  /** What a read sees. */
  data: string;
  /** What is on the disk: the data as of the last fsync (undefined: never synced, so nothing). */
  durable: string | undefined;
  mtimeMs: number;
}

interface Directory {
  /** What a lookup sees. */
  entries: Map<string, Inode | Directory>;
  /** What is on the disk: the entries as of the last directory fsync. */
  durable: Map<string, Inode | Directory>;
}

/** How a crash treats what was not fsynced. */
export interface CrashChoice {
  /** Directories: only what was fsynced survives, or everything reached the disk anyway. */
  entries: "durable" | "current";
  /** File data: only what was fsynced, everything written, or the first half of what was written (torn). */
  data: "durable" | "current" | "torn";
}

export const CRASH_CHOICES: readonly CrashChoice[] = (["durable", "current"] as const).flatMap((entries) =>
  (["durable", "current", "torn"] as const).map((data) => ({ entries, data })),
);

function errno(code: string, path: string): Error {
  return Object.assign(new Error(`${code}: ${path}`), { code });
}

const isDirectory = (node: Inode | Directory | undefined): node is Directory =>
  node !== undefined && "entries" in node;

export class CrashModelFs implements FileIo {
  private readonly directories = new Map<string, Directory>();
  /** Called at the start of every operation, before it has any effect: a crash "now" loses it. */
  beforeOperation: ((operation: string, path: string) => void) | undefined;
  /** Every operation, in order (for a test's failure message). */
  readonly log: string[] = [];
  /** How many turns of the event loop a directory fsync takes (other writers run meanwhile). */
  directorySyncTurns = 1;
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(readonly root: string) {
    const top: Directory = { entries: new Map(), durable: new Map() };
    this.directories.set(root, top);
  }

  /* ---- FileIo --------------------------------------------------------------------------------------- */

  async open(path: string, flags: "w" | "wx" | "r"): Promise<FileIoHandle> {
    this.step("open:" + flags, path);
    const directory = this.directories.get(path);
    if (directory !== undefined) {
      if (flags !== "r") throw errno("EISDIR", path);
      return this.directoryHandle(directory);
    }
    const [parent, name] = this.parentOf(path);
    const existing = parent.entries.get(name);
    if (isDirectory(existing)) throw errno("EISDIR", path);
    let inode: Inode;
    if (flags === "r") {
      if (existing === undefined) throw errno("ENOENT", path);
      inode = existing;
    } else if (existing !== undefined) {
      if (flags === "wx") throw errno("EEXIST", path);
      inode = existing;
      inode.data = ""; // O_TRUNC: the same inode, emptied (not durable until fsynced)
      inode.mtimeMs = Date.now();
    } else {
      inode = { data: "", durable: undefined, mtimeMs: Date.now() };
      parent.entries.set(name, inode);
    }
    await tick();
    return this.fileHandle(path, inode);
  }

  async rename(from: string, to: string): Promise<void> {
    this.step("rename", `${from} -> ${to}`);
    const [source, name] = this.parentOf(from);
    const [target, newName] = this.parentOf(to);
    const node = source.entries.get(name);
    if (node === undefined) throw errno("ENOENT", from);
    source.entries.delete(name);
    target.entries.set(newName, node);
    await tick();
  }

  async link(existing: string, path: string): Promise<void> {
    this.step("link", `${existing} -> ${path}`);
    const [source, name] = this.parentOf(existing);
    const [target, newName] = this.parentOf(path);
    const node = source.entries.get(name);
    if (node === undefined || isDirectory(node)) throw errno("ENOENT", existing);
    if (target.entries.has(newName)) throw errno("EEXIST", path);
    target.entries.set(newName, node);
    await tick();
  }

  async unlink(path: string): Promise<void> {
    this.step("unlink", path);
    const [parent, name] = this.parentOf(path);
    if (!parent.entries.has(name)) throw errno("ENOENT", path);
    parent.entries.delete(name);
    await tick();
  }

  async mkdir(path: string): Promise<void> {
    this.step("mkdir", path);
    if (!this.directories.has(path)) {
      // Directories are made durable at once: the store's crash safety does not rest on them.
      const [parent, name] = this.parentOf(path);
      const made: Directory = { entries: new Map(), durable: new Map() };
      this.directories.set(path, made);
      parent.entries.set(name, made);
      parent.durable.set(name, made);
    }
    await tick();
  }

  async readdir(path: string): Promise<Array<{ name: string; isFile: boolean }>> {
    this.step("readdir", path);
    const directory = this.directories.get(path);
    if (directory === undefined) throw errno("ENOENT", path);
    await tick();
    return [...directory.entries].map(([name, node]) => ({ name, isFile: !isDirectory(node) }));
  }

  async readFile(path: string): Promise<string> {
    this.step("readFile", path);
    const [parent, name] = this.parentOf(path);
    const node = parent.entries.get(name);
    if (node === undefined || isDirectory(node)) throw errno("ENOENT", path);
    await tick();
    return node.data;
  }

  async stat(path: string): Promise<{ mtimeMs: number }> {
    this.step("stat", path);
    const [parent, name] = this.parentOf(path);
    const node = parent.entries.get(name);
    if (node === undefined) throw errno("ENOENT", path);
    await tick();
    return { mtimeMs: isDirectory(node) ? 0 : node.mtimeMs };
  }

  /* ---- The model ------------------------------------------------------------------------------------ */

  /** Makes everything durable (the state a test starts from). */
  syncAll(): void {
    for (const directory of this.directories.values()) {
      directory.durable = new Map(directory.entries);
      for (const node of directory.entries.values()) if (!isDirectory(node)) node.durable = node.data;
    }
  }

  /**
   * The file system a crash now would leave, for each choice. Lock files are left out: after a crash their
   * process is gone and the next one takes them over (the lock has tests of its own).
   */
  crashImages(): Array<{ choice: CrashChoice; fs: CrashModelFs }> {
    return CRASH_CHOICES.map((choice) => ({ choice, fs: this.afterCrash(choice) }));
  }

  /** The names in the store's directory, as a lookup sees them. */
  names(path = this.root): string[] {
    return [...(this.directories.get(path)?.entries.keys() ?? [])].sort();
  }

  /** A file's content, as a read sees it. */
  contentOf(path: string): string | undefined {
    const [parent, name] = this.parentOf(path);
    const node = parent.entries.get(name);
    return node === undefined || isDirectory(node) ? undefined : node.data;
  }

  private afterCrash(choice: CrashChoice): CrashModelFs {
    const image = new CrashModelFs(this.root);
    const copies = new Map<Inode, Inode>();
    const copyInode = (inode: Inode): Inode => {
      let copy = copies.get(inode);
      if (copy === undefined) {
        const kept = survivingData(inode, choice.data);
        copy = { data: kept, durable: kept, mtimeMs: inode.mtimeMs };
        copies.set(inode, copy);
      }
      return copy;
    };
    const copyDirectory = (path: string, directory: Directory): Directory => {
      const copy: Directory = { entries: new Map(), durable: new Map() };
      image.directories.set(path, copy);
      const entries = choice.entries === "durable" ? directory.durable : directory.entries;
      for (const [name, node] of entries) {
        if (name.startsWith(".lock")) continue;
        const kept = isDirectory(node) ? copyDirectory(join(path, name), node) : copyInode(node);
        copy.entries.set(name, kept);
        copy.durable.set(name, kept);
      }
      return copy;
    };
    const top = copyDirectory(this.root, this.directories.get(this.root) as Directory);
    image.directories.set(this.root, top);
    return image;
  }

  /** Resolves when an operation of this kind (`fsync-dir`, `rename`, ...) next begins. */
  next(operation: string): Promise<void> {
    return new Promise((resolve) => {
      const list = this.waiting.get(operation) ?? [];
      list.push(resolve);
      this.waiting.set(operation, list);
    });
  }

  private step(operation: string, path: string): void {
    this.log.push(`${operation} ${path}`);
    this.beforeOperation?.(operation, path);
    const waiting = this.waiting.get(operation);
    this.waiting.delete(operation);
    for (const resolve of waiting ?? []) resolve();
  }

  private parentOf(path: string): [Directory, string] {
    const cut = path.lastIndexOf("/");
    const parent = this.directories.get(path.slice(0, cut));
    if (parent === undefined) throw errno("ENOENT", path);
    return [parent, path.slice(cut + 1)];
  }

  private fileHandle(path: string, inode: Inode): FileIoHandle {
    return {
      write: async (data) => {
        this.step("write", path);
        inode.data += data;
        inode.mtimeMs = Date.now();
        await tick();
      },
      sync: async () => {
        this.step("fsync", path);
        const data = inode.data;
        await tick();
        inode.durable = data;
      },
      close: async () => {
        this.step("close", path);
        await tick();
      },
    };
  }

  private directoryHandle(directory: Directory): FileIoHandle {
    return {
      write: () => Promise.reject(errno("EISDIR", "directory")),
      sync: async () => {
        this.step("fsync-dir", this.root);
        const entries = new Map(directory.entries); // what the fsync covers: the entries as it begins
        for (let turn = 0; turn < this.directorySyncTurns; turn++) await tick();
        directory.durable = entries;
      },
      close: async () => {
        this.step("close-dir", this.root);
        await tick();
      },
    };
  }
}

function survivingData(inode: Inode, choice: CrashChoice["data"]): string {
  const durable = inode.durable ?? "";
  if (choice === "durable" || inode.data === durable) return durable;
  if (choice === "current") return inode.data;
  return inode.data.slice(0, Math.floor(inode.data.length / 2)); // torn: half of what was written
}

function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
