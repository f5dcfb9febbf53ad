/**
 * The one owner of how often `mcp-tasks/temporal` heartbeats while it waits on a tool call and follows its task.
 * Temporal times an attempt out when no heartbeat arrives within its heartbeat timeout, and delivers the
 * activity's cancellation only in answer to a heartbeat; the worker throttles what it sends (to 0.8 × the
 * timeout), so beating more often costs nothing on the wire. The rule: a third of the heartbeat timeout, so two
 * beats may be late before the attempt times out, within [10 ms, 10 s]; every 10 s when the activity has no
 * heartbeat timeout (heartbeats then only carry cancellation and status). A caller's `heartbeatEveryMs` wins,
 * within the same bounds.
 */

/** The shortest and longest wait between two heartbeats. */
export const MIN_HEARTBEAT_MS = 10;
export const MAX_HEARTBEAT_MS = 10_000;

/** How long to wait between heartbeats, given the activity's heartbeat timeout (if any) and the caller's choice. */
export function heartbeatEveryMs(heartbeatTimeoutMs: number | undefined, chosenMs?: number): number {
  const wanted =
    chosenMs ??
    (heartbeatTimeoutMs !== undefined && heartbeatTimeoutMs > 0 ? heartbeatTimeoutMs / 3 : MAX_HEARTBEAT_MS);
  if (!Number.isFinite(wanted)) return MAX_HEARTBEAT_MS;
  return Math.round(Math.min(Math.max(wanted, MIN_HEARTBEAT_MS), MAX_HEARTBEAT_MS));
}
