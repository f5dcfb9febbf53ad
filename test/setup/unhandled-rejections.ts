/**
 * Every test file runs with this (vitest.config.ts `setupFiles`): an unhandled promise rejection fails the test
 * during which it happened.
 *
 * Why, when vitest already fails the run on one? Checked with vitest 4.1 and `pool: "forks"`: a test that
 * leaves a rejected promise unobserved still passes; vitest prints an "Unhandled Rejection" block, reports
 * "Errors 1 error" and exits 1, but names the test only as "the latest test that might've caused the error".
 * For a library whose handles must never leak a rejection (an ignored failed handle, a best-effort
 * `tasks/cancel`), that is a bug in the code under test, and it should show as a failing test, where it
 * happened. So while a test runs, rejections are recorded here and thrown from an `afterEach` of that test.
 *
 * The listener is installed only from `beforeEach` to `afterEach`, on purpose: vitest stops reporting
 * unhandled rejections while any other `unhandledRejection` listener exists ("handled by user code"), so one
 * left in place for good would hide a rejection that arrives between tests or after a file's last test. Outside
 * a test, vitest's own handler reports it and fails the run, as before.
 */
import { afterEach, beforeEach } from "vitest";

const unhandled: unknown[] = [];
const record = (reason: unknown) => {
  unhandled.push(reason);
};

// Captured before any test can install fake timers, so the wait below is a real turn of the event loop.
const realSetImmediate = globalThis.setImmediate;

beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", record);
});

afterEach(async () => {
  // Node reports a rejection once the microtask queue has drained; give one that the test's last step made a
  // chance to arrive before deciding.
  await new Promise<void>((resolve) => realSetImmediate(resolve));
  process.off("unhandledRejection", record);
  if (unhandled.length === 0) return;
  const reasons = unhandled.splice(0);
  const first = reasons[0];
  const text = first instanceof Error ? `${first.name}: ${first.message}` : String(first);
  throw new Error(`${reasons.length} unhandled promise rejection(s) during this test; the first: ${text}`, {
    cause: reasons.length === 1 ? first : new AggregateError(reasons),
  });
});
