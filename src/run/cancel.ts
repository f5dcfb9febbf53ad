/** `tasks/cancel` sent on behalf of a handle that has already ended: nobody waits on these but the caller. */
import type { RunContext } from "./context.js";

/** What came of a handle's `tasks/cancel`: the acknowledgement, or why there is none. */
export interface CancelReply {
  ack?: Record<string, unknown>;
  error?: unknown;
}

/** One `tasks/cancel` whose failure is reported, not thrown; its retries stop when the client closes. */
export function cancelQuietly(context: RunContext, taskId: string): Promise<CancelReply> {
  return context.tasks.cancel(taskId, context.shutdown).then(
    (ack) => ({ ack }),
    (error: unknown) => ({ error }),
  );
}

/**
 * A task nobody can follow (the server created it after its handle had ended, or its ref could not be stored):
 * ask the server to stop it. Its retries stop when the client closes (the task may then run on: it is reported).
 */
export function cancelOrphan(context: RunContext, taskId: string): void {
  context.log.warn("no handle can follow a task the server created; sending tasks/cancel for it", {
    taskId: context.redact(taskId),
  });
  context.tasks.cancel(taskId, context.shutdown).catch((error: unknown) => {
    context.log.warn("tasks/cancel for a task nobody observes failed", error);
  });
}

/**
 * The handle's own `tasks/cancel`, retrying transient faults until `stop.retries` aborts (the handle ended); an
 * attempt already sent is answered until `stop.request` aborts it. Never rejects: a refusal is the reply's `error`;
 * when no answer came in time (the grace period ran out while retrying, or while the last attempt waited), the last
 * transient fault is, so the caller learns why no acknowledgement came.
 */
export function cancelWithRetries(
  context: RunContext,
  taskId: string,
  stop: { request: AbortSignal; retries: AbortSignal },
  hooks: { retrying(attempt: number, error: unknown): void; answered(): void; refused(error: unknown): void },
): Promise<CancelReply> {
  let lastFault: unknown;
  const retrying = (attempt: number, error: unknown) => {
    lastFault = error;
    hooks.retrying(attempt, error);
  };
  return context.tasks.cancel(taskId, stop.request, retrying, stop.retries).then(
    (ack) => {
      hooks.answered();
      return { ack };
    },
    (error: unknown) => {
      if (error === stop.request.reason || error === stop.retries.reason) {
        return lastFault === undefined ? {} : { error: lastFault };
      }
      hooks.refused(error);
      return { error };
    },
  );
}

/** `cancel()` after the handle ended: the task may still run on the server; ask it to stop, if we can. */
export function cancelAfterEnd(
  context: RunContext,
  taskId: string | undefined,
  /** Whether the task is over for good (./ref-life.ts): then nothing is left to cancel. */
  over: boolean,
): Promise<CancelReply> | undefined {
  if (taskId === undefined || over) return undefined;
  return cancelQuietly(context, taskId);
}
