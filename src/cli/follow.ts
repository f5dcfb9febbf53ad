/**
 * Following one task to its end, for `call` and `watch`: its events go to the reporter, its ref's latest status
 * to the store, and Ctrl-C means "cancel": the first sends `tasks/cancel` and waits for the server's final
 * word, a second detaches and prints how to pick the task up again.
 */
import {
  AuthError,
  TaskEndedError,
  type CallToolResult,
  type TaskHandle,
  type TaskOutcome,
} from "../index.js";
import { firstLine } from "./args.js";
import type { CliStore } from "./cli-store.js";
import { exitCodeOf } from "./exit-codes.js";
import type { Reporter } from "./reporter.js";
import { oneLine } from "./terminal-text.js";

export interface Follow {
  handle: TaskHandle<CallToolResult>;
  reporter: Reporter;
  store: CliStore;
  /**
   * The command that follows the task from another shell, for the resume hint; undefined when the task cannot
   * outlive this command (a stdio server stops with it).
   */
  resumeHint: (taskId: string) => string | undefined;
  /** Where Ctrl-C arrives; the command installs it on the process (and on readline while prompting). */
  interrupts: Interrupts;
  /** Looks at the outcome before it is reported; throws a `UsageError` for a call the server refused. */
  check?: (outcome: TaskOutcome<CallToolResult>) => void;
  /** What to tell the user when the server refused the credentials (what it wants, how to log in). */
  authAdvice?: (error: AuthError) => string;
}

/** Ctrl-C, from the process's SIGINT or from an open prompt. */
export class Interrupts {
  private listener: (() => void) | undefined;
  private readonly onSignal = () => this.fire();

  install(): void {
    process.on("SIGINT", this.onSignal);
  }

  uninstall(): void {
    process.off("SIGINT", this.onSignal);
  }

  set(listener: () => void): void {
    this.listener = listener;
  }

  fire(): void {
    this.listener?.();
  }
}

/** Follows the handle to its end; resolves with the outcome and the exit code (already reported). */
export async function follow({
  handle,
  reporter,
  store,
  resumeHint,
  interrupts,
  check,
  authAdvice,
}: Follow): Promise<number> {
  let announced = false;
  handle.on("task", (taskId) => {
    announced = true;
    reporter.task(taskId);
  });
  handle.on("update", (update) => {
    reporter.update(update);
    if (update.taskId !== undefined) void store.note(update.taskId, update.status, update.statusMessage);
  });
  handle.on("input", (event) => reporter.input(event));
  handle.on("inputUnanswered", (event) => reporter.unanswered(event));
  let presses = 0;
  let ended = false; // nothing more is printed once the outcome is
  let userDetached: (outcome: TaskOutcome<CallToolResult>) => void = () => undefined;
  const detachedByUser = new Promise<TaskOutcome<CallToolResult>>((resolve) => (userDetached = resolve));
  interrupts.set(() => {
    presses++;
    if (presses === 1) {
      reporter.say(
        "cancelling: sent tasks/cancel, waiting for the server's final word (Ctrl-C again to detach)",
      );
      void handle.cancel().then(({ ack, error }) => {
        if (ended) return;
        if (error !== undefined) reporter.say(`the server refused the cancel: ${oneLine(firstLine(error))}`);
        else if (ack !== undefined) reporter.say("the server acknowledged the cancel");
      });
    } else if (presses === 2) {
      // `detach()` ends a cancelling handle at once; the race below also covers a handle that is mid-way
      // through settling, so the second press never waits. The ref stays in the store.
      handle.detach();
      const taskId = handle.taskId;
      userDetached({ kind: "detached", taskId, error: new TaskEndedError("detached", taskId) });
    }
  });
  const outcome = await Promise.race([handle.outcome(), detachedByUser]);
  interrupts.set(() => undefined);
  // A handle can end (a short deadline, a detach) while the new task's ref is still being stored, before its
  // `task` event: the id is printed anyway, so the user never loses a task the server created.
  if (!announced && outcome.taskId !== undefined) reporter.task(outcome.taskId);
  check?.(outcome);
  const code = exitCodeOf(outcome);
  if (outcome.kind === "cancelled") {
    reporter.say(
      outcome.error.confirmed
        ? "the server confirmed the cancellation"
        : "the server did not confirm the cancellation in time",
    );
  }
  if ((outcome.kind === "detached" || outcome.kind === "deadline_exceeded") && outcome.taskId !== undefined) {
    const again = resumeHint(outcome.taskId);
    if (again === undefined) {
      // Nothing can follow this task once the server is gone: `ls` must not list it as running.
      const ref = await handle.ref;
      if (ref !== undefined) await store.remove(ref);
    }
    reporter.say(
      again === undefined
        ? "the stdio server stops with this command, and the task with it: it cannot be followed from another shell"
        : `the task keeps running; follow it with: ${again}`,
      { taskId: outcome.taskId },
    );
  }
  if (outcome.kind === "error" && outcome.error instanceof AuthError && authAdvice !== undefined) {
    const advice = authAdvice(outcome.error);
    const again = outcome.taskId === undefined ? undefined : resumeHint(outcome.taskId);
    const resume =
      again === undefined ? "" : `; the task keeps running: once authorized, follow it with: ${again}`;
    reporter.say(`${advice}${resume}`, outcome.taskId === undefined ? undefined : { taskId: outcome.taskId });
  }
  ended = true;
  reporter.finish(outcome, code);
  return code;
}
