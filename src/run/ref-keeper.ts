/**
 * One task run's writes to the client's `TaskStore`, in order: the ref when the task is created (the run waits
 * for it before reporting the task), a newer ref before input answers leave and when they are acknowledged, and
 * at the end its removal (the server has said its last word) or its release (the task may still run). A failed
 * `put` is logged and handed to the run, which decides (src/store/types.ts says how); a failed removal or
 * release is logged only: the ref stays, which loses nothing.
 */
import type { CreateTaskResult, DetailedTask } from "../schema/index.js";
import { Method } from "../protocol/constants.js";
import type { InputCoordinator } from "../input/index.js";
import type { TaskRef } from "../task/ref.js";
import type { TaskOutcome } from "../task/types.js";
import { taskIsOver } from "../task/outcome.js";
import type { TaskStore } from "../store/types.js";
import type { Logger } from "../protocol/logging.js";
import type { RunContext } from "./context.js";
import type { CallSpec } from "../eras/dialect.js";

/** A run made by `callTool` knows nothing of a ref beforehand; one frozen object serves them all. */
export const NO_REF: Partial<TaskRef> = Object.freeze({});

export class RefKeeper {
  /** The last write queued; the next waits for it, so a removal never overtakes a put. */
  private tail: Promise<void> = Promise.resolve();
  private done = false;

  constructor(
    private readonly store: TaskStore,
    private readonly log: Logger,
    private readonly redact: (taskId: string) => string,
    /** Told of every write, so the client can wait for them before it closes the store. */
    private readonly track: (write: Promise<void>) => void = () => undefined,
  ) {}

  /** Writes the ref; rejects with the store's error (logged) when it was not stored. Ignored after the end. */
  put(ref: TaskRef, what: string): Promise<void> {
    if (this.done) return this.tail;
    return this.queue(() => this.store.put(ref), `${what} failed`, ref, true);
  }

  /**
   * The handle ended. A task the server finished (or forgot, or whose time to live ended) leaves the store; one
   * that may still run stays, and the store hands back what this process holds on it (a lease). Later puts are
   * ignored.
   */
  ended(outcome: TaskOutcome<unknown> | undefined, ref: TaskRef | undefined): void {
    if (this.done || ref === undefined || outcome === undefined) return;
    this.done = true;
    if (taskIsOver(outcome)) {
      void this.queue(() => this.store.remove(ref), "removing a finished task's ref failed", ref, false);
    } else if (this.store.release !== undefined) {
      const store = this.store as Required<Pick<TaskStore, "release">>;
      void this.queue(() => store.release(ref), "releasing a task's ref failed", ref, false);
    }
  }

  private queue(write: () => Promise<void>, failure: string, ref: TaskRef, reject: boolean): Promise<void> {
    const result = this.tail.then(write).catch((error: unknown) => {
      this.log.error(`task store: ${failure}`, { taskId: this.redact(ref.taskId) }, error);
      if (reject) throw error;
    });
    this.tail = result.catch(() => undefined);
    this.track(this.tail);
    return result;
  }
}

/**
 * A task's ref as of now: identity from the call (or the ref it was resumed from), `createdAt`/`ttlMs` from the
 * newest snapshot or the creation answer, the input keys answered so far, and answers given but not yet
 * acknowledged.
 */
export function refNow(
  context: RunContext,
  taskId: string,
  call: CallSpec | undefined,
  known: Partial<TaskRef>,
  [latest, created]: [DetailedTask | undefined, CreateTaskResult | undefined],
  input: InputCoordinator | undefined,
): TaskRef {
  return context.refFor({
    taskId,
    method: call?.method ?? known.method ?? Method.toolsCall,
    toolName: call?.toolName ?? known.toolName ?? "",
    createdAt: latest?.createdAt ?? created?.createdAt ?? known.createdAt,
    ttlMs: latest?.ttlMs ?? created?.ttlMs ?? known.ttlMs,
    answeredInputKeys: input?.answeredKeys() ?? known.answeredInputKeys ?? [],
    ...pendingOf(input?.pendingAnswers() ?? known.pendingInputAnswers),
  });
}

/** The `pendingInputAnswers` field, left out when nothing waits for an acknowledgement. */
function pendingOf(pending: Record<string, unknown> | undefined): Partial<TaskRef> {
  return pending !== undefined && Object.keys(pending).length > 0 ? { pendingInputAnswers: pending } : {};
}
