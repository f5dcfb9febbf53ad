/**
 * The three clocks that end waiting for a task without a word from the server: the caller's deadline, the
 * `createdAt + ttlMs` backstop (plus a grace for clock skew), and the grace period after a cancel. Kept apart
 * from the driver so the rules read in one place; all times are epoch milliseconds.
 */
import { parseTimestamp } from "../task/timestamp.js";

/** Which limit has passed. */
export type PassedLimit = "deadline" | "expired" | "cancel_unconfirmed";

/** Longest single wait, so a far limit never overflows a timer. */
export const MAX_WAIT_MS = 2 ** 31 - 1;

export class TimeLimits {
  private expiresAt: number | undefined;
  /** The `createdAt` and `ttlMs` that `expiresAt` was computed from: servers repeat them on every poll. */
  private ttlCreatedAt: string | undefined;
  private ttlMs: number | null | undefined;
  private cancelObserveUntil: number | undefined;

  constructor(
    /** The caller's deadline, if any. */
    readonly deadline: number | undefined,
    private readonly ttlGraceMs: number,
  ) {}

  /** Follows the task's latest `createdAt` and `ttlMs` (both may change over its life). */
  trackTtl(createdAt: string, ttlMs: number | null, now: number): void {
    if (createdAt === this.ttlCreatedAt && ttlMs === this.ttlMs) return;
    this.ttlCreatedAt = createdAt;
    this.ttlMs = ttlMs;
    if (ttlMs === null) {
      this.expiresAt = undefined;
      return;
    }
    const created = parseTimestamp(createdAt);
    // An unreadable createdAt never crashes polling; the backstop is then measured from now.
    this.expiresAt = (Number.isFinite(created) ? created : now) + ttlMs + this.ttlGraceMs;
  }

  /** Starts (or restarts) the wait for the server's final word after a cancel. */
  startCancelGrace(now: number, graceMs: number): void {
    this.cancelObserveUntil = now + graceMs;
  }

  /** The limit that has passed at time `at`, if any, in the order deadline, TTL, cancel grace. */
  passedAt(at: number, hasTask: boolean): PassedLimit | undefined {
    if (this.deadline !== undefined && at >= this.deadline) return "deadline";
    if (hasTask && this.expiresAt !== undefined && at >= this.expiresAt) return "expired";
    if (this.cancelObserveUntil !== undefined && at >= this.cancelObserveUntil) return "cancel_unconfirmed";
    return undefined;
  }

  /** When the TTL ran out, as the server counts it (without the skew grace). */
  expiredAt(): Date {
    return new Date((this.expiresAt ?? Number.NaN) - this.ttlGraceMs);
  }

  /** `delayMs`, shortened so the wait ends no later than the nearest limit. */
  clamp(delayMs: number, now: number): number {
    let delay = delayMs;
    for (const stop of [this.deadline, this.expiresAt, this.cancelObserveUntil]) {
      if (stop !== undefined) delay = Math.min(delay, Math.max(0, stop - now));
    }
    return Math.min(delay, MAX_WAIT_MS);
  }

  /** The wait until the nearest limit that applies before a task exists (deadline, cancel grace), if any. */
  untilNextBeforeTask(now: number): number | undefined {
    let at: number | undefined;
    for (const stop of [this.deadline, this.cancelObserveUntil]) {
      if (stop !== undefined) at = at === undefined ? stop : Math.min(at, stop);
    }
    return at === undefined ? undefined : Math.min(Math.max(0, at - now), MAX_WAIT_MS);
  }
}
