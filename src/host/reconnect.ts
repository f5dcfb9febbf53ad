/**
 * Owner of when a host connects a server again: after it failed to start or connect, or after its connection
 * ended. Attempts are bounded (`reconnect.retries`) and spaced by the project's one backoff rule, `retryDelay`
 * (src/scheduler/retry.ts: exponential, equal jitter, `Retry-After` a floor), so servers that went down together
 * are not all retried at one moment. `close()` stops every pending attempt; the timers are unref'd, so a server
 * being retried never keeps a process alive on its own.
 */
import { retryDelay } from "../scheduler/retry.js";
import { resolveRetryTiming } from "../scheduler/timing.js";
import type { RetryTiming } from "../scheduler/types.js";

/** How a host retries a server that is down; `false` turns reconnecting off. */
export type ReconnectOptions = Partial<RetryTiming> | false;

/** Ten attempts, from about a second apart up to 30 s apart: a server restart of a few minutes is ridden out. */
export const DEFAULT_RECONNECT: RetryTiming = {
  retries: 10,
  minTimeoutMs: 1_000,
  maxTimeoutMs: 30_000,
  factor: 2,
};

/** The checked timing of the `reconnect` option; undefined when reconnecting is off. */
export function reconnectTiming(option: ReconnectOptions | undefined): RetryTiming | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (typeof option !== "object" || option === null)) {
    throw new TypeError("TaskHost.connect: `reconnect` must be false or { retries, minTimeoutMs, … }");
  }
  return resolveRetryTiming({ ...DEFAULT_RECONNECT, ...option });
}

export interface ReconnectDeps {
  timing: RetryTiming;
  /** One attempt: resolves when the server is ready, rejects with why it is not. */
  connect(name: string): Promise<void>;
  /** The attempts ran out; `error` is the last attempt's. */
  gaveUp(name: string, error: unknown, attempts: number): void;
  /** An attempt is about to wait `delayMs`. */
  retrying(name: string, attempt: number, delayMs: number): void;
}

/** The servers being retried, one loop each. */
export class Reconnects {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private closed = false;

  constructor(private readonly deps: ReconnectDeps) {}

  /** Whether `name` is being retried. */
  has(name: string): boolean {
    return this.timers.has(name);
  }

  /** Starts retrying `name`, which just failed with `error` (a loop already running for it goes on). */
  start(name: string, error: unknown): void {
    if (!this.closed && !this.timers.has(name)) this.next(name, 1, error);
  }

  /** Stops every loop; an attempt already connecting finishes, and nothing follows it. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private next(name: string, attempt: number, error: unknown): void {
    const { timing } = this.deps;
    if (attempt > timing.retries) {
      this.timers.delete(name);
      this.deps.gaveUp(name, error, attempt - 1);
      return;
    }
    const delayMs = retryDelay(attempt, timing, error);
    this.deps.retrying(name, attempt, delayMs);
    const timer = setTimeout(() => {
      this.deps.connect(name).then(
        () => this.timers.delete(name),
        (failure: unknown) => {
          if (!this.closed) this.next(name, attempt + 1, failure);
        },
      );
    }, delayMs);
    (timer as { unref?: () => void }).unref?.();
    this.timers.set(name, timer);
  }
}
