/**
 * Everything one task handle knows, in one place: the task id, the state machine, the latest update, the
 * outcome, and who is watching (iterators, event listeners, awaiting code, telemetry's watcher). The driver
 * writes to it through the `TaskSink` methods; the public `TaskHandle` only reads from it.
 *
 * It is built to be cheap when nobody watches (a benchmark keeps 100,000 in flight): promises, the event
 * emitter, the set of iterators and even the state machine are created on first use, and nothing is retained
 * per update except the latest one.
 */
import type { DetailedTask } from "../schema/index.js";
import { Emitter } from "./emitter.js";
import { TaskState, type AnsweredInput } from "./state.js";
import { UpdateCursor, type CursorOwner } from "./cursor.js";
import { isTerminalTask, mapTerminal, outcomeOfSnapshot, resultOf } from "./outcome.js";
import type {
  InputRequestEvent,
  OutcomeMapper,
  RetryEvent,
  TaskController,
  TaskHandleEvents,
  TaskOutcome,
  TaskSink,
  TaskUpdate,
  TaskWatcher,
  UnansweredInputAction,
} from "./types.js";

type EventName = keyof TaskHandleEvents;

export class TaskCore<T> implements TaskSink<T>, CursorOwner<T> {
  taskId: string | undefined = undefined;
  /** The latest update; after the end, the terminal update if there was one. New iterators start here. */
  current: TaskUpdate<T> | undefined = undefined;
  outcome: TaskOutcome<T> | undefined = undefined;
  private state: TaskState | undefined = undefined;
  private emitter: Emitter<TaskHandleEvents<T>> | undefined = undefined;
  private watcher: TaskWatcher<T> | undefined = undefined;
  private cursors: Set<UpdateCursor<T>> | undefined = undefined;
  private outcomePromise: Promise<TaskOutcome<T>> | undefined = undefined;
  private resolveOutcome: ((outcome: TaskOutcome<T>) => void) | undefined = undefined;
  private resultPromise: Promise<T> | undefined = undefined;
  private createdPromise: Promise<string | undefined> | undefined = undefined;
  private resolveCreated: ((taskId: string | undefined) => void) | undefined = undefined;

  constructor(readonly controller: TaskController) {}

  /* ---- TaskSink: what the driver writes ------------------------------------------------------------ */

  get isSettled(): boolean {
    return this.outcome !== undefined;
  }

  get settled(): Promise<TaskOutcome<T>> {
    return this.outcomeOf();
  }

  get snapshot(): DetailedTask | undefined {
    return this.state?.snapshot;
  }

  setTaskId(taskId: string): boolean {
    if (this.outcome !== undefined || typeof taskId !== "string") return false;
    if (this.taskId !== undefined) return this.taskId === taskId;
    this.taskId = taskId;
    this.resolveCreated?.(taskId);
    this.resolveCreated = undefined;
    this.emit("task", taskId);
    return true;
  }

  onTaskId(listener: (taskId: string | undefined) => void): void {
    void this.created().then(listener);
  }

  accept(
    snapshot: DetailedTask,
    toOutcome: OutcomeMapper<T> = outcomeOfSnapshot,
    input?: AnsweredInput,
  ): boolean {
    if (this.outcome !== undefined || typeof snapshot?.taskId !== "string") return false;
    if (this.taskId === undefined) this.setTaskId(snapshot.taskId);
    else if (snapshot.taskId !== this.taskId) return false;
    const verdict = (this.state ??= new TaskState()).offer(snapshot, input);
    if (verdict !== "changed") return false;
    if (!isTerminalTask(snapshot)) {
      this.publish(updateOf<T>(snapshot, undefined));
      return true;
    }
    const outcome = mapTerminal(snapshot, toOutcome);
    this.publish(updateOf(snapshot, outcome.kind === "completed" ? outcome.result : undefined));
    this.settle(outcome);
    return true;
  }

  completeImmediately(result: T): boolean {
    return this.settle({ kind: "completed", taskId: this.taskId, result });
  }

  settle(outcome: TaskOutcome<T>): boolean {
    if (this.outcome !== undefined) return false;
    if (outcome.kind === "completed" && !this.current?.terminal) {
      this.publish({
        taskId: this.taskId,
        status: "completed",
        statusMessage: undefined,
        terminal: true,
        inputRequests: undefined,
        result: outcome.result,
        snapshot: undefined,
      });
    }
    // A task the handle never reported (its ref could not be written in time): its id is still the handle's.
    if (this.taskId === undefined && typeof outcome.taskId === "string") this.taskId = outcome.taskId;
    this.outcome = outcome;
    const cursors = this.cursors;
    this.cursors = undefined;
    if (cursors) for (const cursor of cursors) cursor.end();
    this.resolveCreated?.(this.taskId);
    this.resolveCreated = undefined;
    this.resolveOutcome?.(outcome);
    this.resolveOutcome = undefined;
    this.emit("settled", outcome);
    // Nothing is emitted after `settled`: free the listeners of a handle the app may keep for a long time.
    this.emitter?.removeAllListeners();
    this.emitter = undefined;
    this.watcher = undefined;
    return true;
  }

