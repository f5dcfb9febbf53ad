/**
 * What the runs of the lifecycle property (interleavings.property.test.ts) actually reached. A scenario only
 * plans a cancel, a fault or a close; in real time a task may end first, and the plan then proves nothing. Each
 * run records what happened, each category says which runs count for it, and the property fails when a category
 * is never reached, so a generator or a harness that stops reaching a state cannot pass unnoticed.
 *
 * A new category: count what it needs in `RunObservations` (where the property file records it) and add its test
 * to `CATEGORIES`.
 */
import type { SentNotification } from "../../../src/testing/index.js";
import { failed, type Exchange } from "./fault-proxy.js";

/** What one run saw happen, as opposed to what its scenario planned. */
export interface RunObservations {
  /** `cancel()` or an abort while the handle knew its task id and had not ended: a cancel racing the polls. */
  cancelsWhilePolling: number;
  /** `input` events the handles emitted: the client saw the server ask. */
  inputs: number;
  /** Requests the fault proxy broke. */
  faults: number;
  /** `client.close()` called by an action while a handle was still open. */
  closesWhileOpen: number;
  /** `put`s of the client's store that were rejected or held. */
  storeFaults: number;
  /** `cancel()` or an abort while the handle's new ref was being held by the store. */
  cancelsWhileStoring: number;
  /** Task ids a listen acknowledged. */
  pushedTasks: number;
  /** Listens that carried an id an earlier listen had acknowledged (a merge, or a re-listen after a break). */
  relistens: number;
  /** Listen streams the server broke. */
  brokenStreams: number;
  /** A `tasks/get` that went out again after one that failed: the retry the cadence must not bring forward. */
  pollRetries: number;
  /** A `tasks/cancel` that went out again after one that failed. */
  cancelRetries: number;
  /** A pushed `working` written after an `input_required` of the same task with the same `lastUpdatedAt`. */
  staleEqualStates: number;
  /** Whether the run's real-time budget ran out before every handle had ended. */
  cutByBudget: boolean;
}

export function noObservations(): RunObservations {
  return {
    cancelsWhilePolling: 0,
    inputs: 0,
    faults: 0,
    closesWhileOpen: 0,
    storeFaults: 0,
    cancelsWhileStoring: 0,
    pushedTasks: 0,
    relistens: 0,
    brokenStreams: 0,
    pollRetries: 0,
    cancelRetries: 0,
    staleEqualStates: 0,
    cutByBudget: false,
  };
}

/** The interesting states, and which runs reached each. */
export const CATEGORIES = {
  "cancel while polling": (run: RunObservations) => run.cancelsWhilePolling > 0,
  input: (run: RunObservations) => run.inputs > 0,
  fault: (run: RunObservations) => run.faults > 0,
  close: (run: RunObservations) => run.closesWhileOpen > 0,
  "store fault": (run: RunObservations) => run.storeFaults > 0,
  "cancel while storing": (run: RunObservations) => run.cancelsWhileStoring > 0,
  pushed: (run: RunObservations) => run.pushedTasks > 0,
  "re-listen": (run: RunObservations) => run.relistens > 0,
  "broken stream": (run: RunObservations) => run.brokenStreams > 0,
  "poll retry": (run: RunObservations) => run.pollRetries > 0,
  "cancel retry": (run: RunObservations) => run.cancelRetries > 0,
  "stale equal-timestamp state": (run: RunObservations) => run.staleEqualStates > 0,
} satisfies Record<string, (run: RunObservations) => boolean>;

export type Category = keyof typeof CATEGORIES;

/** Counts, over many runs, how many reached each category. */
export class Coverage {
  private runs = 0;
  private cut = 0;
  private readonly reached = new Map<Category, number>();

  add(run: RunObservations): void {
    this.runs += 1;
    if (run.cutByBudget) this.cut += 1;
    for (const category of Object.keys(CATEGORIES) as Category[]) {
      if (CATEGORIES[category](run)) this.reached.set(category, (this.reached.get(category) ?? 0) + 1);
    }
  }

  /** Adds another coverage's counts to this one. */
  merge(other: Coverage): void {
    this.runs += other.runs;
    this.cut += other.cut;
    for (const [category, count] of other.reached)
      this.reached.set(category, (this.reached.get(category) ?? 0) + count);
  }

  /** The categories no run reached. */
  missing(): Category[] {
    return (Object.keys(CATEGORIES) as Category[]).filter((category) => !this.reached.has(category));
  }

  /** One line: how many runs, how many reached each category, how many the budget cut short. */
  report(): string {
    const counts = (Object.keys(CATEGORIES) as Category[])
      .map((category) => `${category} ${this.reached.get(category) ?? 0}`)
      .join(", ");
    return `${this.runs} runs reached: ${counts}; ${this.cut} cut short by the time budget`;
  }
}

/** What the wire shows a run reached: listens, broken streams, retried polls and cancels, stale pushed states. */
export function wireObservations(
  exchanges: readonly Exchange[],
  notifications: readonly SentNotification[],
): Pick<
  RunObservations,
  "pushedTasks" | "relistens" | "brokenStreams" | "pollRetries" | "cancelRetries" | "staleEqualStates"
> {
  const acknowledged = new Set<string>();
  let relistens = 0;
  for (const listen of exchanges.filter((each) => each.method === "subscriptions/listen")) {
    if (listen.listenTaskIds.some((taskId) => acknowledged.has(taskId))) relistens += 1;
    for (const ack of listen.acks) for (const taskId of ack.taskIds) acknowledged.add(taskId);
  }
  /** Requests of `method` that failed and were followed by another for the same task. */
  const retried = (method: string) =>
    exchanges.filter(
      (each, index) =>
        each.method === method &&
        each.taskId !== undefined &&
        failed(each) &&
        exchanges.slice(index + 1).some((later) => later.method === method && later.taskId === each.taskId),
    ).length;
  let staleEqualStates = 0;
  const last = new Map<unknown, Record<string, unknown>>();
  for (const sent of notifications) {
    if (sent.method !== "notifications/tasks") continue;
    const previous = last.get(sent.params["taskId"]);
    if (
      previous?.["status"] === "input_required" &&
      sent.params["status"] === "working" &&
      previous["lastUpdatedAt"] === sent.params["lastUpdatedAt"]
    )
      staleEqualStates += 1;
    last.set(sent.params["taskId"], sent.params);
  }
  return {
    pushedTasks: acknowledged.size,
    relistens,
    brokenStreams: exchanges.filter((each) => each.method === "subscriptions/listen" && each.end === "broke")
      .length,
    pollRetries: retried("tasks/get"),
    cancelRetries: retried("tasks/cancel"),
    staleEqualStates,
  };
}
