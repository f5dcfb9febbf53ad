/**
 * One task run's writes to the client's `TaskStore`, in order: the ref when the task is created (the run waits
 * for it before reporting the task), a newer ref when input is answered, and its removal once the server has
 * said its last word. A failed write is logged and never ends the task: the id must not be lost.
 */
import type { CreateTaskResult, DetailedTask } from "../schema/index.js";
import { Method } from "../protocol/constants.js";
import type { InputCoordinator } from "../input/index.js";
import type { TaskRef } from "../task/ref.js";
import type { TaskOutcome } from "../task/types.js";
import { serverIsDone } from "../task/outcome.js";
import type { TaskStore } from "../store/types.js";
import type { Logger } from "../protocol/logging.js";
import type { RunContext } from "./context.js";
import type { CallSpec } from "../eras/dialect.js";

/** A run made by `callTool` knows nothing of a ref beforehand; one frozen object serves them all. */
export const NO_REF: Partial<TaskRef> = Object.freeze({});

export class RefKeeper {
  /** The last write queued; the next waits for it, so a removal never overtakes a put. */
  private tail: Promise<void> = Promise.resolve();
  private removed = false;

  constructor(
    private readonly store: TaskStore,
    private readonly log: Logger,
    private readonly redact: (taskId: string) => string,
    /** Told of every write, so the client can wait for them before it closes the store. */
    private readonly track: (write: Promise<void>) => void = () => undefined,
  ) {}

  /** Writes the ref; resolves (never rejects) once it is stored or the failure is logged. */
  put(ref: TaskRef, what: string): Promise<void> {
    if (this.removed) return this.tail;
    return this.queue(() => this.store.put(ref), `${what} failed`, ref);
  }

  /** Forgets the task (it ended on the server); later puts are ignored. */
  remove(ref: TaskRef): Promise<void> {
    if (this.removed) return this.tail;
    this.removed = true;
    return this.queue(() => this.store.remove(ref), "removing a finished task's ref failed", ref);
  }

  /** The handle ended: a task the server finished (or forgot) leaves the store; one that may still run stays. */
  ended(outcome: TaskOutcome<unknown> | undefined, ref: TaskRef | undefined): void {
    if (ref === undefined || outcome === undefined) return;
    if (serverIsDone(outcome) || outcome.kind === "expired") void this.remove(ref);
  }

  private queue(write: () => Promise<void>, failure: string, ref: TaskRef): Promise<void> {
    this.tail = this.tail.then(write).catch((error: unknown) => {
      this.log.error(`task store: ${failure}`, { taskId: this.redact(ref.taskId) }, error);
    });
    this.track(this.tail);
    return this.tail;
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
