/** The answers collected for one `tasks/update`: answers ready in the same turn share one request. */
import type { InputResponse } from "../schema/index.js";

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
