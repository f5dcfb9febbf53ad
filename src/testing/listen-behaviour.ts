/**
 * Scriptable misbehaviour of task listen streams, for testing clients against what real networks and servers
 * do: acknowledge only some ids, refuse the listen, delay the acknowledgement, duplicate or reorder
 * notifications, drop the stream. Set through the `listen` option of `startTaskServer` / `startStdioTaskServer`.
 */
import type { Clock, TimerHandle } from "./clock.js";

/** How task listen streams (mis)behave. Everything is off by default. */
export interface ListenBehaviour {
  /**
   * Which of the requested ids to acknowledge (and notify about), among those the server knows. Default: the
   * tasks whose script advances on the clock (`advance: { everyMs }`); poll-advanced tasks are left to polling.
   */
  readonly acknowledge?: (taskIds: readonly string[]) => readonly string[];
  /** Answer every task listen with this JSON-RPC error instead of opening a stream (e.g. `-32021`). */
  readonly refuse?: { readonly code: number; readonly message: string; readonly data?: unknown };
  /** Send the acknowledgement this long after the listen arrived; notifications meanwhile wait behind it. */
  readonly ackDelayMs?: number;
  /** Send every `notifications/tasks` twice. */
  readonly duplicate?: boolean;
  /** Hold each `notifications/tasks` back and send it after the next one (a lone one goes out 20 ms later). */
  readonly reorder?: boolean;
  /**
   * Break the stream this long after it opened, without a final answer (HTTP: the connection is destroyed;
   * stdio: the stream falls silent). A function gets the listen's 0-based index on this server and may return
   * `undefined` to leave that stream alone.
   */
  readonly dropAfterMs?: number | ((listenIndex: number) => number | undefined);
  /**
   * End the listen this long after it opened with its empty result, while its tasks are still live: the server
   * ending a subscription on purpose. On stdio, where one pipe carries every listen, this is how a client can
   * see a listen end (a dropped one just falls silent). Same function form as `dropAfterMs`.
   */
  readonly endAfterMs?: number | ((listenIndex: number) => number | undefined);
}

export type ListenWrite = (message: Record<string, unknown>) => void;

/** How long a reordered notification waits for a successor before it goes out alone. */
const REORDER_HOLD_MS = 20;

/**
 * Wraps a stream's writer: `acknowledge(message)` sends the acknowledgement (delayed, if so scripted) and
 * `notify(message)` a task notification (after the acknowledgement, duplicated or reordered, if so
 * scripted). `stop()` silences the stream and clears its timers.
 */
export function shapeStream(
  behaviour: ListenBehaviour,
  clock: Clock,
  write: ListenWrite,
): { acknowledge: ListenWrite; notify: ListenWrite; stop(): void } {
  let acknowledged = false;
  let stopped = false;
  const waiting: Record<string, unknown>[] = [];
  let held: Record<string, unknown> | undefined;
  let holdTimer: TimerHandle | undefined;
  let ackTimer: TimerHandle | undefined;

  const emit = (message: Record<string, unknown>) => {
    if (stopped) return;
    write(message);
    if (behaviour.duplicate === true) write(message);
  };
  const release = () => {
    holdTimer = undefined;
    const message = held;
    held = undefined;
    if (message !== undefined) emit(message);
  };
  const send = (message: Record<string, unknown>) => {
    if (behaviour.reorder !== true) return emit(message);
    if (held === undefined) {
      held = message;
      holdTimer = clock.setTimeout(release, REORDER_HOLD_MS);
      return;
    }
    clock.clearTimeout(holdTimer);
    emit(message);
    release();
  };
  return {
    acknowledge(message) {
      const go = () => {
        ackTimer = undefined;
        if (stopped) return;
        write(message);
        acknowledged = true;
        for (const queued of waiting.splice(0)) send(queued);
      };
      if ((behaviour.ackDelayMs ?? 0) > 0) ackTimer = clock.setTimeout(go, behaviour.ackDelayMs as number);
      else go();
    },
    notify(message) {
      if (acknowledged) send(message);
      else waiting.push(message);
    },
    stop() {
      stopped = true;
      if (holdTimer !== undefined) clock.clearTimeout(holdTimer);
      if (ackTimer !== undefined) clock.clearTimeout(ackTimer);
    },
  };
}

/** When stream number `index` should break, if it should. */
export function dropDelay(behaviour: ListenBehaviour, index: number): number | undefined {
  const drop = behaviour.dropAfterMs;
  return typeof drop === "function" ? drop(index) : drop;
}

/** When listen number `index` should be ended by the server with its result, if it should. */
export function endDelay(behaviour: ListenBehaviour, index: number): number | undefined {
  const end = behaviour.endAfterMs;
  return typeof end === "function" ? end(index) : end;
}
