/**
 * Owner of a client's end: whether it is closed, the signal that tells what retries on its own to stop, the
 * `tools/call` answers and store writes `close()` waits for, and the order `close()` takes things down in — adoption first (no new
 * claim), then every handle, the listen streams, the timers, the joined sessions, the client's own session
 * (ending the HTTP session only when no task made in it may still be followed), telemetry, and last the store,
 * within `closeTimeoutMs` (../run/ref-life.ts `closeStore`). `close()` runs once; every later call gets the
 * same promise.
 */
import { McpTasksError } from "../protocol/errors.js";
import type { Logger } from "../protocol/logging.js";
import type { TaskStore } from "../store/types.js";
import { closeStore } from "../run/ref-life.js";

/** What `close()` takes down, in this order. */
export interface ClosingSteps {
  /** Stops taking up stored tasks. */
  stopAdoption(): void;
  /**
   * Ends every open handle with `TaskEndedError` of kind `closed` (a handle whose call is unanswered waits for
   * the answer first, within `closeTimeoutMs`: ../run/ref-life.ts `closeRuns`), then stops the listen streams,
   * status notifications, the poll scheduler and the alarm clock.
   */
  endRuns(): Promise<void>;
  /**
   * Closes the joined sessions (their HTTP sessions are left to the server), then the client's own session
   * (`endSession`: ending its HTTP session too), then telemetry.
   */
  closeConnections(endSession: boolean): Promise<void>;
  /** Whether the client opened its connection and no task made in its HTTP session may still be followed. */
  mayEndSession(): boolean;
  store: TaskStore | undefined;
  closeTimeoutMs: number;
  log: Logger;
}

export class Shutdown {
  /**
   * Set as `close()` begins (and by nothing else). The promise of `close()` is made only once the shutdown has run
   * up to its first await, and what runs before that (a handle's listeners, the transport's `onclose`) must
   * already see it.
   */
  closed = false;
  /** Aborted as `close()` begins: what retries on its own (a `tasks/cancel`) stops waiting then. */
  private readonly controller = new AbortController();
  /** Store writes in flight; `close()` waits for them (at most `closeTimeoutMs`) before it closes the store. */
  private readonly writes = new Set<Promise<void>>();
  /** `tools/call` requests unanswered; `close()` waits for them (at most `closeTimeoutMs`): one may bring a task. */
  readonly calls = new Set<Promise<unknown>>();
  private closing: Promise<void> | undefined;

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Records a store write in flight. */
  readonly trackWrite = (write: Promise<void>): void => {
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  };

  /** Throws when the client is closed: nothing new starts then. */
  assertOpen(): void {
    if (this.closed) throw new McpTasksError("TaskClient is closed");
  }

  /** Takes the client down in the order above, once. */
  close(steps: ClosingSteps): Promise<void> {
    this.closed = true;
    this.controller.abort(new McpTasksError("TaskClient is closed"));
    steps.stopAdoption();
    this.closing ??= (async () => {
      await steps.endRuns();
      await steps.closeConnections(steps.mayEndSession());
      await closeStore(steps.store, this.writes, steps.closeTimeoutMs, steps.log);
    })();
    return this.closing;
  }
}
