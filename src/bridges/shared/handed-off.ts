/**
 * The tasks a bridge handed off to the model: each under a ref the model can quote back (`task_…`), never the
 * task id itself (a bearer-like secret). A ref is derived from the task id, so a client that resumed the task
 * from its store after a restart finds it again from the same ref.
 */
import type { CallToolResult, TaskHandle, TaskOutcome } from "mcp-tasks";
import { sourceOf, type BridgeTarget, type ToolSource } from "./source.js";

/** A task handed off to the model, as the host sees it. */
export interface HandedOffTask {
  /** The ref the model was given (`task_` and 16 hex digits). */
  ref: string;
  /** The tool's name as the model knows it (over a host, its qualified name; its own name once resumed). */
  toolName: string;
  /** The live handle: await it, iterate it, cancel it. */
  handle: TaskHandle<CallToolResult>;
}

/** The host's view of what the bridges of one client handed off. */
export interface HandedOff {
  /** Every task handed off and not forgotten, ended or not, in the order they were handed off. */
  list(): HandedOffTask[];
  /**
   * The task under `ref`; also one the client (or host) follows or resumes from its store (`resume()`) after a
   * restart.
   */
  get(ref: string): Promise<HandedOffTask | undefined>;
  /** How the task under `ref` ends (never rejects; `undefined` for an unknown ref). */
  wait(ref: string): Promise<TaskOutcome | undefined>;
  /** Stops listing the task (it keeps running unless you cancel its handle). */
  forget(ref: string): void;
}

class Book implements HandedOff {
  private readonly entries = new Map<string, HandedOffTask>();

  constructor(private readonly source: ToolSource) {}

  async add(handle: TaskHandle<CallToolResult>, toolName: string): Promise<string> {
    const ref = await refFor(handle.taskId ?? "");
    this.entries.set(ref, { ref, toolName, handle });
    return ref;
  }

  list(): HandedOffTask[] {
    return [...this.entries.values()];
  }

  async get(ref: string): Promise<HandedOffTask | undefined> {
    if (typeof ref !== "string") return undefined;
    const known = this.entries.get(ref);
    if (known !== undefined) return known;
    // Not handed off by this process: a task the client follows (resumed from its store, or adopted) may be it.
    const found =
      (await this.match(ref, this.source.tasks())) ??
      (await this.match(ref, await this.source.resume().catch(() => [])));
    if (found !== undefined) this.entries.set(ref, found);
    return found;
  }

  async wait(ref: string): Promise<TaskOutcome | undefined> {
    return (await this.get(ref))?.handle.outcome();
  }

  forget(ref: string): void {
    this.entries.delete(ref);
  }

  private async match(
    ref: string,
    handles: TaskHandle<CallToolResult>[],
  ): Promise<HandedOffTask | undefined> {
    for (const handle of handles) {
      if (handle.taskId === undefined || (await refFor(handle.taskId)) !== ref) continue;
      const toolName = (await handle.ref)?.toolName ?? "unknown tool";
      return { ref, toolName, handle };
    }
    return undefined;
  }
}

const books = new WeakMap<BridgeTarget, Book>();

/** The book of one client's (or host's) handed-off tasks (made on first use). */
export function bookOf(target: BridgeTarget): Book {
  let book = books.get(target);
  if (book === undefined) books.set(target, (book = new Book(sourceOf(target))));
  return book;
}

/**
 * What the bridges on `target` (a client, or a host) handed off (`handoff: { afterMs }`): list them, get one by
 * the ref the model quotes, wait for one to end, forget one. Shared by every bridge on the same client or host.
 */
export function handedOff(target: BridgeTarget): HandedOff {
  return bookOf(target);
}

/** `task_` and the first 16 hex digits of the SHA-256 of the task id. */
async function refFor(taskId: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(taskId));
  const hex = [...new Uint8Array(digest).slice(0, 8)].map((byte) => byte.toString(16).padStart(2, "0"));
  return `task_${hex.join("")}`;
}
