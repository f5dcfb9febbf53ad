/**
 * Task status notifications (DESIGN decision 10: observation has two sources, one path). `Subscriptions` asks
 * the server to push the client's tasks with `subscriptions/listen` (`notifications.taskIds`) and feeds every
 * `notifications/tasks` into the same `observe` path a poll answer takes, so validation, monotonic ordering and
 * input handling are shared. The acknowledgement decides: an acknowledged task is polled only as a slow safety
 * net (`run.pushing`); a task the server left out, or whose listen was refused, keeps its regular polling.
 * When a poll goes out is never decided here: the run's cadence owner (src/scheduler/cadence.ts) hears what
 * happened (`pushing`, `notPushed`) and decides.
 *
 * Streams stay few: ids followed within one batch window share a listen, a listen carries at most
 * `maxIdsPerListen` ids and at most `maxStreams` listens are open; past that cap, new ids are merged into the
 * stream with most room, or wait, polled as usual. A merge is make-before-break: a new listen for the union is
 * sent, and the stream it replaces keeps pushing its tasks until that listen is acknowledged, so a carried task
 * misses nothing and is not polled again. A stream is closed once none of its tasks is live. A refusal of the
 * method itself (-32601, -32021, or HTTP 404 / 405 for the listen) stops listening on this connection.
 *
 * A listen also asks for `toolsListChanged` when the server advertises `tools.listChanged` (MCP: a listen is the
 * only way a 2026-07-28 client hears of a changed tool list): the `notifications/tools/list_changed` a stream
 * carries reaches the connection's tool catalog and a TaskHost like any other notification, once per stream
 * that carries it. While no listen is open nothing is heard, and a refused result is checked again against a
 * fresh `tools/list` before it is refused (src/tools/output-checks.ts).
 *
 * A stream has to prove itself: it counts as working once it has stayed open `provenAfterMs` (the client's
 * `notificationSafetyNetMs`) after its acknowledgement. An acknowledgement alone proves nothing (decision 10:
 * polling is the safety net; a server that acknowledged every listen and closed it at once would otherwise
 * get re-listens and polls ~2.7 times a second).
 * When a stream ends on the server's side:
 * - a proven one has its pushed tasks polled at once (what it carried may be lost) and listened for again after
 *   the first backoff;
 * - one that ended sooner returns its tasks to their interval, measured from their last poll (no early poll: it
 *   pushed for less time than it could have lost), counts a break for each, and listens again after a backoff that
 *   grows with the breaks; after `retry.retries` such ends in a row a task is only polled. While a task's listens
 *   keep ending like this, an acknowledgement no longer slows its polling down (no catch-up poll, no safety-net
 *   cadence) until its stream has proved itself.
 */
import type { DetailedTask } from "../schema/index.js";
import { ErrorCode, MetaKey, Method } from "../protocol/constants.js";
import { parseTaskNotification } from "../protocol/codec.js";
import { McpTasksError, RpcError, TransportError } from "../protocol/errors.js";
import { backoffDelay } from "../scheduler/retry.js";
import type { RetryTiming } from "../scheduler/types.js";
import type { RpcChannel } from "../session/types.js";
import type { Logger } from "../protocol/logging.js";

/** Refusals that mean this server (or this client's declaration) cannot listen at all. */
const UNSUPPORTED: ReadonlySet<number> = new Set([
  ErrorCode.methodNotFound,
  ErrorCode.missingRequiredClientCapability,
  ErrorCode.legacyMissingRequiredClientCapability,
]);

/**
 * HTTP statuses that refuse the listen request itself (no such endpoint or method): retrying cannot help on
 * this connection.
 */
const REFUSING_HTTP_STATUS: ReadonlySet<number> = new Set([404, 405]);

/**
 * The safety net of a pushed task, by default (`notificationSafetyNetMs`): how long a stream must stay open to
 * count as working, and the floor of the slow poll that still checks on a pushed task.
 */
export const DEFAULT_SAFETY_NET_MS = 30_000;

