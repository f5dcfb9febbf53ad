/**
 * The command's task store. Every task started from the command line is written here, so `ls`, `watch` and
 * `cancel` work from another shell and after a reboot. `fileStore` lets one process own a directory; several
 * `mcp-tasks` processes share this one by taking its lock only for the length of each read or write (and
 * waiting briefly while another holds it). Next to each ref the command keeps a note of the task's last
 * status, for `ls`.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { fileStore, StoreLockedError } from "../store/index.js";
import type { TaskRef, TaskStore } from "../index.js";

/** What `ls` shows beside the ref: the latest status this command saw, and the stdio command if any. */
export interface CliNote {
  status?: string;
  statusMessage?: string;
  updatedAt?: string;
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

export class CliStore implements TaskStore {
  private tail: Promise<unknown> = Promise.resolve();
  /** The refs this process wrote and has not removed, by task id: only these get status notes. */
  private readonly mine = new Map<string, NotedRef>();

  constructor(
    readonly dir: string,
    private readonly command?: string[],
  ) {}

  put(ref: TaskRef): Promise<void> {
    const previous = this.mine.get(ref.taskId);
    const cli: CliNote = { ...previous?.cli, ...(this.command && { command: this.command }) };
    const noted: NotedRef = { ...ref, cli };
    this.mine.set(ref.taskId, noted);
    return this.briefly((store) => store.put(noted));
  }

  remove(ref: TaskRef): Promise<void> {
    this.mine.delete(ref.taskId);
    return this.briefly((store) => store.remove(ref));
  }

  list(server?: TaskRef["server"]): Promise<NotedRef[]> {
    return this.briefly((store) => store.list(server));
  }

  /** Notes statuses of a stored task this process follows without having created it (`watch`). */
  follows(ref: TaskRef): void {
    if (!this.mine.has(ref.taskId)) this.mine.set(ref.taskId, ref);
  }

  /** Records the latest status of a task this process stored (ignored once it is removed). */
  note(taskId: string, status: string, statusMessage: string | undefined): Promise<void> {
    const ref = this.mine.get(taskId);
    if (ref === undefined || (ref.cli?.status === status && ref.cli.statusMessage === statusMessage)) {
      return Promise.resolve();
    }
    const cli: CliNote = { ...ref.cli, status, updatedAt: new Date().toISOString() };
    if (statusMessage !== undefined) cli.statusMessage = statusMessage;
    else delete cli.statusMessage;
    const noted: NotedRef = { ...ref, cli };
    this.mine.set(taskId, noted);
    return this.briefly((store) => (this.mine.get(taskId) === noted ? store.put(noted) : undefined));
  }

  /** Runs one operation holding the directory lock, in order with this process's other operations. */
  private briefly<T>(operation: (store: TaskStore) => Promise<T> | undefined): Promise<T> {
    const run = this.tail.then(async () => {
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
}
