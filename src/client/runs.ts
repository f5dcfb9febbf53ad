/**
 * Owner of the client's live runs: which handles have not ended, which task each follows, and which tasks made in
 * the client's own HTTP session may still be followed by someone (while any may, `close()` keeps that session:
 * ./shutdown.ts). A task stops counting only once it is over for good, as `taskIsOver` (../run/ref-life.ts) says.
 */
import type { CallToolResult } from "../schema/index.js";
import type { TaskHandle } from "../task/handle.js";
import { taskIsOver } from "../run/ref-life.js";
import type { TaskRun } from "../run/task-run.js";

export class ClientRuns {
  private readonly live = new Set<TaskRun>();
  /** Runs made by `callTool`: their tasks live in this client's HTTP session. */
  private readonly calls = new WeakSet<TaskRun>();
  /** Tasks created in this client's HTTP session that may still be followed. */
  private readonly followable = new Set<string>();

  /** A run starts; `call` says `callTool` made it (its task lives in the client's own HTTP session). */
  add(run: TaskRun, call: boolean): void {
    this.live.add(run);
    if (call) this.calls.add(run);
  }

  get size(): number {
    return this.live.size;
  }

  /** The runs that have not ended, oldest first. */
  all(): TaskRun[] {
    return [...this.live];
  }

  /** The handles that have not ended, oldest first. */
  handles(): TaskHandle<CallToolResult>[] {
    return [...this.live].map((run) => run.handle);
  }

  /** The live run following `taskId`, if any. */
  runFor(taskId: string): TaskRun | undefined {
    for (const run of this.live) if (run.taskId === taskId) return run;
    return undefined;
  }

  /** The live runs by the task id they follow. */
  byTaskId(): Map<string, TaskRun> {
    const map = new Map<string, TaskRun>();
    for (const run of this.live) if (run.taskId !== undefined) map.set(run.taskId, run);
    return map;
  }

  /** A run learned its task id. */
  learned(run: TaskRun, taskId: string): void {
    if (this.calls.has(run)) this.followable.add(taskId);
  }

  /** A task nobody follows was left running (its cancel is not followed to a confirmation). */
  leftRunning(taskId: string): void {
    this.followable.add(taskId);
  }

  /** A run's handle ended. */
  ended(run: TaskRun): void {
    this.live.delete(run);
    if (run.taskId !== undefined && taskIsOver(run.ending)) this.followable.delete(run.taskId);
  }

  /** Whether no task made in the client's own HTTP session may still be followed. */
  get noneFollowable(): boolean {
    return this.followable.size === 0;
  }
}
