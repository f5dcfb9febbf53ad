/**
 * The memory of one task's input keys: which requests were already shown, answered or given up on, so a key is
 * never shown twice, never answered twice, and never lost (requestor checklist §4.8, spec "Task Update
 * Requests"). Pure bookkeeping: no I/O, no timers; the coordinator acts on what it returns.
 *
 * A key's life:
 *
 *   offered ──► answering ──► submitting ──► submitted           (the server acknowledged the answer)
 *      │            │              └──────► released ──► offered (the update failed; offered again if still listed)
 *      │            └──────────────────────► unanswered          (the unanswerable-input policy ended it)
 *      └──(no longer listed)─► superseded ──► offered            (listed again later)
 *
 * Every key keeps the fingerprint of its request until the task ends, so a key reused for another request is
 * caught even after it was answered.
 */

export type InputKeyState =
  /** Shown to the app and waiting for an answer (from a handler slot or from `respond`). */
  | "offered"
  /** A handler is working on it. */
  | "answering"
  /** An answer is on its way in a `tasks/update`. */
  | "submitting"
  /** The server acknowledged a `tasks/update` carrying the answer. Final. */
  | "submitted"
  /** The `tasks/update` carrying the answer failed; offered again when a snapshot still lists the key. */
  | "released"
  /** No longer listed before it was answered; offered again if it comes back. */
  | "superseded"
  /** Given up on under the unanswerable-input policy. Final. */
  | "unanswered";

/** What one snapshot's `inputRequests` changes. */
export interface LedgerChanges {
  /** Keys to offer now: never seen, or listed again after a failed update or after they vanished. */
  fresh: string[];
  /** Keys that were offered or being answered and are no longer listed: their answer is not wanted now. */
  vanished: string[];
  /** Keys listed with a different request than before. When non-empty, nothing else was changed. */
  conflicts: string[];
}

interface Entry {
  fingerprint: string;
  state: InputKeyState;
  /** How many `tasks/update` requests carrying this key failed. */
  failedUpdates: number;
}

/** States in which a key needs nothing from the client right now. */
const WAITING_FOR_LISTING: ReadonlySet<InputKeyState> = new Set(["released", "superseded"]);
/** States in which a listed key is simply left alone. */
const ANSWER_PENDING: ReadonlySet<InputKeyState> = new Set(["offered", "answering"]);

export class InputLedger {
  private readonly entries = new Map<string, Entry>();
  /** Keys answered before this ledger existed (a task resumed from its ref): never offered again. */
  private readonly answeredBefore: ReadonlySet<string>;

  constructor(answeredBefore: Iterable<string> = []) {
    this.answeredBefore = new Set(answeredBefore);
  }

  /** Keys whose answer the server acknowledged, including those answered before a resume. */
  submittedKeys(): string[] {
    const keys = new Set(this.answeredBefore);
    for (const [key, entry] of this.entries) if (entry.state === "submitted") keys.add(key);
    return [...keys];
  }

  /**
   * Takes the `inputRequests` of one snapshot, as key → fingerprint of the request. A snapshot without input
   * (status `working`) is an empty map: every key still waiting for an answer has then vanished.
   */
  observe(listed: ReadonlyMap<string, string>): LedgerChanges {
    const conflicts = [...listed].filter(([key, print]) => {
      const entry = this.entries.get(key);
      return entry !== undefined && entry.fingerprint !== print;
    });
    if (conflicts.length > 0) return { fresh: [], vanished: [], conflicts: conflicts.map(([key]) => key) };

    const fresh: string[] = [];
    for (const [key, print] of listed) {
      const entry = this.entries.get(key);
      if (entry === undefined) {
        const before = this.answeredBefore.has(key);
        this.entries.set(key, {
          fingerprint: print,
          state: before ? "submitted" : "offered",
          failedUpdates: 0,
        });
        if (!before) fresh.push(key);
      } else if (WAITING_FOR_LISTING.has(entry.state)) {
        entry.state = "offered";
        fresh.push(key);
      }
    }
    const vanished: string[] = [];
    for (const [key, entry] of this.entries) {
      if (ANSWER_PENDING.has(entry.state) && !listed.has(key)) {
        entry.state = "superseded";
        vanished.push(key);
      }
    }
    return { fresh, vanished, conflicts: [] };
  }

  /** The state of a key, or undefined for a key never listed. */
  state(key: string): InputKeyState | undefined {
    return this.entries.get(key)?.state;
  }

  /** How many updates carrying this key failed so far. */
  failedUpdates(key: string): number {
    return this.entries.get(key)?.failedUpdates ?? 0;
  }

  /** A handler starts on an offered key. */
  startAnswering(key: string): void {
    this.move(key, ["offered"], "answering");
  }

  /** An answer exists (from a handler, from `respond`, or a policy decline) and goes into an update. */
  answered(key: string): void {
    this.move(key, ["offered", "answering", "released"], "submitting");
  }

  /** The server acknowledged the update carrying these keys. */
  submitted(keys: Iterable<string>): void {
    for (const key of keys) this.move(key, ["submitting"], "submitted");
  }

  /** The update carrying these keys failed: they may be offered again. */
  released(keys: Iterable<string>): void {
    for (const key of keys) {
      this.move(key, ["submitting"], "released");
      this.require(key).failedUpdates += 1;
    }
  }

  /** The unanswerable-input policy ended this key without an answer. */
  unanswered(key: string): void {
    this.move(key, ["offered", "answering", "released"], "unanswered");
  }

  private move(key: string, from: readonly InputKeyState[], to: InputKeyState): void {
    const entry = this.require(key);
    if (!from.includes(entry.state)) {
      throw new Error(`input ledger: key ${JSON.stringify(key)} cannot go from ${entry.state} to ${to}`);
    }
    entry.state = to;
  }

  private require(key: string): Entry {
    const entry = this.entries.get(key);
    if (entry === undefined) throw new Error(`input ledger: unknown key ${JSON.stringify(key)}`);
    return entry;
  }
}