  watch(watcher: TaskWatcher<T>): void {
    if (this.outcome === undefined) this.watcher = watcher;
  }

  emitInput(event: InputRequestEvent): void {
    this.emit("input", event);
  }

  emitInputUnanswered(event: InputRequestEvent & { reason: string; action: UnansweredInputAction }): void {
    this.emit("inputUnanswered", event);
  }

  emitRetry(event: RetryEvent): void {
    this.emit("retry", event);
  }

  /* ---- What the handle reads ----------------------------------------------------------------------- */

  outcomeOf(): Promise<TaskOutcome<T>> {
    this.outcomePromise ??=
      this.outcome !== undefined
        ? Promise.resolve(this.outcome)
        : new Promise((resolve) => (this.resolveOutcome = resolve));
    return this.outcomePromise;
  }

  /** Created only when someone awaits, so an ignored failed handle never raises `unhandledRejection`. */
  result(): Promise<T> {
    this.resultPromise ??= this.outcomeOf().then(resultOf);
    return this.resultPromise;
  }

  created(): Promise<string | undefined> {
    this.createdPromise ??=
      this.taskId !== undefined || this.outcome !== undefined
        ? Promise.resolve(this.taskId)
        : new Promise((resolve) => (this.resolveCreated = resolve));
    return this.createdPromise;
  }

  /** The emitter to add listeners to; undefined once the handle has ended (no event would ever fire). */
  events(): Emitter<TaskHandleEvents<T>> | undefined {
    if (this.outcome !== undefined) return undefined;
    this.emitter ??= new Emitter<TaskHandleEvents<T>>();
    return this.emitter;
  }

  /** The emitter if one exists, to remove listeners from. */
  existingEvents(): Emitter<TaskHandleEvents<T>> | undefined {
    return this.emitter;
  }

  /**
   * A new iterator. Mid-flight it starts with the current state; after the end it yields the terminal update
   * (if the task reached one) and finishes.
   */
  openCursor(): UpdateCursor<T> {
    if (this.outcome !== undefined) {
      const cursor = new UpdateCursor<T>(undefined);
      if (this.current?.terminal) cursor.push(this.current);
      cursor.end();
      return cursor;
    }
    const cursor = new UpdateCursor<T>(this);
    if (this.current !== undefined) cursor.push(this.current);
    (this.cursors ??= new Set()).add(cursor);
    return cursor;
  }

  /** How many iterators are still receiving updates (released ones are not counted). */
  get iteratorCount(): number {
    return this.cursors?.size ?? 0;
  }

  releaseCursor(cursor: UpdateCursor<T>): void {
    this.cursors?.delete(cursor);
    if (this.cursors?.size === 0) this.cursors = undefined;
  }

  /* ---- Internals ----------------------------------------------------------------------------------- */

  private publish(update: TaskUpdate<T>): void {
    this.current = update;
    if (this.cursors) for (const cursor of this.cursors) cursor.push(update);
    this.emit("update", update);
  }

  /**
   * Emits to listeners, if any. A listener that throws must not break the state machine or the driver that
   * called in, so its error is reported on its own (like an uncaught error in any callback).
   */
  private emit<E extends EventName>(event: E, arg: Parameters<TaskHandleEvents<T>[E]>[0]): void {
    const watcher = this.watcher;
    if (watcher !== undefined) {
      try {
        (watcher[event] as (arg: unknown) => void).call(watcher, arg);
      } catch (error) {
        reportListenerError(error);
      }
    }
    const emitter = this.emitter;
    if (emitter === undefined) return;
    try {
      (emitter.emit as (event: EventName, arg: unknown) => boolean).call(emitter, event, arg);
    } catch (error) {
      reportListenerError(error);
    }
  }
}

/** The update a snapshot produces. Every update has the same keys, so they share one object shape. */
function updateOf<T>(snapshot: DetailedTask, result: T | undefined): TaskUpdate<T> {
  return {
    taskId: snapshot.taskId,
    status: snapshot.status,
    statusMessage: snapshot.statusMessage,
    terminal: isTerminalTask(snapshot),
    inputRequests: snapshot.status === "input_required" ? snapshot.inputRequests : undefined,
    result,
    snapshot,
  };
}

function reportListenerError(error: unknown): void {
  const report = (globalThis as { reportError?: (error: unknown) => void }).reportError;
  if (typeof report === "function") report(error);
  else
    queueMicrotask(() => {
      throw error;
    });
}
