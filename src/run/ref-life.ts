/**
 * The one owner of a task ref's life in the client's `TaskStore` and of who follows the task (DESIGN decisions 12
 * and 15, "durable before visible", "store contracts are honest"). Every other file asks here; none decides by
 * itself when a ref is written, removed or released, or when a lease is taken or handed back.
 *
 * The rules, in full:
 * - **Enters**: a ref is written when the server created the task, and the handle reports the task only once the
 *   write resolved. Newer versions are written before input answers leave and when they are acknowledged. A
 *   rejected write is never taken for a done one (src/store/types.ts says what the run makes of it).
 * - **Leaves** when the server has said its last word: a terminal status (completed, failed, cancelled), whatever
 *   the client then made of it (a result refused by its `outputSchema`, or a payload it could not read, still ends
 *   the task on the server), a "not found", or the task's time to live has ended. {@link taskIsOver} decides this
 *   from how the run ended (its `Ending`), never from the kind of outcome the handle reports.
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
 * - **`close()`**: stops adoption first (no new claim), ends every handle (each releases its lease), then waits
 *   for the store's writes and closes the store, for at most `closeTimeoutMs` ({@link closeStore}): a frozen
 *   store cannot hold `close()`, and leases it could not hand back lapse by themselves after `leaseMs`. Nothing
 *   of a closed client runs afterwards: no adoption tick, no handle made from a late claim, no renewal timer of
 *   the store, whoever owns the Redis connection.
 */
import type { Ending } from "../lifecycle/types.js";
import type { Logger } from "../protocol/logging.js";
import type { TaskRef } from "../task/ref.js";
import type { TaskStore } from "../store/types.js";

/** The server has said its last word on the task: a terminal status or "not found". Nothing is left to cancel. */
export function serverSaidLastWord(ending: Ending | undefined): boolean {
  if (ending === undefined) return false;
  return ending.kind === "snapshot" || (ending.kind === "local" && ending.reason === "not_found");
}

/**
 * Whether following the task is over for good: the server has said its last word, or the task's time to live
 * has ended. Its ref leaves the store, and `close()` may end the HTTP session it was made in.
 */
export function taskIsOver(ending: Ending | undefined): boolean {
  return serverSaidLastWord(ending) || (ending?.kind === "local" && ending.reason === "expired");
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

  /** Writes the ref; rejects with the store's error (logged) when it was not stored. Ignored after the end. */
  put(ref: TaskRef, what: string): Promise<void> {
    if (this.done) return this.tail;
    return this.queue(() => this.store.put(ref), `${what} failed`, ref, true);
  }

  /** The handle ended: the ref leaves the store when the task is over, else its lease is handed back. */
  ended(ending: Ending | undefined, ref: TaskRef | undefined): void {
    if (this.done || ref === undefined || ending === undefined) return;
    this.done = true;
    if (taskIsOver(ending)) {
      void this.queue(() => this.store.remove(ref), "removing a finished task's ref failed", ref, false);
    } else if (this.store.release !== undefined) {
      void this.queue(() => releaseRef(this.store, ref), "releasing a task's ref failed", ref, false);
    }
  }

  private queue(write: () => Promise<void>, failure: string, ref: TaskRef, reject: boolean): Promise<void> {
    const result = this.tail.then(write).catch((error: unknown) => {
      this.log.error(`task store: ${failure}`, { taskId: this.redact(ref.taskId) }, error);
      if (reject) throw error;
    });
    this.tail = result.catch(() => undefined);
    this.track(this.tail);
    return result;
  }
}

function releaseRef(store: TaskStore, ref: TaskRef): Promise<void> {
  return store.release ? store.release(ref) : Promise.resolve();
}

/** What the adoption loop and `resume()` need of the client. */
export interface FollowerDeps {
  store: TaskStore;
  log: Logger;
  redact: (taskId: string) => string;
  /** Makes a live handle for a claimed ref; throws when this client cannot follow it. */
  follow(ref: TaskRef): void;
  /** Task ids a live handle of this client follows now. */
  followed(): Set<string | undefined>;
  /** Task ids already reported as not followable here: a later claim of one is logged at debug level only. */
  unfollowable?: Set<string>;
}

