/**
 * A `TaskStore` for the lifecycle property: a `memoryStore` whose `put`s fail on cue. A plan decides, per `put`
 * (by its ref and how many `put`s of that tool came before), whether it rejects, or hangs until the run lets it go
 * (`releaseAll()`, or after `holdMs`). Every `put` is recorded with the ref's task id and tool, and `onPut` hears of each as it begins,
 * so a caller can act while a ref is being stored.
 */
import type { TaskRef } from "../../../src/index.js";
import type { TaskStore } from "../../../src/store/index.js";
import { memoryStore } from "../../../src/store/index.js";

/** What becomes of one `put`: it rejects, or it hangs (for `holdMs`, or until `releaseAll()`). */
export type PutFault = { kind: "reject" } | { kind: "hang"; holdMs: number | undefined };

/** Decides the fate of a `put` of `ref`, the `index`-th of its tool (from 0); undefined stores it at once. */
export type PutPlan = (ref: TaskRef, index: number) => PutFault | undefined;

export interface ScriptedStore extends TaskStore {
  /** Every `put` so far: its ref's task id and tool, and the fault it met. */
  readonly puts: ReadonlyArray<{ taskId: string; toolName: string; fault: PutFault | undefined }>;
  /** What is stored now. */
  list(): Promise<TaskRef[]>;
  /** Calls `listener` as each `put` begins (when a held one is already held, before any is stored or refused). */
  onPut(listener: (ref: TaskRef) => void): void;
  /** Lets every held `put` finish (they then store their ref). */
  releaseAll(): void;
  /** Whether a `put` of a ref of `toolName` is being held now. */
  holding(toolName: string): boolean;
}

export function scriptedStore(plan: PutPlan): ScriptedStore {
  const inner = memoryStore();
  const puts: Array<{ taskId: string; toolName: string; fault: PutFault | undefined }> = [];
  const listeners: Array<(ref: TaskRef) => void> = [];
  const held = new Map<() => void, string>();
  return {
    puts,
    put(ref) {
      const fault = plan(ref, puts.filter((put) => put.toolName === ref.toolName).length);
      puts.push({ taskId: ref.taskId, toolName: ref.toolName, fault });
      let stored: Promise<void>;
      if (fault === undefined) stored = inner.put(ref);
      else if (fault.kind === "reject") stored = Promise.reject(new Error("the disk is full (scripted)"));
      else
        stored = new Promise<void>((resolve) => {
          const release = () => {
            held.delete(release);
            clearTimeout(timer);
            resolve(inner.put(ref));
          };
          const timer = fault.holdMs === undefined ? undefined : setTimeout(release, fault.holdMs);
          held.set(release, ref.toolName);
        });
      // Listeners hear of the put once it is under way (a held one is held by then).
      for (const listener of listeners) listener(ref);
      return stored;
    },
    remove: (ref) => inner.remove(ref),
    list: (server?: TaskRef["server"]) => inner.list(server),
    onPut(listener) {
      listeners.push(listener);
    },
    releaseAll() {
      for (const release of [...held.keys()]) release();
    },
    holding: (toolName) => [...held.values()].includes(toolName),
  };
}
