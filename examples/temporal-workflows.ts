/**
 * The workflow that runs the `compute` activity of `temporal-activities.ts`. The activity heartbeats: give it a
 * `heartbeatTimeout`, so that Temporal retries soon after a worker dies, and the retry follows the same task.
 * A failed task ends the activity with a non-retryable `ApplicationFailure` (type `TaskFailedError`).
 */
import { proxyActivities } from "@temporalio/workflow";
import type { createActivities } from "./temporal-activities.js";

const { compute } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: "1 hour",
  heartbeatTimeout: "30 seconds",
  retry: { maximumAttempts: 10 },
});

export async function computeReport(label: string): Promise<string> {
  return compute(120, label);
}
