/**
 * `notifications/tasks/status` (2025-11-25): unsolicited task updates, fed into the same path as polls
 * (DESIGN decision 10), so ordering and deduplication are the handle's, not this file's. A `working` update is
 * shown as it is; any other status needs a request first (the payload of a terminal task comes from
 * `tasks/result`, the input of an `input_required` one through its side channel), so it asks for a poll now.
 */
import type { DetailedTask } from "../schema/index.js";
import { LegacyMethod, parseLegacyTask } from "../legacy/codec.js";
import type { RpcChannel } from "../session/types.js";
import type { RunContext } from "./run-context.js";
import type { TaskRun } from "./task-run.js";

export interface StatusTarget {
  observe(taskId: string, snapshot: DetailedTask): void;
  pollSoon(taskId: string): void;
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
    else target.pollSoon(task.taskId);
  });
}

/** Follows status notifications for the client's runs (`runs()`): the wiring `TaskClient` uses. */
export function followLegacyStatus(
  channel: RpcChannel,
  context: Pick<RunContext, "scheduler" | "log">,
  runs: () => Iterable<TaskRun>,
): () => void {
  const runFor = (taskId: string) => {
    for (const run of runs()) if (run.ref()?.taskId === taskId) return run;
    return undefined;
  };
  return listenForLegacyStatus(channel, (message) => context.log.warn(message), {
    observe: (taskId, snapshot) => runFor(taskId)?.observe(snapshot),
    pollSoon: (taskId) => {
      const run = runFor(taskId);
      if (run !== undefined) context.scheduler.runSoon(run);
    },
    invalid: (error) => context.log.warn("ignored an invalid notifications/tasks/status", error),
  });
}
