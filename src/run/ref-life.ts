/**
 * The one owner of a task ref's life in the client's `TaskStore` and of who follows the task (DESIGN decisions 12
 * and 15, "durable before visible", "store contracts are honest"). Every other file asks here; none decides by
 * itself when a ref is written, removed or released, or when a lease is taken or handed back.
 *
 * The rules, in full:
 * - **Enters**: a ref is written when the server created the task, and the handle reports the task only once the
 *   write resolved. Newer versions are written before input answers leave and when they are acknowledged, each
 *   only while this worker's lease surely runs (fenced like a snapshot) and, on a store with leases, only over
 *   a ref still stored and this worker's: a worker that wakes late never brings back a removed ref, it ends as
 *   one whose lease was lost. A rejected write is never taken for a done one (src/store/types.ts says what the
 *   run makes of it).
 * - **Leaves** when the server has said its last word: a terminal status (completed, failed, cancelled), whatever
 *   the client then made of it (a result refused by its `outputSchema`, or a payload it could not read, still ends
 *   the task on the server), a "not found", or the task's time to live has ended. {@link taskIsOver} decides this
 *   from how the run ended (its `Ending`), never from the kind of outcome the handle reports. On a store with
 *   leases the handle reports that last word only once the store itself confirmed the lease (`fence` with
 *   `last`), never by the worker's clock alone, and the removal follows at once, inside the lease just renewed:
 *   a worker whose store froze never reports a task that another worker then adopts and reports again. A crash
 *   between the report and the removal makes the adopter report it once more: at least once, never lost.
 * - **Stays, lease handed back** on every other ending (detached, deadline, poll retries exhausted, an
 *   unconfirmed cancel, an error here, the client closing): the task may still run, and `resume()` or another
 *   worker's adoption follows it. The same rule keeps the client's HTTP session open at `close()`.
 * - **Who follows**: a lease is held exactly while a live handle of this client follows the task. The adoption
 *   loop ({@link Adoption}) claims lapsed refs and makes a handle for each at once; a ref it cannot follow (a task
 *   of another protocol era, a server without the extension: making the handle throws) is released at once, as
 *   is a claim that lands after adoption stopped. `resume()` does the same with what it claims.
 * - **Durable before forgotten**: a release or a removal is written before the store forgets the task locally; a
 *   store with leases retries a failed one at each renewal until it is written or the store closes (which ends
 *   every lease this worker has). Each failure is logged, never silently taken for done.
 * - **`close()`**: stops adoption first (no new claim), ends every handle (each releases its lease), except that
 *   one whose `tools/call` is unanswered waits for the answer and the new ref's write first (at most
 *   `closeTimeoutMs`, {@link closeRuns}): a task id once received is never dropped. Then it waits for the store's
 *   writes and closes the store, for at most `closeTimeoutMs` again ({@link closeStore}): a frozen store cannot
 *   hold `close()`, and leases it could not hand back lapse by themselves after `leaseMs`. Nothing
 *   of a closed client runs afterwards: no adoption tick, no handle made from a late claim, no renewal timer of
 *   the store, whoever owns the Redis connection.
 */
import type { Ending } from "../lifecycle/types.js";
import type { Logger } from "../protocol/logging.js";
import type { TaskRef } from "../task/ref.js";
import type { TaskStore } from "../store/types.js";

/**
 * Whether following the task is over for good: the server has said its last word (a terminal status, or "not
 * found"), or the task's time to live has ended (the server has forgotten it). Its ref leaves the store,
 * `close()` may end the HTTP session it was made in, and a `cancel()` after the end has nothing left to stop.
 */
export function taskIsOver(ending: Ending | undefined): boolean {
  if (ending?.kind === "snapshot") return true;
  const reason = (ending as { reason?: unknown } | undefined)?.reason; // a local ending's
  return reason === "not_found" || reason === "expired";
}

/** One task run's writes to the client's store, in order; the run's view of the rules above. */
export class RefKeeper {
  /** The last write queued; the next waits for it, so a removal never overtakes a put. */
  private tail: Promise<void> = Promise.resolve();
  private done = false;

  constructor(
    private readonly store: TaskStore,
    private readonly log: Logger,
    private readonly redact: (taskId: string) => string,
    /** Told of every write, so the client can wait for them before it closes the store. */
    private readonly track: (write: Promise<void>) => void = () => undefined,
  ) {}

  /**
   * Writes the ref; rejects with the store's error (logged) when it was not stored. Ignored after the end. A
   * newer version (`update`) is written only while the ref is stored and this worker's, on a store with leases.
   */
  put(ref: TaskRef, what: string, update = false): Promise<void> {
    if (this.done) return this.tail;
    const store = this.store;
    const write = () => (update && store.update ? store.update(ref) : store.put(ref));
    return this.queue(write, `${what} failed`, ref, true);
  }

  /** The handle ended: the ref leaves the store when the task is over, else its lease is handed back. */
  ended(ending: Ending | undefined, ref: TaskRef | undefined): void {
    if (this.done || ref === undefined || ending === undefined) return;
    this.done = true;
    const over = taskIsOver(ending);
    const store = this.store;
    void this.queue(
      () => (over ? store.remove(ref) : store.release?.(ref)),
      `${over ? "removing" : "releasing"} a task's ref failed`,
      ref,
      false,
    );
  }

  private queue(
    write: () => Promise<void> | undefined,
    failure: string,
    ref: TaskRef,
    reject: boolean,
  ): Promise<void> {
    const result = this.tail.then(write).catch((error: unknown) => {
      this.log.error(`task store: ${failure}`, { taskId: this.redact(ref.taskId) }, error);
      if (reject) throw error;
    });
    this.tail = result.catch(() => undefined);
    this.track(this.tail);
    return result;
  }
}