/** Task ids the adoption loop remembers as not followable here (it claims them again each round). */
const MAX_UNFOLLOWABLE = 10_000;

/**
 * Follows every claimed ref, or hands its claim back at once when it cannot be followed (or `stopped` says the
 * client is closing): a lease is held only while a live handle follows. Answers the refs followed.
 */
export function followClaimed(deps: FollowerDeps, refs: TaskRef[], stopped: () => boolean): TaskRef[] {
  const followed = deps.followed();
  const taken: TaskRef[] = [];
  for (const ref of refs) {
    if (followed.has(ref.taskId)) continue; // a live handle here already follows it, lease included
    if (stopped()) {
      handBack(deps, ref, "the client is closing");
      continue;
    }
    try {
      deps.follow(ref);
      taken.push(ref);
    } catch (error) {
      const known = deps.unfollowable;
      const message = "a stored task this client cannot follow is left to other workers";
      if (known?.has(ref.taskId) === true) deps.log.debug(message, error);
      else deps.log.warn(message, error);
      if (known !== undefined && known.size >= MAX_UNFOLLOWABLE) known.clear();
      known?.add(ref.taskId);
      handBack(deps, ref, "it cannot be followed here");
    }
  }
  return taken;
}

function handBack(deps: FollowerDeps, ref: TaskRef, why: string): void {
  releaseRef(deps.store, ref).catch((error: unknown) =>
    deps.log.error(
      `task store: handing back a claimed task (${why}) failed; the store retries it`,
      { taskId: deps.redact(ref.taskId) },
      error,
    ),
  );
}

/**
 * The adoption loop (`adopt: true`): every `everyMs`, takes over the store's tasks of this server whose lease
 * nobody holds, one round at a time. `stop()` ends it for good; a claim in flight when it stops is handed back
 * as it lands.
 */
export class Adoption {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  private readonly deps: FollowerDeps & { server: () => TaskRef["server"]; resume: () => Promise<unknown> };

  constructor(
    deps: FollowerDeps & {
      server: () => TaskRef["server"];
      /** For a store without `claimLapsed`: the client's `resume()`. */
      resume: () => Promise<unknown>;
    },
    everyMs: number,
  ) {
    this.deps = { ...deps, unfollowable: new Set() };
    this.timer = setInterval(() => this.tick(), everyMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    if (this.stopped || this.running) return;
    const { store } = this.deps;
    const round = store.claimLapsed
      ? store
          .claimLapsed(this.deps.server())
          .then((refs) => followClaimed(this.deps, refs, () => this.stopped))
      : this.deps.resume();
    this.running = round
      .catch((error: unknown) => this.deps.log.warn("adopting stored tasks failed", error))
      .finally(() => (this.running = undefined));
  }
}

/**
 * The end of `close()` for the store: waits for the writes in flight, then closes the store, for at most
 * `timeoutMs` in all. A store that does not finish in time is left to finish (or not) on its own: `close()` goes
 * on, with a warning; leases it could not hand back lapse after their `leaseMs`. A store whose close rejects
 * in time rejects `close()` with its error, as before.
 */
export async function closeStore(
  store: TaskStore | undefined,
  writes: ReadonlySet<Promise<void>>,
  timeoutMs: number,
  log: Logger,
): Promise<void> {
  if (store === undefined) return;
  const closing = (async () => {
    while (writes.size > 0) await Promise.allSettled([...writes]);
    await store.close?.();
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), timeoutMs)));
  try {
    const ended = await Promise.race([closing, late]);
    if (ended === "late") {
      log.warn(
        `closing the task store took longer than closeTimeoutMs (${timeoutMs} ms); closing without it: ` +
          "leases it still holds lapse by themselves",
      );
      closing.catch(() => undefined);
    }
  } finally {
    clearTimeout(timer);
  }
}
