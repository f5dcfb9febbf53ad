/**
 * The memory of one task's input keys: which requests were already shown, answered or given up on, so a key is
 * never shown twice, never answered twice, and never lost (requestor checklist §4.8, spec "Task Update
 * Requests"). Pure bookkeeping: no I/O, no timers; the coordinator acts on what it returns.
 *
 * A key's life:
 *
 *   offered ──► answering ──► submitting ──► submitted              (the server acknowledged the answer)
 *      │            │            ▲   └──► released ─┐               (the update failed; the answer is kept)
 *      │            │            └──────────────────┘               (listed again: the kept answer is re-sent)
 *      │            └──────────────────────► unanswered             (the unanswerable-input policy ended it)
 *      └──(no longer listed)─► superseded ──► offered               (listed again later)
 *
 * An answer given but not yet delivered is kept with its key, so a failed `tasks/update` never makes the client
 * ask the user again: the next snapshot that still lists the key re-sends the same answer.
 *
 * Every key keeps the fingerprint of its request until the task ends, so a key reused for another request is
 * caught even after it was answered.
 */
import type { InputResponse } from "../schema/index.js";

export type InputKeyState =
  /** Shown to the app and waiting for an answer (from a handler slot or from `respond`). */
  | "offered"
  /** A handler is working on it. */
  | "answering"
  /** An answer is on its way in a `tasks/update`. */
  | "submitting"
  /** The server acknowledged a `tasks/update` carrying the answer. Final. */
  | "submitted"
  /** The `tasks/update` carrying the answer failed; the answer is re-sent when a snapshot still lists the key. */
  | "released"
  /** No longer listed before it was answered; offered again if it comes back. */
  | "superseded"
  /** Given up on under the unanswerable-input policy. Final. */
  | "unanswered";

/** What one snapshot's `inputRequests` changes. */
export interface LedgerChanges {
  /** Keys to offer now: never seen, or listed again after they vanished unanswered. */
  fresh: string[];
  /**
   * Keys whose update failed and that are listed again: re-send the kept answer ({@link InputLedger.pendingAnswer}),
   * never ask again.
   */
  resend: string[];
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
  /** The answer while it is being delivered (`submitting`) or waits to be re-sent (`released`). */
  answer?: InputResponse;
}

/** States in which a listed key is simply left alone. */
const ANSWER_PENDING: ReadonlySet<InputKeyState> = new Set(["offered", "answering"]);

export class InputLedger {
  private readonly entries = new Map<string, Entry>();
  /** Keys answered before this ledger existed (a task resumed from its ref): never offered again. */
  private readonly answeredBefore: ReadonlySet<string>;
  /**
   * Answers given before this ledger existed and never acknowledged (a task resumed from its ref, whose process
   * died with a `tasks/update` on its way): re-sent while the key is listed, never asked again.
   */
  private readonly pendingBefore: Map<string, InputResponse>;

  constructor(answeredBefore: Iterable<string> = [], pendingBefore: Iterable<[string, InputResponse]> = []) {
    this.answeredBefore = new Set(answeredBefore);
    this.pendingBefore = new Map(pendingBefore);
  }