/** What the adoption loop and `resume()` need of the client. */
export interface FollowerDeps {
  store: TaskStore;
  log: Logger;
  /** Makes a live handle for a claimed ref; throws when this client cannot follow it. */
  follow(ref: TaskRef): void;
  /** Whether the client is closing: a claim that lands then is handed back. */
  closed(): boolean;
}

/**
 * Follows a claimed ref, or hands the claim back at once (durably: src/store/redis.ts retries a failed release)
 * when this client cannot follow it or is closing: a lease is held only while a live handle follows.
 */
export function followClaimed(deps: FollowerDeps, ref: TaskRef): void {
  try {
    if (!deps.closed()) return deps.follow(ref);
  } catch (error) {
    deps.log.warn("cannot follow a stored task", error);
  }
  deps.store.release?.(ref).catch((error: unknown) => deps.log.warn("handing a task back failed", error));
}

/**
 * The adoption loop (`adopt: true`): every `everyMs`, takes over the store's tasks of this server whose lease
 * nobody holds, one round at a time, skipping those a live handle here already follows. The function it answers
 * stops it for good; a claim in flight then is handed back as it lands.
 */
export function startAdoption(
  deps: FollowerDeps & {
    /** This server as stored refs are matched to it; undefined when it has no identity (nothing is adopted). */
    server: () => TaskRef["server"] | undefined;
    /** Task ids live handles of this client follow now. */
    followed: () => Set<string | undefined>;
    /** For a store without `claimLapsed`: the client's `resume()`. */
    resume: () => Promise<unknown>;
  },
  everyMs: number,
): () => void {
  const { store, log } = deps;
  let running = false;
  const timer = setInterval(() => {
    if (running) return; // stopped by close() before anything else
    const server = deps.server();
    if (server === undefined) return;
    running = true;
    const round = store.claimLapsed
      ? store.claimLapsed(server).then((refs) => {
          const followed = deps.followed();
          for (const ref of refs) if (!followed.has(ref.taskId)) followClaimed(deps, ref);
        })
      : deps.resume();
    round
      .catch((error: unknown) => log.warn("adopting stored tasks failed", error))
      .finally(() => (running = false));
  }, everyMs);
  return () => clearInterval(timer);
}

/** Whether `timeoutMs` passed before `work` settled; a rejection of `work` in time (or late) is the caller's. */
async function timedOut(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<true>((resolve) => (timer = setTimeout(resolve, timeoutMs, true)));
  try {
    // The race handles a late rejection of `work` too.
    return await Promise.race([work.then(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What `close()` asks of a run that may still wait for its call's answer. */
export interface ClosingRun {
  readonly handle: { readonly isSettled: boolean; outcome(): Promise<unknown> };
  closeForClient(force?: boolean): void;
}

/** `send`, with each request kept in `out` until it is answered or fails: what `close()` waits for. */
export function tracked<A extends unknown[], R>(
  send: (...args: A) => Promise<R>,
  out: Set<Promise<unknown>>,
): (...args: A) => Promise<R> {
  return (...args) => {
    const request = send(...args);
    out.add(request);
    const done = () => void out.delete(request);
    request.then(done, done);
    return request;
  };
}

/**
 * The start of `close()` for the handles: each ends, except one whose `tools/call` is unanswered (the server may
 * be making a task), which waits for the answer and, with a store, the new ref's write. `close()` also waits for
 * the answers of `calls` whose handle ended already (a deadline): a task in one is announced (`orphan`) and
 * cancelled. All this for at most `timeoutMs`, so that a task the server made is kept (its ref stored and handed
 * back, its id on the outcome, the client's `task` event). Any handle still waiting then ends without an id, with
 * a warning: a task the server makes after that is followed by nobody, and lives on until its time to live ends.
 */
export async function closeRuns(
  runs: Iterable<ClosingRun>,
  calls: ReadonlySet<Promise<unknown>>,
  timeoutMs: number,
  log: Logger,
): Promise<void> {
  const all = [...runs];
  for (const run of all) run.closeForClient();
  const waiting = all.filter((run) => !run.handle.isSettled);
  if (waiting.length === 0 && calls.size === 0) return;
  const answered = (async () => {
    await Promise.all(waiting.map((run) => run.handle.outcome()));
    while (calls.size > 0) await Promise.allSettled([...calls]);
  })();
  if (await timedOut(answered, timeoutMs)) {
    const left = waiting.filter((run) => !run.handle.isSettled);
    log.warn(
      `close(): gave up after closeTimeoutMs on ${String(calls.size)} tools/call answer(s) and ` +
        `${String(left.length)} handle(s) waiting for one; a task the server makes for them is followed by nobody`,
    );
    for (const run of left) run.closeForClient(true);
  }
}

/**
 * The end of `close()` for the store: waits for the writes in flight, then closes the store, for at most
 * `timeoutMs` in all. A store that does not finish in time is closed at once with an aborted signal (it sends
 * nothing more; its leases lapse after `leaseMs`), with a warning; a store whose close rejects in time rejects
 * `close()` with its error.
 */
export async function closeStore(
  store: TaskStore | undefined,
  writes: ReadonlySet<Promise<void>>,
  timeoutMs: number,
  log: Logger,
): Promise<void> {
  const stop = new AbortController();
  let called = false;
  const shut = (): Promise<void> | undefined => ((called = true), store?.close?.(stop.signal));
  const closing = (async () => {
    while (writes.size > 0 && !stop.signal.aborted) await Promise.allSettled([...writes]);
    if (!called) await shut();
  })();
  if (await timedOut(closing, timeoutMs)) {
    log.warn("closing the store timed out");
    // Given up: the store is closed now and sends nothing more, even what is still queued in it.
    stop.abort();
    if (!called) shut()?.catch(() => undefined);
  }
}
