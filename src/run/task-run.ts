/**
 * The interpreter of one call's lifecycle. It owns nothing but resources: the handle's sink, a place in the
 * shared poll scheduler and the alarm clock, the input machinery. Every decision is the pure `transition`
 * (src/lifecycle); this file feeds it events and performs the effects it returns, so a request in flight never
 * keeps a deadline, a grace period or a `close()` from acting.
 */
import type { CallToolResult, CreateTaskResult, DetailedTask, InputResponse } from "../schema/index.js";
import { Method, isTerminalStatus } from "../protocol/constants.js";
import { LeaseLostError, McpTasksError, refNotStored } from "../protocol/errors.js";
import type { ClassifiedResult } from "../protocol/codec.js";
import { orphanToCancel, prepareThen } from "../eras/dialect.js";
import { nextPollDelay, type CadenceState, type PollCause } from "../scheduler/cadence.js";
import type { PollJob } from "../scheduler/types.js";
import type { Poller, PollTarget } from "../eras/task-requests.js";
import { Alarm, type AlarmTarget } from "../scheduler/alarm-clock.js";
import { createTask, type TaskHandle, type TaskSink } from "../task/handle.js";
import type { CancelResult, TaskController, TaskOutcome, TaskWatcher } from "../task/types.js";
import type { TaskRef } from "../task/ref.js";
import { InputRespondError, type InputCoordinator, type InputRounds } from "../input/index.js";
import type { TaskInputTarget } from "../input/server-requests.js";
import { alarmEvent, initialState, nextAlarm, pollDueEvent, transition } from "../lifecycle/transition.js";
import type { CallAnswer, CallEvent, CallState, Effect, Ending } from "../lifecycle/types.js";
import type { RunContext } from "./context.js";
import type { CallSpec } from "../eras/dialect.js";
import { pollFault, settle } from "./endings.js";
import { inputCoordinatorFor, inputRoundsFor, taskInboxFor } from "./input.js";
import type { TaskInbox } from "../input/task-inbox.js";
import { NO_REF, refNow } from "./ref-keeper.js";
import { RefKeeper, taskIsOver } from "./ref-life.js";
import { cancelAfterEnd, cancelOrphan, cancelWithRetries, type CancelReply } from "./cancel.js";
import type { OutputCheck } from "../tools/output-checks.js";