/** What a subscription needs of a task's run (`TaskRun` is one). */
export interface PushTarget {
  /**
   * A listen pushes the task's changes: regular polls become the safety net. Called again when the task is carried
   * into a merged listen; only the first call of a push may bring a poll forward, and only when `caughtUp` is false
   * (an acknowledgement: one poll catches what changed before the subscription). `caughtUp`: the task was polled
   * at its interval since the subscription began (its stream just proved itself).
   */
  pushing(caughtUp: boolean): void;
  /** No listen pushes the task any more; `broke`: its stream broke, so pushed changes may have been lost. */
  notPushed(broke: boolean): void;
  /** Feeds a pushed snapshot into the run's update path. */
  observe(snapshot: DetailedTask): void;
}

/** The connection as subscriptions use it (`Session` is one). */
export interface ListenChannel extends RpcChannel {
  /** Streamable HTTP: aborting a request's signal closes its stream. Otherwise a listen ends with `notifications/cancelled`. */
  readonly perRequestStreams: boolean;
  readonly isClosed: boolean;
}

export interface SubscriptionsOptions {
  channel: ListenChannel;
  log: Logger;
  /** Backoff of re-listens after a stream broke; `retries` bounds the unproven ends in a row per task. */
  retry: RetryTiming;
  /** How long an acknowledged stream must stay open to count as working. Default 30000. */
  provenAfterMs?: number;
  /** How long newly followed ids wait to share one listen. Default 10 ms. */
  batchMs?: number;
  /** Most task ids per listen. Default 2500. */
  maxIdsPerListen?: number;
  /** Most listen streams open at once. Default 4. */
  maxStreams?: number;
  /** Ask every listen for `notifications/tools/list_changed` too (the server advertised `tools.listChanged`). */
  toolsListChanged?: boolean;
}

/** One `subscriptions/listen` request and its stream. */
class ListenStream {
  /** The live tasks this stream carries (or is asked to carry, until acknowledged). */
  readonly ids: Set<string>;
  readonly abort = new AbortController();
  subscriptionId: string | undefined;
  acknowledged = false;
  /** It stayed open `provenAfterMs` after its acknowledgement: it works. */
  proven = false;
  /** Set at the acknowledgement; proves the stream when it fires. */
  proofTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  /** Over: closed by us, broken, or refused; a late answer or frame changes nothing. */
  over = false;
  /** A merge: the stream this listen replaces once acknowledged (it keeps pushing its tasks until then). */
  replaces: ListenStream | undefined = undefined;
  /** The merged listen that will replace this stream once acknowledged. */
  replacedBy: ListenStream | undefined = undefined;

  constructor(ids: readonly string[]) {
    this.ids = new Set(ids);
  }
}

interface Watched {
  taskId: string;
  run: PushTarget;
  stream: ListenStream | undefined;
  /**
   * Streams of this task that ended before they proved themselves, in a row. While above 0, an acknowledgement
   * does not make the task pushed: only a stream that proves itself does.
   */
  breaks: number;
  /** Refused or left out by the server, or out of re-listen attempts: polling only from now on. */
  pollOnly: boolean;
}

export class Subscriptions {
  private readonly watched = new Map<string, Watched>();
  /** Ids waiting for a listen, in adoption order. */
  private readonly pending = new Set<string>();
  private readonly streams = new Set<ListenStream>();
  private readonly bySubscription = new Map<string, ListenStream>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly batchMs: number;
  private readonly maxIds: number;
  private readonly maxStreams: number;
  private readonly provenAfterMs: number;
  private readonly stopListening: () => void;
  /** The server cannot listen (or the client closed): no listen is sent any more. */
  private disabled = false;

  constructor(private readonly options: SubscriptionsOptions) {
    this.batchMs = options.batchMs ?? 10;
    this.maxIds = options.maxIdsPerListen ?? 2500;
    this.maxStreams = options.maxStreams ?? 4;
    this.provenAfterMs = options.provenAfterMs ?? DEFAULT_SAFETY_NET_MS;
    this.stopListening = options.channel.onNotification((method, params) => {
      if (method === Method.tasksNotification) this.onTask(params);
      else if (method === Method.subscriptionsAcknowledged) this.onAcknowledged(params);
    });
  }

  /** Listen streams open now (for tests and diagnostics). */
  get openStreams(): number {
    return this.streams.size;
  }

  /** A run learned its task id: listen for it with the next batch. */
  follow(run: PushTarget, taskId: string): void {
    if (this.disabled || this.watched.has(taskId)) return;
    this.watched.set(taskId, { taskId, run, stream: undefined, breaks: 0, pollOnly: false });
    this.pending.add(taskId);
    this.flushSoon();
  }

