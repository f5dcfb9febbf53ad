/**
 * `notifications/tasks/status` (2025-11-25): unsolicited task updates, fed into the same path as polls
 * (DESIGN decision 10), so ordering and deduplication are the handle's, not this file's. A `working` update is
 * shown as it is; any other status needs a request first (the payload of a terminal task comes from
 * `tasks/result`, the input of an `input_required` one through its side channel), so the follower is told, and
 * its cadence owner brings one poll forward for a status it does not show yet.
 */
import type { DetailedTask } from "../../schema/index.js";
import { LegacyMethod, parseLegacyTask } from "./codec.js";
import type { RpcChannel } from "../../session/types.js";

export interface StatusTarget {
  observe(taskId: string, snapshot: DetailedTask): void;
  /** The notification announced `status`, which only a request can show in full. */
  notified(taskId: string, status: string): void;
  /** A notification that could not be read (it ends nothing: polling is the safety net). */
  invalid(error: unknown): void;
}

/** Listens for 2025 status notifications; returns the function that stops listening. */
export function listenForLegacyStatus(
  channel: RpcChannel,
  warn: (message: string) => void,
  target: StatusTarget,
): () => void {
  return channel.onNotification((method, params) => {
    if (method !== LegacyMethod.statusNotification) return;
    let task;
    try {
      task = parseLegacyTask(method, params, warn);
    } catch (error) {
      target.invalid(error);
      return;
    }
    if (task.status === "working") target.observe(task.taskId, task as DetailedTask);
    else target.notified(task.taskId, task.status);
  });
}

/** What a followed task offers the status listener (a task run is one). */
export interface StatusFollower {
  observe(snapshot: DetailedTask): void;
  /** The notification announced `status` and says more than it carries: the follower decides whether to poll. */
  statusNotified(status: string): void;
}

/** Follows status notifications for the tasks `followerOf` knows: the wiring `TaskClient` uses. */
export function followLegacyStatus(
  channel: RpcChannel,
  log: { warn(message: string, ...details: unknown[]): void },
  followerOf: (taskId: string) => StatusFollower | undefined,
): () => void {
  return listenForLegacyStatus(channel, (message) => log.warn(message), {
    observe: (taskId, snapshot) => followerOf(taskId)?.observe(snapshot),
    notified: (taskId, status) => followerOf(taskId)?.statusNotified(status),
    invalid: (error) => log.warn("ignored an invalid notifications/tasks/status", error),
  });
}
