/**
 * Shared pieces of the lifecycle regression tests: short client timings, a question for input tools, and one
 * place that closes every client, proxy and server a test opened (clients first, then proxies, then servers).
 */
import { afterEach } from "vitest";
import type { TaskClientOptions } from "../../../src/index.js";
import type { ElicitResult } from "../../../src/schema/index.js";
import { defineTool, elicitForm, step, textResult } from "../../../src/testing/index.js";

/** Polls every ~10 ms; transient faults retried 3 times after 5-20 ms. */
export const FAST = {
  polling: { minIntervalMs: 10, defaultIntervalMs: 10 },
  retry: { minTimeoutMs: 5, maxTimeoutMs: 20, retries: 3 },
} satisfies TaskClientOptions;

export const question = elicitForm("Proceed?", { ok: { type: "boolean" } }, ["ok"]);
export const yes: ElicitResult = { action: "accept", content: { ok: true } };

/** A tool that answers `tools/call` only after `ms` (the server's clock), then finishes the task on its next tick. */
export function slowToCreate(ms: number) {
  return defineTool({
    name: "slow_to_create",
    task: "required",
    advance: { everyMs: ms },
    pollIntervalMs: 20,
    beforeTask: [step.idle()],
    steps: [step.complete(textResult("made it"))],
  });
}

/** One macrotask: lets pending timers of 0 ms, I/O callbacks and rejection tracking run. */
export const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Registers `afterEach` cleanup for this file and returns `track(closable)`, which remembers something to
 * close. Things are closed in reverse order of tracking, so track servers first and clients last.
 */
export function closesAfterEach(): <T extends { close(): Promise<unknown> }>(closable: T) => T {
  const open: Array<{ close(): Promise<unknown> }> = [];
  afterEach(async () => {
    for (const closable of open.reverse()) await closable.close().catch(() => undefined);
    open.length = 0;
  });
  return (closable) => {
    open.push(closable);
    return closable;
  };
}

/** Resolves when `emitter` fires `event` and `accept` (default: always) says yes. */
export function when<A extends unknown[]>(
  subscribe: (listener: (...args: A) => void) => void,
  accept: (...args: A) => boolean = () => true,
): Promise<A> {
  return new Promise((resolve) => {
    let done = false;
    subscribe((...args) => {
      if (!done && accept(...args)) {
        done = true;
        resolve(args);
      }
    });
  });
}
