/**
 * The command's task store. Every task started from the command line is written here, so `ls`, `watch` and
 * `cancel` work from another shell and after a reboot. `fileStore` lets one process own a directory; several
 * `mcp-tasks` processes share this one by taking its lock only for the length of each read or write (and
 * waiting briefly while another holds it).
 *
 * Beside each ref the command keeps a note in `cli/` (the latest status it saw, for `ls`, and the stdio command
 * the task's server was started with). Notes are the command's own: a ref holds only `TaskRef` fields (a ref read
 * from anywhere is cut down to them), and a note is believed only from a private file of this user, so neither a
 * ref passed around nor a file another user planted can name a command for `watch` to start. The directory is
 * kept private (0700; a wider one of this user is narrowed, with a warning), the files are 0600.
 */
import { createHash } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileStore, StoreLockedError } from "../store/index.js";
import { refKey } from "../store/types.js";
import type { TaskRef } from "../index.js";
import type { TaskStore } from "../store/index.js";
import {
  mode,
  NotPrivateError,
  privateDirectory,
  readPrivateFile,
  writePrivateFile,
} from "./private-files.js";

/** What `ls` shows beside the ref: the latest status this command saw, and the stdio command if any. */
export interface CliNote {
  status?: string;
  statusMessage?: string;
  updatedAt?: string;
  /** The stdio server command the task was started with (`call … -- <command>`). */
  command?: string[];
}

export type NotedRef = TaskRef & { cli?: CliNote };

/** The default directory: `$XDG_STATE_HOME/mcp-tasks`, or the platform's equivalent. */
export function defaultStoreDir(env = process.env, platform = process.platform, home = homedir()): string {
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, "mcp-tasks");
  if (platform === "darwin") return join(home, "Library", "Application Support", "mcp-tasks");
  if (platform === "win32") return join(env.LOCALAPPDATA ?? join(home, "AppData", "Local"), "mcp-tasks");
  return join(home, ".local", "state", "mcp-tasks");
}

const LOCK_WAIT_MS = 20;
const LOCK_ATTEMPTS = 150; // about three seconds in all
const NOTES = "cli";
const NOTE_FORMAT = "mcp-tasks/cli-note";

export class CliStore implements TaskStore {
  private tail: Promise<unknown> = Promise.resolve();
  /** The refs this process wrote or follows and has not removed, with their notes, by task id. */
  private readonly mine = new Map<string, { ref: TaskRef; note: CliNote }>();
  private madePrivate = false;

  /**
   * @param command the stdio server command of this run, noted with every task it creates
   * @param warn where a narrowed directory or an ignored note is reported
   */
  constructor(
    readonly dir: string,
    private readonly command?: string[],
    private readonly warn: (text: string) => void = () => undefined,
  ) {}

  put(ref: TaskRef): Promise<void> {
    const previous = this.mine.get(ref.taskId);
    const note: CliNote = previous?.note ?? (this.command ? { command: this.command } : {});
    this.mine.set(ref.taskId, { ref, note });
    return this.briefly(async (store) => {
      await store.put(ref);
      if (previous === undefined && note.command !== undefined) this.writeNote(ref, note);
    });
  }

  remove(ref: TaskRef): Promise<void> {
    this.mine.delete(ref.taskId);
    return this.briefly(async (store) => {
      await store.remove(ref);
      rmSync(this.notePath(ref), { force: true });
    });
  }

  /** The stored refs, each with the command's note when there is a private one. */
  list(server?: TaskRef["server"]): Promise<NotedRef[]> {
    return this.briefly(async (store) => {
      const refs = await store.list(server);
      if (server === undefined) this.dropOrphanNotes(refs);
      return refs.map((ref) => {
        const note = this.readNote(ref);
        return note === undefined ? ref : { ...ref, cli: note };
      });
    });
  }

  /** Notes statuses of a stored task this process follows without having created it (`watch`). */
  follows(ref: NotedRef): void {
    if (this.mine.has(ref.taskId)) return;
    const { cli, ...plain } = ref;
    this.mine.set(ref.taskId, { ref: plain, note: cli ?? {} });
  }