  /** A run ended: forget its task; a stream left without live tasks is closed. */
  released(run: PushTarget, taskId: string | undefined): void {
    if (taskId === undefined) return;
    const entry = this.watched.get(taskId);
    if (entry?.run !== run) return; // another run follows this task id (or none is watched)
    this.watched.delete(taskId);
    this.pending.delete(taskId);
    if (this.pending.size === 0 && this.flushTimer !== undefined) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    const stream = entry?.stream;
    if (stream === undefined) return;
    // A task carried into a merged listen is asked for there too.
    for (const carrier of [stream, stream.replacedBy]) {
      if (carrier === undefined || !carrier.ids.delete(taskId)) continue;
      if (carrier.ids.size === 0) this.endStream(carrier, "none of its tasks is live");
    }
    if (this.pending.size > 0) this.flushSoon(); // room for ids waiting at the stream cap
  }

  /** Ends every stream and timer; nothing is listened for again. */
  close(): void {
    this.disabled = true;
    this.stopListening();
    this.pending.clear();
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const stream of [...this.streams]) this.endStream(stream, "the client closed");
  }

  /* ---- Opening listens ----------------------------------------------------------------------------- */

  private flushSoon(delayMs = this.batchMs): void {
    if (this.flushTimer !== undefined || this.disabled) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flush();
    }, delayMs);
  }

  private flush(): void {
    if (this.disabled || this.options.channel.isClosed) return;
    const ids = [...this.pending];
    while (ids.length > 0) {
      if (this.lasting() < this.maxStreams) {
        this.open(ids.splice(0, this.maxIds), undefined);
        continue;
      }
      // At the cap: replace the stream with most room by one listen for its tasks and some new ones. Only an
      // acknowledged stream that no merge replaces yet qualifies (a merge waits for one to be acknowledged).
      let roomiest: ListenStream | undefined;
      for (const stream of this.streams) {
        if (!stream.acknowledged || stream.replacedBy !== undefined) continue;
        if (roomiest === undefined || stream.ids.size < roomiest.ids.size) roomiest = stream;
      }
      const room = roomiest === undefined ? 0 : this.maxIds - roomiest.ids.size;
      if (roomiest === undefined || room < Math.min(ids.length, Math.ceil(this.maxIds / 4))) break;
      this.open([...roomiest.ids, ...ids.splice(0, room)], roomiest);
    }
    // Whatever is left keeps polling and waits for room (a stream that closes or is acknowledged calls flushSoon).
  }

  /** Open streams that no merge is about to replace: what counts against `maxStreams`. */
  private lasting(): number {
    let count = 0;
    for (const stream of this.streams) if (stream.replacedBy === undefined) count++;
    return count;
  }

  /** Sends a listen for `ids`; with `replaces`, a merge: the ids it carries stay on that stream until the ack. */
  private open(ids: readonly string[], replaces: ListenStream | undefined): void {
    const stream = new ListenStream(ids);
    if (replaces !== undefined) {
      stream.replaces = replaces;
      replaces.replacedBy = stream;
    }
    for (const taskId of ids) {
      this.pending.delete(taskId);
      const entry = this.watched.get(taskId);
      if (entry !== undefined && (replaces === undefined || entry.stream !== replaces)) entry.stream = stream;
    }
    this.streams.add(stream);
    this.options.channel
      .request(
        Method.listen,
        { notifications: this.filterFor(ids) },
        {
          signal: stream.abort.signal,
          timeoutMs: Infinity,
          onId: (id) => {
            stream.subscriptionId = id;
            this.bySubscription.set(id, stream);
          },
        },
      )
      .then(
        () => this.streamEnded(stream, undefined),
        (error: unknown) => this.streamEnded(stream, error),
      );
  }

  /** The `notifications` filter of a listen for `ids` (MCP `SubscriptionFilter` with the extension's `taskIds`). */
  private filterFor(ids: readonly string[]): Record<string, unknown> {
    const filter: Record<string, unknown> = { taskIds: [...ids] };
    if (this.options.toolsListChanged === true) filter["toolsListChanged"] = true;
    return filter;
  }

  /* ---- What the server says ------------------------------------------------------------------------ */

  private streamOf(params: Record<string, unknown>): ListenStream | undefined | null {
    const meta = params["_meta"];
    const id =
      typeof meta === "object" && meta !== null
        ? (meta as Record<string, unknown>)[MetaKey.subscriptionId]
        : undefined;
    if (id === undefined) return null; // not stamped: route by task id
    return this.bySubscription.get(String(id));
  }

  private onAcknowledged(params: Record<string, unknown>): void {
    let stream = this.streamOf(params);
    if (stream === null) {
      // An unstamped acknowledgement belongs to the oldest listen still waiting for one.
      stream = [...this.streams].find((candidate) => !candidate.acknowledged);
    }
    if (stream === undefined || stream.over || stream.acknowledged) return;
    stream.acknowledged = true;
    const notifications = params["notifications"] as { taskIds?: unknown } | undefined;
    const listed = Array.isArray(notifications?.taskIds) ? notifications.taskIds : [];
    const accepted = new Set(listed.filter((id): id is string => typeof id === "string"));
    let declined = 0;
    for (const taskId of [...stream.ids]) {
      const entry = this.watched.get(taskId);
      if (entry === undefined) continue;
      if (accepted.has(taskId)) {
        entry.stream = stream;
        entry.pollOnly = false;
        // Newly pushed: the run polls once to catch what changed before the server subscribed. A task carried
        // over from the stream this listen replaces is pushed already: nothing was missed, nothing is polled.
        // A task whose last streams ended unproven waits until this one proves itself (`proven`).
        if (entry.breaks === 0) entry.run.pushing(false);
        continue;
      }
      declined++;
      stream.ids.delete(taskId);
      this.pollOnly(entry);
    }
    this.options.log.debug(
      `subscriptions/listen: ${stream.ids.size} task(s) pushed, ${declined} left to polling`,
    );
    const replaced = stream.replaces;
    if (replaced !== undefined) {
      stream.replaces = undefined;
      replaced.replacedBy = undefined;
      this.endStream(replaced, "merged into a new listen");
    }
    if (stream.ids.size === 0) {
      this.endStream(stream, "the server acknowledged none of its tasks");
      return;
    }
    stream.proofTimer = setTimeout(() => this.proven(stream), this.provenAfterMs);
    if (this.pending.size > 0) this.flushSoon(); // a merge may have waited for this acknowledgement
  }

  /**
   * The stream stayed open long enough to count as working: its tasks' earlier unproven ends are forgiven, and a
   * task that waited for this becomes pushed. It was polled at its interval meanwhile, since the subscription
   * began: there is nothing to catch up on.
   */
  private proven(stream: ListenStream): void {
    stream.proofTimer = undefined;
    if (stream.over) return;
    stream.proven = true;
    for (const taskId of stream.ids) {
      const entry = this.watched.get(taskId);
      if (entry?.stream !== stream || entry.breaks === 0) continue;
      entry.breaks = 0;
      entry.run.pushing(true);
    }
  }

  private onTask(params: Record<string, unknown>): void {
    const stream = this.streamOf(params);
    if (stream === undefined) return; // stamped for a subscription that is not (or no longer) ours
    let snapshot: DetailedTask;
    try {
      snapshot = parseTaskNotification(params);
    } catch (error) {
      this.options.log.warn("dropped an invalid notifications/tasks", error);
      return;
    }
    this.watched.get(snapshot.taskId)?.run.observe(snapshot);
  }

  /* ---- Ending streams ------------------------------------------------------------------------------ */

  /** Closes a stream on our side: abort its HTTP stream, or `notifications/cancelled` for the listen. */
  private endStream(stream: ListenStream, reason: string): void {
    if (!this.forget(stream)) return;
    this.unlink(stream);
    stream.abort.abort(new McpTasksError(`subscriptions/listen ended: ${reason}`));
    const channel = this.options.channel;
    if (!channel.perRequestStreams && stream.subscriptionId !== undefined && !channel.isClosed) {
      channel
        .notify(Method.cancelled, { requestId: stream.subscriptionId, reason })
        .catch((error: unknown) =>
          this.options.log.debug("notifications/cancelled for a listen failed", error),
        );
    }
    if (this.pending.size > 0) this.flushSoon();
  }

  /** The listen request ended on the server's side: answered, refused, or its stream broke. */
  private streamEnded(stream: ListenStream, error: unknown): void {
    if (!this.forget(stream)) return;
    // A merged listen that failed leaves the tasks it would have carried over on the stream they are on.
    this.unlink(stream);
    const entries = [...stream.ids].flatMap((taskId) => {
      const entry = this.watched.get(taskId);
      return entry?.stream === stream ? [entry] : [];
    });
    for (const entry of entries) entry.stream = undefined;
    if (this.disabled || this.options.channel.isClosed) return;
    const log = this.options.log;
    const refusal = refusalOf(error);
    if (refusal !== undefined) {
      const { code, unsupported } = refusal;
      log.info(
        `subscriptions/listen refused (${code}): polling its ${entries.length} task(s) instead` +
          (unsupported ? "; this client listens no more" : ""),
        error,
      );
      for (const entry of entries) this.pollOnly(entry);
      if (unsupported) this.disable();
      else if (this.pending.size > 0) this.flushSoon();
      return;
    }
    const proven = stream.proven;
    log.debug(
      `a listen stream ended ${proven ? "after it proved itself" : "before it proved itself"}; listening again ` +
        `for its ${entries.length} task(s)`,
      error,
    );
    let breaks = 0;
    const again: Watched[] = [];
    for (const entry of entries) {
      if (proven) {
        entry.breaks = 0;
        entry.run.notPushed(true); // it carried changes: poll at once for what the break may have lost
        again.push(entry);
        continue;
      }
      entry.breaks++;
      entry.run.notPushed(false); // back to the interval since the last poll: no early poll
      if (entry.breaks > this.options.retry.retries) this.pollOnly(entry);
      else again.push(entry);
      breaks = Math.max(breaks, entry.breaks);
    }
    if (again.length > 0) this.relistenLater(again, Math.max(breaks, 1));
    else if (this.pending.size > 0) this.flushSoon();
  }

  /** Listens again for tasks of a broken stream after a jittered backoff (the backoff times a random factor in [1, 2]). */
  private relistenLater(entries: Watched[], attempt: number): void {
    const delayMs = Math.round(backoffDelay(attempt - 1, this.options.retry) * (1 + Math.random()));
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      for (const entry of entries) {
        const live = this.watched.get(entry.taskId) === entry;
        if (live && entry.stream === undefined && !entry.pollOnly) this.pending.add(entry.taskId);
      }
      if (this.pending.size > 0) this.flush();
    }, delayMs);
    this.timers.add(timer);
  }

  /** Marks a stream over and drops it from the books; false when it already was. */
  private forget(stream: ListenStream): boolean {
    if (stream.over) return false;
    stream.over = true;
    if (stream.proofTimer !== undefined) clearTimeout(stream.proofTimer);
    stream.proofTimer = undefined;
    this.streams.delete(stream);
    if (stream.subscriptionId !== undefined) this.bySubscription.delete(stream.subscriptionId);
    return true;
  }

  /** Cuts a merge's link in either direction: neither stream waits for the other any more. */
  private unlink(stream: ListenStream): void {
    if (stream.replaces !== undefined) stream.replaces.replacedBy = undefined;
    if (stream.replacedBy !== undefined) stream.replacedBy.replaces = undefined;
    stream.replaces = undefined;
    stream.replacedBy = undefined;
  }

  private pollOnly(entry: Watched): void {
    entry.pollOnly = true;
    entry.stream = undefined;
    entry.run.notPushed(false);
  }

  private disable(): void {
    this.disabled = true;
    this.pending.clear();
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    // Nothing is listened for again: a task no stream carries is only polled, and needs no entry here.
    for (const [taskId, entry] of this.watched) {
      if (entry.stream !== undefined) continue;
      this.watched.delete(taskId);
    }
  }
}

/**
 * A listen refused by the server, with the code to log and whether the refusal covers the method itself (this
 * connection cannot listen at all); undefined for a break (anything else: the stream may work again).
 */
function refusalOf(error: unknown): { code: number; unsupported: boolean } | undefined {
  if (error instanceof RpcError) return { code: error.code, unsupported: UNSUPPORTED.has(error.code) };
  const status = error instanceof TransportError ? error.status : undefined;
  if (status !== undefined && REFUSING_HTTP_STATUS.has(status)) return { code: status, unsupported: true };
  return undefined;
}
