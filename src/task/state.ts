/**
 * The task state machine. Snapshots of one task arrive from polls and from notifications, in any order and
 * possibly repeated; this decides which of them move the task forward so that what users see is monotonic.
 *
 * Rules (spec "Task Status"; requestor checklist §4.9 and §5.5):
 * - A snapshot whose `lastUpdatedAt` is older than the newest one accepted is stale and ignored. Ties are
 *   accepted. A timestamp that cannot be read never crashes anything: the snapshot is ordered by arrival, and
 *   the newest readable timestamp stays the watermark that later snapshots are compared with.
 * - The first terminal snapshot wins, and nothing moves the task out of it (a server may turn `completed`
 *   into `failed` after the TTL; that later snapshot is ignored).
 * - A terminal snapshot is accepted even when its timestamp is older than a non-terminal one already seen.
 *   Terminal states are absorbing on the server, so an older-stamped terminal snapshot means the clocks
 *   disagree, not that the task went back; ignoring it would leave the handle waiting forever, because every
 *   later poll returns that same snapshot.
 * - A snapshot equal to the current one in status, status message and input requests is accepted (it may
 *   carry a newer interval or TTL) but is not a change: it produces no update.
 * - Equal timestamps never move a task backwards across the `input_required` / `working` edge (a server that
 *   stamps whole seconds, or a notification that overtook a poll, can deliver two states with one stamp). What
 *   the client answered decides which came first: `input_required → working` at a tie is taken only once every
 *   request it listed has been answered (the server took the answers); `working → input_required` at a tie is
 *   stale when it lists only answered requests (the question the client already answered). So a stale snapshot
 *   never aborts a running input handler or asks the user again. Without input requests (2025-11-25, where input
 *   travels on its own) a tie is taken as before.
 *
 * Only the newest snapshot is kept: a long task polled a million times holds one snapshot, not a history.
 */
import type { DetailedTask } from "../schema/index.js";
import { isTerminalStatus } from "../protocol/constants.js";
import { dequal } from "dequal/lite";
import { parseTimestamp } from "./timestamp.js";

/**
 * What became of an offered snapshot: `changed` (accepted, and users should see it), `unchanged` (accepted,
 * same visible state), `stale` (older than the current state) or `ended` (the task is already terminal).
 */
export type SnapshotVerdict = "changed" | "unchanged" | "stale" | "ended";

/** What the client answered of a task's input (the input coordinator is one). */
export interface AnsweredInput {
  /** Whether the answer for `key` has been sent in a `tasks/update` (acknowledged or on its way). */
  answered(key: string): boolean;
}

export class TaskState {
  private latest: DetailedTask | undefined = undefined;
  /** The newest readable `lastUpdatedAt` accepted so far, in epoch ms; NaN while there is none. */
  private watermark = Number.NaN;

  /** The newest accepted snapshot. */
  get snapshot(): DetailedTask | undefined {
    return this.latest;
  }

  /** Whether a terminal snapshot has been accepted. */
  get terminal(): boolean {
    return this.latest !== undefined && isTerminalStatus(this.latest.status);
  }

  /**
   * Offers a snapshot; see the file comment for the rules. `input` says which input keys the client answered
   * (none when absent), for snapshots whose timestamps tie.
   */
  offer(snapshot: DetailedTask, input?: AnsweredInput): SnapshotVerdict {
    if (this.terminal) return "ended";
    const terminal = isTerminalStatus(snapshot.status);
    const previous = this.latest;
    // Most polls repeat the last stamp; the same text is the same time, without parsing it again.
    const sameText = previous !== undefined && snapshot.lastUpdatedAt === previous.lastUpdatedAt;
    const time = sameText ? this.watermark : parseTimestamp(snapshot.lastUpdatedAt);
    if (!terminal && previous !== undefined) {
      if (time < this.watermark) return "stale"; // false whenever either side is NaN
      if (backwardsAtTie(previous, snapshot, input) && (sameText || sameTime(previous, time))) return "stale";
    }
    // Raise the watermark to a readable time; `>=` is false while the watermark is still NaN.
    if (!Number.isNaN(time) && !(this.watermark >= time)) this.watermark = time;
    this.latest = snapshot;
    return terminal || previous === undefined || !sameVisibleState(previous, snapshot)
      ? "changed"
      : "unchanged";
  }
}

/** Whether two snapshots look the same to a user: status, message and outstanding input requests. */
function sameVisibleState(a: DetailedTask, b: DetailedTask): boolean {
  return (
    a.status === b.status &&
    a.statusMessage === b.statusMessage &&
    dequal(inputRequestsOf(a), inputRequestsOf(b))
  );
}

function inputRequestsOf(snapshot: DetailedTask): unknown {
  return snapshot.status === "input_required" ? snapshot.inputRequests : undefined;
}

/** Whether `snapshot` was stamped at `time` (both readable). Parsed only where a tie matters (rarely). */
function sameTime(snapshot: DetailedTask, time: number): boolean {
  return parseTimestamp(snapshot.lastUpdatedAt) === time;
}

/** Were both stamped alike: whether `offered` would undo what the client's answers say came after `current`. */
function backwardsAtTie(
  current: DetailedTask,
  offered: DetailedTask,
  input: AnsweredInput | undefined,
): boolean {
  if (current.status === "input_required" && offered.status === "working") {
    return !everyKeyAnswered(current.inputRequests, input, true);
  }
  if (current.status === "working" && offered.status === "input_required") {
    return everyKeyAnswered(offered.inputRequests, input, false);
  }
  return false;
}

/** Whether every key of `requests` is answered; `none` when it lists no key (or is no listing at all). */
function everyKeyAnswered(requests: unknown, input: AnsweredInput | undefined, none: boolean): boolean {
  if (typeof requests !== "object" || requests === null) return none;
  let listed = false;
  for (const key of Object.keys(requests)) {
    if (input === undefined || !input.answered(key)) return false;
    listed = true;
  }
  return listed || none;
}
