/** The answers collected for one `tasks/update`: answers ready in the same turn share one request. */
import type { InputResponse } from "../schema/index.js";
import { parseAck } from "../protocol/codec.js";
import { Method } from "../protocol/constants.js";
import { withTransientRetry } from "../scheduler/retry.js";
import type { RetryTiming } from "../scheduler/types.js";
import type { RpcChannel } from "../session/types.js";
import type { RetryEvent } from "../task/types.js";

/** Answers collected for one `tasks/update`, and the promise `respond` callers wait on. */
export interface Batch {
  responses: Map<string, InputResponse>;
  done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

export function openBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  done.catch(() => undefined); // only `respond` callers care; a handler's answer must not cause an unhandled rejection
  return { responses: new Map(), done, resolve, reject };
}

/** Sends one batch as `tasks/update`, retrying transient faults; resolves once the server acknowledged it. */
export async function sendUpdate(
  channel: RpcChannel,
  taskId: string,
  batch: Batch,
  options: {
    retry: RetryTiming;
    signal: AbortSignal;
    onRetry(event: RetryEvent): void;
    /** Stores the answers (and proves the lease) before they leave; rejects when they were not stored. */
    store: (() => Promise<void>) | undefined;
  },
): Promise<void> {
  const params = { taskId, inputResponses: Object.fromEntries(batch.responses) };
  const { signal } = options;
  // Write-ahead before every attempt, resends included, so a crash mid-update never asks the user again, and a
  // worker paused past its lease (its request timed out meanwhile) does not answer for a task another follows.
  const send = async () => {
    await options.store?.();
    signal.throwIfAborted();
    return channel.request(Method.tasksUpdate, params, { signal });
  };
  const ack = await withTransientRetry(send, {
    timing: options.retry,
    signal,
    onRetry: ({ error, attempt }) => options.onRetry({ method: Method.tasksUpdate, error, attempt }),
  });
  parseAck(Method.tasksUpdate, ack);
}

/** Marks a promise someone handed us as handled, so its rejection is never reported as unhandled. */
export function observe(result: void | PromiseLike<unknown>): void {
  if (result !== undefined && typeof result.then === "function") result.then(undefined, () => undefined);
}