  /**
   * Answers given and not yet acknowledged, by key: those being delivered, those waiting to be re-sent, and
   * those carried over from a resume and not yet listed again. A task's stored ref keeps them.
   */
  pendingAnswers(): Record<string, InputResponse> {
    const pending = Object.fromEntries(this.pendingBefore);
    for (const [key, entry] of this.entries) if (entry.answer !== undefined) pending[key] = entry.answer;
    return pending;
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
    if (conflicts.length > 0) {
      return { fresh: [], resend: [], vanished: [], conflicts: conflicts.map(([key]) => key) };
    }

    const fresh: string[] = [];
    const resend: string[] = [];
    for (const [key, print] of listed) {
      const entry = this.entries.get(key);
      const carried = entry === undefined ? this.pendingBefore.get(key) : undefined;
      if (carried !== undefined) {
        // Answered before the resume and maybe never delivered: re-send that answer.
        this.pendingBefore.delete(key);
        this.entries.set(key, { fingerprint: print, state: "released", failedUpdates: 0, answer: carried });
        resend.push(key);
      } else if (entry === undefined) {
        const before = this.answeredBefore.has(key);
        this.entries.set(key, {
          fingerprint: print,
          state: before ? "submitted" : "offered",
          failedUpdates: 0,
        });
        if (!before) fresh.push(key);
      } else if (entry.state === "superseded") {
        entry.state = "offered";
        fresh.push(key);
      } else if (entry.state === "released") {
        resend.push(key); // stays released until the coordinator puts the kept answer into an update
      }
    }
    const vanished: string[] = [];
    for (const [key, entry] of this.entries) {
      if (ANSWER_PENDING.has(entry.state) && !listed.has(key)) {
        entry.state = "superseded";
        vanished.push(key);
      }
    }
    return { fresh, resend, vanished, conflicts: [] };
  }

  /**
   * Takes one request that arrived on its own (a server→client JSON-RPC request, keyed by its id) rather than in
   * a listing, so no other key is affected. `fresh`: ask for an answer; `pending`: an answer is on its way;
   * `resend`: the kept answer of a failed delivery goes out again; `final`: answered (or given up) before;
   * `conflict`: the key is known with a different request.
   */
  offer(key: string, print: string): "fresh" | "pending" | "resend" | "final" | "conflict" {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      const before = this.answeredBefore.has(key);
      this.entries.set(key, {
        fingerprint: print,
        state: before ? "submitted" : "offered",
        failedUpdates: 0,
      });
      return before ? "final" : "fresh";
    }
    if (entry.fingerprint !== print) return "conflict";
    switch (entry.state) {
      case "superseded":
        entry.state = "offered";
        return "fresh";
      case "released":
        return "resend";
      case "submitted":
      case "unanswered":
        return "final";
      default:
        return "pending";
    }
  }

  /** A key offered on its own is no longer asked (the server cancelled it) before it was answered. */
  withdrawn(key: string): void {
    const entry = this.entries.get(key);
    if (entry !== undefined && ANSWER_PENDING.has(entry.state)) entry.state = "superseded";
  }

  /** The state of a key, or undefined for a key never listed. */
  state(key: string): InputKeyState | undefined {
    return this.entries.get(key)?.state;
  }

  /** The answer given for this key and not yet acknowledged by the server, if any. */
  pendingAnswer(key: string): InputResponse | undefined {
    return this.entries.get(key)?.answer;
  }

  /** How many updates carrying this key failed so far. */
  failedUpdates(key: string): number {
    return this.entries.get(key)?.failedUpdates ?? 0;
  }

  /** A handler starts on an offered key. */
  startAnswering(key: string): void {
    this.move(key, ["offered"], "answering");
  }

  /**
   * An answer exists (from a handler, from `respond`, a policy decline, or the kept answer of a released key)
   * and goes into an update. It is kept until the server acknowledges it.
   */
  answered(key: string, answer: InputResponse): void {
    this.move(key, ["offered", "answering", "released"], "submitting");
    this.require(key).answer = answer;
  }

  /** The server acknowledged the update carrying these keys: their answers are delivered and forgotten. */
  submitted(keys: Iterable<string>): void {
    for (const key of keys) {
      this.move(key, ["submitting"], "submitted");
      delete this.require(key).answer;
    }
  }

  /** The update carrying these keys failed: their answers are kept, to be re-sent while the key is listed. */
  released(keys: Iterable<string>): void {
    for (const key of keys) {
      this.move(key, ["submitting"], "released");
      this.require(key).failedUpdates += 1;
    }
  }

  /** The unanswerable-input policy ended this key without an answer. */
  unanswered(key: string): void {
    this.move(key, ["offered", "answering", "released"], "unanswered");
    delete this.require(key).answer;
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