  /** Records the latest status of a task this process stored (ignored once it is removed). */
  note(taskId: string, status: string, statusMessage: string | undefined): Promise<void> {
    const entry = this.mine.get(taskId);
    if (entry === undefined || (entry.note.status === status && entry.note.statusMessage === statusMessage)) {
      return Promise.resolve();
    }
    const note: CliNote = { ...entry.note, status, updatedAt: new Date().toISOString() };
    if (statusMessage !== undefined) note.statusMessage = statusMessage;
    else delete note.statusMessage;
    const noted = { ref: entry.ref, note };
    this.mine.set(taskId, noted);
    return this.briefly(() => {
      if (this.mine.get(taskId) === noted) this.writeNote(noted.ref, note);
      return undefined;
    });
  }

  /** Runs one operation holding the directory lock, in order with this process's other operations. */
  private briefly<T>(operation: (store: TaskStore) => Promise<T> | undefined): Promise<T> {
    const run = this.tail.then(async () => {
      this.makePrivate();
      for (let attempt = 1; ; attempt++) {
        const store = fileStore(this.dir);
        try {
          await store.open();
          return (await operation(store)) as T;
        } catch (error) {
          if (!(error instanceof StoreLockedError) || attempt >= LOCK_ATTEMPTS) throw error;
        } finally {
          await store.close();
        }
        await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_MS));
      }
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Creates the store and notes directories 0700, or narrows them to that (once per process). */
  private makePrivate(): void {
    if (this.madePrivate) return;
    for (const dir of [this.dir, join(this.dir, NOTES)]) {
      privateDirectory(dir, (was) =>
        this.warn(`made ${dir} private (mode ${mode(was)} → 0700): it holds task ids and input answers`),
      );
    }
    this.madePrivate = true;
  }

  private writeNote(ref: TaskRef, note: CliNote): void {
    writePrivateFile(this.notePath(ref), JSON.stringify({ format: NOTE_FORMAT, key: refKey(ref), note }));
  }

  /** The note of `ref`, if there is one in a private file of this user that names this ref. */
  private readNote(ref: TaskRef): CliNote | undefined {
    const path = this.notePath(ref);
    let text: string | undefined;
    try {
      text = readPrivateFile(path);
    } catch (error) {
      if (!(error instanceof NotPrivateError)) throw error;
      this.warn(`ignored the note ${error.message}`);
      return undefined;
    }
    if (text === undefined) return undefined;
    try {
      const stored = JSON.parse(text) as { format?: unknown; key?: unknown; note?: unknown };
      if (stored.format !== NOTE_FORMAT || stored.key !== refKey(ref)) return undefined;
      return readNote(stored.note);
    } catch {
      return undefined; // a torn or foreign note only costs `ls` its status column
    }
  }

  /** Removes notes whose ref is gone (ended, pruned or quarantined by the file store). */
  private dropOrphanNotes(refs: readonly TaskRef[]): void {
    const kept = new Set(refs.map((ref) => noteName(ref)));
    for (const name of readdirSync(join(this.dir, NOTES))) {
      if (!kept.has(name)) rmSync(join(this.dir, NOTES, name), { force: true });
    }
  }

  private notePath(ref: TaskRef): string {
    return join(this.dir, NOTES, noteName(ref));
  }
}

/** A note's file name: a hash of the ref's server and task id (task ids never appear in file names). */
function noteName(ref: TaskRef): string {
  return `${createHash("sha256").update(refKey(ref)).digest("hex").slice(0, 32)}.json`;
}

/** Only the note fields, of the right types. */
function readNote(value: unknown): CliNote | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { status, statusMessage, updatedAt, command } = value as Record<string, unknown>;
  const note: CliNote = {};
  if (typeof status === "string") note.status = status;
  if (typeof statusMessage === "string") note.statusMessage = statusMessage;
  if (typeof updatedAt === "string") note.updatedAt = updatedAt;
  if (Array.isArray(command) && command.length > 0 && command.every((word) => typeof word === "string")) {
    note.command = command as string[];
  }
  return note;
}