export class TaskRun
  implements TaskController, PollJob, PollTarget, TaskInputTarget, AlarmTarget, CadenceState
{
  readonly handle: TaskHandle<CallToolResult>;
  private readonly sink: TaskSink<CallToolResult>;
  private state: CallState;
  /** Events raised while a transition's effects run; created only when that happens. */
  private queue: CallEvent[] | undefined;
  private dispatching = false;
  /** Sends this run's scheduled `tasks/get` (made at the first poll, once the task id is known). */
  private poller: Poller | undefined;
  /** The scheduler's `done` for the run whose `tasks/get` is out: it counts against `maxInFlight` until answered. */
  private pollDone: (() => void) | undefined;
  /** This run's place on the alarm clock, made when a first time limit applies. */
  private alarm: Alarm | undefined;
  private rounds: { abort: AbortController; rounds: InputRounds } | undefined;
  private input: InputCoordinator | undefined;
  private inbox: TaskInbox | undefined; // made when the first server request naming this task arrives
  private created: CreateTaskResult | undefined;
  /** The `tasks/cancel` of this handle: its acknowledgement, or why there is none. */
  private cancelReply: Promise<CancelReply> | undefined;
  /** Stop the `tasks/cancel` retries (when the handle ends), and the attempt on the wire (when the grace ends). */
  private cancelRetries: AbortController | undefined;
  private cancelRequest: AbortController | undefined;
  private removeAbortListener: (() => void) | undefined;
  /** Writes to the client's store, in order (only with a store). */
  private readonly refs: RefKeeper | undefined;
  /** The event whose fence passed, applied now. */
  private fenced: CallEvent | undefined;
  /** How the handle ended (why, not what it reports): what ./ref-life.ts decides the task's fate from. */
  ending: Ending | undefined;
  /** The check of this call's result against its tool's output schema, once looked up (undefined: none). */
  private outputCheck: OutputCheck | undefined;
  /** Whether the check was looked up; `checking` is set while the lookup waits for the tool list. */
  private checkLookedUp = false;
  private checking: Promise<void> | undefined;
  /** The tool list the check came from (`OutputChecks.generation`), and whether a refused result was rechecked. */
  private checkGeneration = 0;
  private rechecked = false;
  /** Whether the check was looked up again because the tool list changed after the first lookup. */
  private relooked = false;
  /*
   * What the cadence owner (src/scheduler/cadence.ts) reads, kept here so a run costs no extra object. Whole
   * milliseconds (rounded up, so a wait is never cut short), so they stay small integers V8 does not box.
   */
  lastPollAt: number | undefined = undefined;
  retryDelayMs = 0;
  pollOwed = false;
  private isPushed = false;

  constructor(
    private readonly context: RunContext,
    private readonly call: CallSpec | undefined,
    deadline: number | undefined,
    private readonly signal: AbortSignal | undefined,
    private readonly known: Partial<TaskRef> = NO_REF,
  ) {
    this.state = initialState(deadline);
    if (context.store)
      this.refs = new RefKeeper(context.store, context.log, context.redact, context.trackWrite);
    const { handle, sink } = createTask<CallToolResult>(this);
    this.handle = handle;
    this.sink = sink;
  }

  /** Sends the call (or, with `taskId`, follows a task that already exists). */
  start(taskId?: string): void {
    const signal = this.signal;
    if (signal?.aborted) {
      // Nothing is sent: the caller cancelled before the call began.
      this.dispatch({ type: "cancelRequested", reason: signal.reason });
      this.dispatch({ type: "callFailed", error: signal.reason });
      return;
    }
    if (signal) {
      const onAbort = () => void this.cancel(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      this.removeAbortListener = () => signal.removeEventListener("abort", onAbort);
    }
    this.dispatch(taskId === undefined ? { type: "start" } : { type: "resume", taskId });
  }

  /** Installs the handle's internal watcher (telemetry's task trace); see `TaskSink.watch`. */
  watch(watcher: TaskWatcher<CallToolResult>): void {
    this.sink.watch(watcher);
  }

  /** The task id, once the call's answer (or the ref resumed from) brought it. */
  get taskId(): string | undefined {
    return this.state.taskId;
  }

  /** How the handle ended, once it has. */
  get outcome(): TaskOutcome<CallToolResult> | undefined {
    return this.sink.outcome;
  }

  /* ---- TaskController: what the handle asks -------------------------------------------------------- */

  cancel(reason?: unknown): Promise<CancelResult<CallToolResult>> {
    if (this.state.phase !== "ended") this.dispatch({ type: "cancelRequested", reason });
    else this.cancelReply ??= cancelAfterEnd(this.context, this.state.taskId, taskIsOver(this.ending));
    // The reply is read after the end: a cancel made before the task id existed is sent only when it arrives.
    return this.sink.settled.then(async (outcome) => {
      const { ack, error } = (await this.cancelReply) ?? {};
      return { ack, error, outcome };
    });
  }

  /** The transition ends the handle: at once, or when the call's answer brings the task id. */
  detach(): void {
    this.dispatch({ type: "detachRequested" });
  }

  respond(key: string, response: InputResponse): Promise<void> {
    if (this.rounds) return this.rounds.rounds.respond(key, response);
    if (this.inbox?.knows(key)) return this.inbox.respond(key, response);
    if (this.input) return this.input.respond(key, response);
    return Promise.reject(new InputRespondError(key, "unknown_key"));
  }

  /** A server request naming this task (2025-era input); undefined once the handle has ended. */
  serverRequest(...[key, request, signal]: Parameters<TaskInputTarget["serverRequest"]>) {
    const { phase, taskId } = this.state;
    if (phase === "ended" || taskId === undefined) return undefined;
    const toolName = this.call?.toolName ?? this.known.toolName;
    this.inbox ??= taskInboxFor(this.context, taskId, toolName, this.sink, (event) => this.dispatch(event));
    return this.inbox.receive(key, request, signal);
  }

  /** One `tasks/get` now, outside the cadence; the snapshot also updates the handle. */
  async describe(): Promise<DetailedTask> {
    const snapshot = await this.context.tasks.describe(this.state.taskId);
    this.dispatch({ type: "observed", snapshot });
    return snapshot;
  }

  /** The task's reference as of now (answered input keys included), once the id is known. */
  ref(): TaskRef | undefined {
    const taskId = this.state.taskId;
    if (taskId === undefined) return undefined;
    return refNow(
      this.context,
      taskId,
      this.call,
      this.known,
      [this.sink.snapshot, this.created],
      this.input,
    );
  }

  /**
   * Ends the handle because the client is closing; one whose call is unanswered waits for the answer (and the new
   * ref's write), unless `force` (the client stopped waiting).
   */
  closeForClient(force = false): void {
    this.dispatch({ type: "close", force });
  }

  /**
   * A 2025 status notification announced `status`, which only a poll can show in full: one poll now, unless the
   * handle shows that status already (a server repeating itself brings no poll forward).
   */
  statusNotified(status: string): void {
    if (this.sink.snapshot?.status !== status) this.planPoll("statusNotified");
  }

  /** Feeds a snapshot observed elsewhere (a pushed notification). */
  observe(snapshot: DetailedTask): void {
    this.dispatch({ type: "observed", snapshot });
  }

  /* ---- Pushed updates (src/notifications): while a listen stream carries this task, polls are a safety net */

  /** CadenceState: the interval the server suggested last (on the newest snapshot shown). */
  get serverIntervalMs(): unknown {
    return this.sink.snapshot?.pollIntervalMs;
  }

  /** CadenceState: a listen pushes this task's changes and no cancel waits for its answer (then polls matter). */
  get pushed(): boolean {
    return this.isPushed && this.state.phase === "polling";
  }

  /**
   * A listen pushes this task: one catch-up poll if it was not pushed before (unless it was polled all along since
   * the subscription began, `caughtUp`), then the safety net.
   */
  pushing(caughtUp: boolean): void {
    if (this.isPushed) return; // carried into another listen: nothing was missed, nothing to poll
    this.isPushed = true;
    this.planPoll(caughtUp ? "replan" : "listenAcknowledged");
  }

  /**
   * No listen pushes this task any more: a stream that broke after it proved itself polls at once, any other end
   * resumes the interval since the last poll.
   */
  notPushed(broke: boolean): void {
    if (!this.isPushed) return;
    this.isPushed = false;
    this.planPoll(broke ? "streamBroke" : "replan");
  }

  /**
   * Plans the next poll through the cadence owner. A one-shot asked for while a `tasks/get` is in flight is owed
   * (its answer plans the next poll, which then goes out at once); anything else waits for that answer too.
   */
  private planPoll(cause: PollCause, retryDelayMs = 0): void {
    if (this.state.phase === "ended") return;
    if (cause === "interval") {
      this.retryDelayMs = 0;
    } else if (cause === "retry") {
      this.retryDelayMs = retryDelayMs;
    } else if (cause !== "replan") {
      this.pollOwed = true;
    }
    if (this.state.pollInFlight) return;
    const scheduler = this.context.scheduler;
    scheduler.schedule(this, nextPollDelay(cause, this, this.context.cadence, scheduler.now()));
  }

  /* ---- PollJob: the scheduler says the next poll is due -------------------------------------------- */

  run(done: () => void): void {
    this.pollDone = done;
    this.dispatch(pollDueEvent);
    // No `tasks/get` went out (the handle ended, or it was answered at once): the run is over.
    if (!this.state.pollInFlight) this.endPoll();
  }

  /** PollTarget: the scheduled `tasks/get` answered with a valid snapshot of this task. */
  polled(snapshot: DetailedTask): void {
    this.lastPollAt = Math.ceil(this.context.scheduler.now());
    try {
      this.dispatch({ type: "pollAnswered", snapshot });
    } finally {
      this.endPoll();
    }
  }

  /** PollTarget: the scheduled `tasks/get` failed (or its answer was not a valid snapshot of this task). */
  pollFailed(error: unknown, fenced = false): void {
    this.lastPollAt = Math.ceil(this.context.scheduler.now());
    const fault = fenced ? "transient" : pollFault(error); // a store that could not renew: poll again later
    const retryDelayMs = this.context.retryDelay(this.state.pollFailures + 1, error);
    try {
      this.dispatch({ type: "pollFailed", error, fault, retryDelayMs });
    } finally {
      if (!fenced) this.endPoll();
    }
  }

  /**
   * The store's fence for this task (src/store/types.ts), when its lease must be renewed before acting; a `last`
   * word (a terminal snapshot) is always confirmed with the store (src/run/ref-life.ts, "Leaves").
   */
  private fence(last = false): Promise<boolean> | undefined {
    // Without a store that fences (every client without one), no ref is made: this runs for every answer.
    const store = this.context.store;
    if (store?.fence === undefined) return undefined;
    const ref = this.ref();
    return ref && store.fence(ref, last);
  }

  private endPoll(): void {
    const done = this.pollDone;
    this.pollDone = undefined;
    done?.();
  }

  /* ---- The interpreter ----------------------------------------------------------------------------- */

  /**
   * Applies an event. Events raised while effects run (a listener that cancels, a handler that answers at
   * once) wait in a queue, so every transition sees the state the previous one left.
   */
  private dispatch(event: CallEvent): void {
    // Fencing: a snapshot is acted on (reported, its input answered) only while this worker's lease surely runs.
    const fencing =
      event !== this.fenced && "snapshot" in event
        ? this.fence(isTerminalStatus(event.snapshot.status))
        : undefined;
    if (fencing) {
      fencing.then(
        (owned) => {
          if (owned) this.dispatch((this.fenced = event));
        },
        (error: unknown) => {
          if (event.type === "pollAnswered") this.pollFailed(error, true);
        },
      );
      return;
    }
    if (carriesResult(event) && (this.awaitsCheck() || this.awaitsRecheck(event))) {
      // The result is handed to the transition once the tool's check is known, so it can be checked there.
      void (this.checking as Promise<void>).then(() => this.dispatch(event));
      return;
    }
    if (this.dispatching) {
      (this.queue ??= []).push(event);
      return;
    }
    this.dispatching = true;
    try {
      for (let next: CallEvent | undefined = event; next !== undefined; next = this.queue?.shift()) {
        const wasLive = this.state.phase !== "ended";
        const step = transition(this.state, next, this.context.config, this.context.now());
        this.state = step.state;
        for (const effect of step.effects) {
          try {
            this.perform(effect);
          } catch (error) {
            // A bug or a broken dependency must end this handle with the error, never escape into a callback.
            this.context.log.error(`task run: effect ${effect.type} failed`, error);
            (this.queue ??= []).push({ type: "failed", error });
          }
        }
        if (wasLive && this.state.phase === "ended") this.release();
        else this.armAlarm();
      }
    } finally {
      this.dispatching = false;
    }
  }

  private perform(effect: Effect): void {
    switch (effect.type) {
      case "sendCall":
        this.sendCall();
        return;
      case "runInputRounds":
        this.runInputRounds(effect.first);
        return;
      case "stopInputRounds":
        this.rounds?.abort.abort(effect.reason);
        return;
      case "persist":
        this.created = effect.task;
        this.persist(effect.task);
        return;
      case "follow":
        this.created = effect.task;
        this.sink.setTaskId(effect.taskId);
        this.context.following(this, effect.taskId);
        // A task takes a while: its result should not wait for the tool list (none comes to an ended handle).
        if (this.state.phase !== "ended") this.lookUpCheck();
        return;
      case "show":
        this.show(effect.snapshot);
        return;
      case "schedulePoll":
        this.planPoll(effect.cause, effect.retryDelayMs);
        return;
      case "sendPoll":
        this.pollOwed = false; // this poll is sent after whatever asked for one
        (this.poller ??= this.context.tasks.pollerFor(effect.taskId, this)).poll();
        return;
      case "sendCancel":
        this.cancelReply = this.sendCancel(effect.taskId);
        // A pushed task waited out the safety net; while cancelling it is polled at the interval again.
        if (this.isPushed) this.planPoll("replan");
        return;
      case "retrying":
        this.sink.emitRetry({ method: effect.method, error: effect.error, attempt: effect.attempt });
        this.context.log.debug(
          `${effect.method}: retry ${effect.attempt} after a transient fault`,
          effect.error,
        );
        return;
      case "settle":
        this.ending = effect.ending;
        settle(this.sink, effect.ending, this.state, this.context.toOutcome, this.outputCheck);
        return;
      case "cancelOrphan":
        this.orphan(effect.taskId);
        return;
    }
  }

  /* ---- The output schema check --------------------------------------------------------------------- */

  /**
   * Looks the check up once (with `validateOutput` and a known tool), and once more when a result comes after the
   * tool list was dropped (the server said it changed); true while the lookup is still waiting. Once only: a
   * server announcing changes without end cannot hold a result back.
   */
  private awaitsCheck(): boolean {
    const checks = this.context.outputChecks;
    const stale = this.checkLookedUp && this.checking === undefined && checks !== undefined;
    if (stale && !this.relooked && !this.rechecked && checks.generation !== this.checkGeneration) {
      this.relooked = true;
      this.checkLookedUp = false;
    }
    this.lookUpCheck();
    return this.checking !== undefined;
  }

  /**
   * A result the check refuses is checked again, once, against the tool list fetched anew before it is refused:
   * the server may have changed the tool's schema without this client hearing of it (a 2026-07-28 connection
   * hears `notifications/tools/list_changed` only while a listen is open). True while that list is fetched.
   */
  private awaitsRecheck(event: CallEvent): boolean {
    const checks = this.context.outputChecks;
    const check = this.outputCheck;
    if (this.rechecked || checks === undefined || check === undefined) return false;
    const result = resultOf(event);
    if (result === undefined) return false;
    if (check(result, Method.toolsCall, this.state.taskId) === undefined) {
      // It passed: the transition hands this very result on without checking it a second time.
      this.outputCheck = (other, method, taskId) =>
        other === result ? undefined : check(other, method, taskId);
      return false;
    }
    this.rechecked = true;
    const toolName = (this.call?.toolName ?? this.known.toolName) as string;
    this.awaitCheck(
      checks.recheckFor(toolName, this.checkGeneration, check),
      "looking up a tool's output schema again failed",
    );
    return true;
  }

  /**
   * Holds results until `lookup` gives the tool's check. A failed lookup is never expected (each settles its own
   * faults) and is logged; a result must not wait for ever on it.
   */
  private awaitCheck(lookup: Promise<OutputCheck | undefined>, failure: string): void {
    this.checking = lookup.then(
      (check) => {
        this.outputCheck = check;
        this.checking = undefined;
      },
      (error: unknown) => {
        this.context.log.error(failure, error);
        this.checking = undefined;
      },
    );
  }

  private lookUpCheck(): void {
    if (this.checkLookedUp) return;
    this.checkLookedUp = true;
    const toolName = this.call?.toolName ?? this.known.toolName;
    const checks = this.context.outputChecks;
    if (checks === undefined || toolName === undefined) return;
    this.checkGeneration = checks.generation;
    const lookup = checks.checkFor(toolName);
    if (!(lookup instanceof Promise)) {
      this.outputCheck = lookup;
      return;
    }
    this.awaitCheck(lookup, "looking up a tool's output schema failed");
  }

  /* ---- Effects ------------------------------------------------------------------------------------- */

  private sendCall(): void {
    const failed = (error: unknown) => this.dispatch({ type: "callFailed", error });
    // tools/call is not retried: a lost answer may hide a task the server already created (no tasks/list).
    const send = (call: CallSpec) =>
      void this.context
        .sendCall(call.method, call.params, this.handle)
        .then((raw) => this.answered(call, raw), failed);
    // The era's framing (2025: task augmentation from the tool list); a 2026 call goes out synchronously.
    prepareThen(this.context.dialect, this.call as CallSpec, send, failed);
  }

  private answered(call: CallSpec, raw: Record<string, unknown>): void {
    let answer: ClassifiedResult;
    try {
      answer = this.context.dialect.classify(call, raw);
    } catch (error) {
      // A task the client cannot follow (wrong method, not declared): ask the server to stop it.
      const orphan = orphanToCancel(error);
      if (orphan !== undefined) this.orphan(orphan);
      this.dispatch({ type: "callFailed", error });
      return;
    }
    // The dialect validated a complete tools/call answer as a CallToolResult.
    this.dispatch({ type: "callAnswered", answer: answer as CallAnswer });
  }

  /** Multi-round-trip input before a task exists: answer, send the call again, until the server stops asking. */
  private runInputRounds(first: object): void {
    const call = this.call as CallSpec;
    const abort = new AbortController();
    const rounds = inputRoundsFor(this.context, call, this.sink, abort.signal);
    this.rounds = { abort, rounds };
    // No abort signal on the resent calls: an answer may carry a task id that must not be lost.
    rounds
      .run(first, (retry) => this.context.sendCall(call.method, { ...call.params, ...retry }, this.handle))
      .then(
        (raw) => {
          this.rounds = undefined;
          this.answered(call, raw);
        },
        (error: unknown) => {
          this.rounds = undefined;
          this.dispatch({ type: "callFailed", error });
        },
      );
  }

  private show(snapshot: DetailedTask): void {
    this.sink.accept(snapshot, undefined, this.input); // what was answered orders snapshots stamped alike
    if (this.sink.snapshot !== undefined) this.created = undefined; // the newest snapshot serves the ref now
    // A stale snapshot (say, a notification that overtook a newer poll) must not reach the input ledger either.
    if (this.sink.snapshot !== snapshot) return;
    // Every snapshot goes to the coordinator once it exists: a working one tells it which keys are no longer wanted.
    if (snapshot.status === "input_required" || this.input) this.inputCoordinator().observe(snapshot);
  }

  /**
   * `tasks/cancel` with transient retries. The retries stop when the handle ends (the grace bounds them); an
   * attempt on the wire then is still answered, until the grace ends, so `cancel()` reports the acknowledgement
   * of a server whose final word came first.
   */
  private sendCancel(taskId: string): Promise<CancelReply> {
    this.cancelRetries = new AbortController();
    this.cancelRequest = new AbortController();
    const stop = { request: this.cancelRequest.signal, retries: this.cancelRetries.signal };
    return cancelWithRetries(this.context, taskId, stop, {
      // Polls keep their cadence meanwhile: a retry brings none forward (the task may end on its own anyway).
      retrying: (attempt, error) => this.sink.emitRetry({ method: Method.tasksCancel, error, attempt }),
      answered: () => this.dispatch({ type: "cancelAnswered" }),
      refused: (error) => this.dispatch({ type: "cancelFailed", error }),
    });
  }

  /** A task nobody can follow: ask the server to stop it, and report its id (the client's `orphan` event). */
  private orphan(taskId: string): void {
    cancelOrphan(this.context, taskId);
    this.context.orphaned(this, taskId);
  }

  private inputCoordinator(): InputCoordinator {
    this.input ??= inputCoordinatorFor(this.context, {
      taskId: this.state.taskId as string,
      toolName: this.call?.toolName ?? this.known.toolName,
      answered: this.known.answeredInputKeys,
      pending: this.known.pendingInputAnswers,
      storeAnswers: () => this.storeRef("storing input answers before sending them"),
      sink: this.sink,
      pollSoon: () => this.planPoll("inputSubmitted"),
      submitted: () => void this.storeRef("storing answered input keys").catch(() => undefined), // logged
      cancelTask: (reason) => this.dispatch({ type: "cancelRequested", reason }),
      fail: (error) => this.dispatch({ type: "failed", error }),
    });
    return this.input;
  }

  /* ---- The store (decision 15: a write that failed is never taken for one that succeeded) ------------------ */

  /** Stores a new task's ref; the handle reports the task only once it is stored. */
  private persist(task: CreateTaskResult): void {
    (this.refs as RefKeeper).put(this.ref() as TaskRef, "storing a new task's ref").then(
      () => this.dispatch({ type: "stored", task }),
      (error: unknown) => {
        const cancel = !(error instanceof LeaseLostError); // another worker's task is not ours to stop
        const failure = refNotStored(task.taskId, error);
        this.dispatch({ type: "storeFailed", task, error: failure, cancel });
      },
    );
  }

  /** Stores the ref as of now; rejects when it was not stored. A lost lease ends the handle: another worker follows. */
  private storeRef(what: string): Promise<void> {
    const ref = this.ref();
    if (ref === undefined || this.refs === undefined) return Promise.resolve();
    // Fenced before and after (the input answers leave next): never written nor sent past the lease's end.
    const refs = this.refs;
    return this.leased()
      .then(() => refs.put(ref, what, true))
      .then(() => this.leased())
      .catch((error: unknown) => {
        if (error instanceof LeaseLostError) this.dispatch({ type: "detachRequested" });
        throw error;
      });
  }

  /** Resolves while this worker's lease on the task runs (renewed if need be); `LeaseLostError` once it is lost. */
  private async leased(): Promise<void> {
    const fencing = this.fence();
    if (fencing && !(await fencing)) throw new LeaseLostError("another worker follows this task now");
  }

  /** AlarmTarget: the nearest time limit has come. */
  ring(): void {
    this.dispatch(alarmEvent);
  }

  /** Keeps the alarm clock set for the nearest time limit of the current state (free when it did not move). */
  private armAlarm(): void {
    const at = nextAlarm(this.state);
    if (at !== undefined) this.context.alarms.set((this.alarm ??= new Alarm(this)), at);
    else if (this.alarm !== undefined) this.context.alarms.clear(this.alarm);
  }

  /** Aborts the `tasks/cancel` on the wire when the cancel's grace ends (at once if it has), unless answered first. */
  private endCancelRequest(request: AbortController, reason: unknown): void {
    const left = (this.state.cancel?.graceUntil ?? 0) - this.context.now();
    if (left <= 0 || this.cancelReply === undefined) return request.abort(reason);
    const timer = setTimeout(() => request.abort(reason), left);
    void this.cancelReply.finally(() => clearTimeout(timer));
  }

  /** Lets go of everything the run holds; a `tasks/cancel` already sent is not withdrawn. */
  private release(): void {
    this.context.scheduler.unschedule(this);
    if (this.alarm !== undefined) this.context.alarms.clear(this.alarm);
    this.removeAbortListener?.();
    this.removeAbortListener = undefined;
    this.rounds?.abort.abort(new McpTasksError("the task handle ended"));
    const ended = new McpTasksError("the task handle ended");
    this.cancelRetries?.abort(ended);
    if (this.cancelRequest !== undefined) this.endCancelRequest(this.cancelRequest, ended);
    this.input?.dispose();
    this.inbox?.dispose();
    this.refs?.ended(this.ending, this.ref());
    this.context.released(this);
  }
}

/** Whether an event brings a result to check: a complete answer, or a completed snapshot (tool errors exempt). */
/** The tool result an event carries, as far as a check reads it (`isError`, `structuredContent`). */
function resultOf(event: CallEvent): CallToolResult | undefined {
  if (event.type === "callAnswered")
    return event.answer.kind === "complete" ? (event.answer.result as CallToolResult) : undefined;
  if (event.type !== "pollAnswered" && event.type !== "observed") return undefined;
  const result: unknown = event.snapshot.status === "completed" ? event.snapshot.result : undefined;
  return typeof result === "object" && result !== null ? (result as CallToolResult) : undefined;
}

function carriesResult(event: CallEvent): boolean {
  switch (event.type) {
    case "callAnswered":
      return event.answer.kind === "complete" && event.answer.result.isError !== true;
    case "pollAnswered":
    case "observed": {
      const snapshot = event.snapshot;
      return (
        snapshot.status === "completed" &&
        (snapshot.result as { isError?: unknown } | undefined)?.isError !== true
      );
    }
    default:
      return false;
  }
}
