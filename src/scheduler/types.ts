/**
 * The contract of the poll scheduler: one per client, one timer for every task it watches.
 */

/** Something the scheduler runs when it is due: typically "poll this task once". */
export interface PollJob {
  /**
   * Runs one poll, and calls `done` when it is over (later calls of the same run are ignored). The scheduler
   * counts the job as in flight until then, and never runs more than `maxInFlight` jobs at once. The job
   * reschedules itself (or not) from inside `run`, and deals with its own faults: a throw from `run` itself is
   * reported to `onJobError` and ends the run.
   *
   * A callback, not a promise: every poll of every task runs through here, and a promise per poll (with the
   * reactions that settle it) was a measurable share of a poll's allocations.
   */
  run(done: () => void): void;
}

/**
 * What a client's runs use of a poll scheduler: its own `PollScheduler`, or its share of a host's
 * (`FairPollScheduler`, src/scheduler/fair-scheduler.ts).
 */
export interface PollQueue {
  /** Runs `job` once, `delayMs` from now (a job already scheduled moves). Ignored once closed. */
  schedule(job: PollJob, delayMs: number): void;
  /** Forgets the job's pending run, if any. */
  unschedule(job: PollJob): void;
  /** The clock delays are measured on. */
  now(): number;
  /** Drops every pending run; runs in progress finish on their own. */
  close(): void;
}

/** Bounds and shape of the polling cadence. All values in milliseconds. */
export interface PollTiming {
  /** Interval used while the server has not suggested one. Default 1000. */
  defaultIntervalMs: number;
  /** Floor for any interval, protecting the server from 0 or negative suggestions. Default 100. */
  minIntervalMs: number;
  /**
   * Ceiling for any delay, protecting the caller from huge suggestions. The server's `pollIntervalMs` is a floor
   * for the delay unless it exceeds this ceiling: then the ceiling wins. Default 60000.
   */
  maxIntervalMs: number;
  /**
   * Random lengthening of each delay, as a fraction of the interval (0.1 = up to +10 %). Jitter never shortens
   * a delay and never crosses `maxIntervalMs`. Default 0.1.
   */
  jitter: number;
}

/**
 * How transient faults are retried: exponential backoff with equal jitter, never shorter than the server's
 * `Retry-After` (see `retryDelay`).
 */
export interface RetryTiming {
  /** Retries after the first failure before the fault is reported as final. Default 8. */
  retries: number;
  /** Backoff before the first retry, before jitter (the wait is drawn from [half of it, all of it]). Default 250. */
  minTimeoutMs: number;
  /**
   * Longest backoff, and the longest `Retry-After` honoured. A wait set by `Retry-After` is lengthened by jitter
   * and may exceed this by up to half of it. Default 30000.
   */
  maxTimeoutMs: number;
  /** Growth factor between retries. Default 2. */
  factor: number;
}
