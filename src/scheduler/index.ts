/**
 * The poll scheduler: one timer for every task a client watches, the polling cadence (one owner:
 * `nextPollDelay`), and transient-fault retries.
 */
export type { PollJob, PollTiming, RetryTiming } from "./types.js";
export {
  DEFAULT_POLL_TIMING,
  DEFAULT_RETRY_TIMING,
  MAX_TIMER_DELAY_MS,
  pollDelay,
  resolvePollTiming,
  resolveRetryTiming,
} from "./timing.js";
export {
  isOneShot,
  nextPollDelay,
  type CadenceSettings,
  type CadenceState,
  type OneShotCause,
  type PollCause,
} from "./cadence.js";
export {
  DEFAULT_MAX_IN_FLIGHT,
  PollScheduler,
  type PollSchedulerOptions,
  type SchedulerClock,
} from "./scheduler.js";
export {
  backoffDelay,
  nextRetryDelay,
  retryAfterFault,
  retryDelay,
  withTransientRetry,
  type RetryAttempt,
  type TransientRetryOptions,
} from "./retry.js";
