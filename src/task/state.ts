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

  /** Offers a snapshot; see the file comment for the rules. */
  offer(snapshot: DetailedTask): SnapshotVerdict {
    if (this.terminal) return "ended";
    const terminal = isTerminalStatus(snapshot.status);
    // Most polls repeat the last stamp; the same text is the same time, without parsing it again.
    const time =
      this.latest !== undefined && snapshot.lastUpdatedAt === this.latest.lastUpdatedAt
        ? this.watermark
        : parseTimestamp(snapshot.lastUpdatedAt);
    if (!terminal && time < this.watermark) return "stale"; // false whenever either side is NaN
    // Raise the watermark to a readable time; `>=` is false while the watermark is still NaN.
    if (!Number.isNaN(time) && !(this.watermark >= time)) this.watermark = time;
    const previous = this.latest;
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
