import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InputLedger, type InputKeyState } from "../../../src/input/ledger.js";

function listing(entries: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(entries));
}

const yes = { action: "accept" as const, content: { ok: true } };
const no = { action: "decline" as const };

describe("the input ledger", () => {
  it("re-sends an answer carried over from a resume instead of offering its key, and keeps it until acknowledged", () => {
    const ledger = new InputLedger([], [["a", yes]]);
    expect(ledger.pendingAnswers()).toEqual({ a: yes }); // stored again even before the key is listed
    expect(ledger.observe(listing({ a: "p1", b: "p2" }))).toEqual({
      fresh: ["b"],
      resend: ["a"],
      vanished: [],
      conflicts: [],
    });
    expect(ledger.pendingAnswer("a")).toEqual(yes);
    ledger.answered("a", yes);
    expect(ledger.pendingAnswers()).toEqual({ a: yes });
    ledger.submitted(["a"]);
    expect(ledger.pendingAnswers()).toEqual({});
    expect(ledger.submittedKeys()).toEqual(["a"]);
  });

  it("records every answer on its way as pending, and forgets it once the server acknowledged it", () => {
    const ledger = new InputLedger();
    ledger.observe(listing({ a: "p1" }));
    ledger.answered("a", no);
    expect(ledger.pendingAnswers()).toEqual({ a: no });
    ledger.released(["a"]);
    expect(ledger.pendingAnswers()).toEqual({ a: no });
    ledger.answered("a", no);
    ledger.submitted(["a"]);
    expect(ledger.pendingAnswers()).toEqual({});
  });

  it("offers a key the first time it is listed, and not again while it waits", () => {
    const ledger = new InputLedger();
    expect(ledger.observe(listing({ a: "p1" })).fresh).toEqual(["a"]);
    expect(ledger.observe(listing({ a: "p1" })).fresh).toEqual([]);
    expect(ledger.state("a")).toBe("offered");
  });

  it("keeps an answered key quiet while the server still lists it", () => {
    const ledger = new InputLedger();
    ledger.observe(listing({ a: "p1" }));
    ledger.startAnswering("a");
    ledger.answered("a", yes);
    ledger.submitted(["a"]);
    expect(ledger.observe(listing({ a: "p1" }))).toEqual({
      fresh: [],
      resend: [],
      vanished: [],
      conflicts: [],
    });
    expect(ledger.state("a")).toBe("submitted");
    expect(ledger.pendingAnswer("a")).toBeUndefined();
  });

  it("keeps the answer of a failed update and asks for it to be re-sent, never to ask the user again", () => {
    const ledger = new InputLedger();
    ledger.observe(listing({ a: "p1" }));
    ledger.startAnswering("a");
    ledger.answered("a", yes);
    expect(ledger.pendingAnswer("a")).toBe(yes);
    ledger.released(["a"]);
    expect(ledger.failedUpdates("a")).toBe(1);
    expect(ledger.pendingAnswer("a")).toBe(yes);
    expect(ledger.observe(listing({ a: "p1" }))).toEqual({
      fresh: [],
      resend: ["a"],
      vanished: [],
      conflicts: [],
    });
    ledger.answered("a", ledger.pendingAnswer("a")!);
    expect(ledger.state("a")).toBe("submitting");
    expect(ledger.observe(listing({ a: "p1" })).resend).toEqual([]); // on its way: not twice
    ledger.submitted(["a"]);
    expect(ledger.pendingAnswer("a")).toBeUndefined();
  });

  it("keeps a released answer while the key is not listed, and re-sends it if the key returns", () => {
    const ledger = new InputLedger();
    ledger.observe(listing({ a: "p1" }));
    ledger.answered("a", no);
    ledger.released(["a"]);
    expect(ledger.observe(listing({}))).toEqual({ fresh: [], resend: [], vanished: [], conflicts: [] });
    expect(ledger.state("a")).toBe("released");
    expect(ledger.observe(listing({ a: "p1" })).resend).toEqual(["a"]);
    expect(ledger.pendingAnswer("a")).toBe(no);
  });

  it("forgets the kept answer of a key given up on", () => {
    const ledger = new InputLedger();
    ledger.observe(listing({ a: "p1" }));
    ledger.answered("a", yes);
    ledger.released(["a"]);
    ledger.unanswered("a");
    expect(ledger.pendingAnswer("a")).toBeUndefined();
    expect(ledger.observe(listing({ a: "p1" }))).toEqual({
      fresh: [],
      resend: [],
      vanished: [],
      conflicts: [],
    });
  });

  it("reports a key reused for another request and changes nothing", () => {
    const ledger = new InputLedger();
    ledger.observe(listing({ a: "p1" }));
    expect(ledger.observe(listing({ a: "p2", b: "p3" }))).toEqual({
      fresh: [],
      resend: [],
      vanished: [],
      conflicts: ["a"],
    });
    expect(ledger.state("b")).toBeUndefined();
  });

  it("marks keys no longer listed as superseded, and offers them again if they return", () => {
    const ledger = new InputLedger();
    ledger.observe(listing({ a: "p1", b: "p2" }));
    ledger.startAnswering("b");
    expect(ledger.observe(listing({})).vanished).toEqual(["a", "b"]);
    expect(ledger.state("a")).toBe("superseded");
    expect(ledger.observe(listing({ b: "p2" })).fresh).toEqual(["b"]);
  });

  it("refuses transitions that would answer a key twice", () => {
    const ledger = new InputLedger();
    ledger.observe(listing({ a: "p1" }));
    ledger.answered("a", yes);
    ledger.submitted(["a"]);
    expect(() => ledger.answered("a", yes)).toThrow(/cannot go from submitted/);
    expect(() => ledger.submitted(["a"])).toThrow();
    expect(() => ledger.startAnswering("zzz")).toThrow(/unknown key/);
  });
});

/* ---- Property: for any interleaving, no key is answered twice and none is lost ------------------------------ */

const KEYS: readonly string[] = ["a", "b", "c", "d"];

type Step =
  | { kind: "snapshot"; listed: boolean[] }
  | { kind: "start"; pick: number }
  | { kind: "answer"; pick: number }
  | { kind: "update"; ok: boolean; take: boolean[] }
  | { kind: "giveUp"; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("snapshot" as const),
    listed: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant("start" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("answer" as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant("update" as const),
    ok: fc.boolean(),
    take: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant("giveUp" as const), pick: fc.nat() }),
);

const LIVE_WHILE_LISTED: ReadonlySet<InputKeyState | undefined> = new Set<InputKeyState>([
  "offered",
  "answering",
  "submitting",
  "submitted",
  "unanswered",
]);

describe("the input ledger, for any sequence of snapshots and update outcomes", () => {
  it("never offers a key again once answered, re-sends only kept answers, and never loses a listed key", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const ledger = new InputLedger();
        const submitted = new Set<string>();
        /** The answer each key was given (one object per key, so identity shows which one is re-sent). */
        const given = new Map<string, { action: "accept"; content: { key: string } }>();
        const inState = (...states: InputKeyState[]) =>
          KEYS.filter((key) => states.includes(ledger.state(key)!));
        const pick = (keys: string[], index: number) => keys[index % Math.max(keys.length, 1)];

        for (const current of steps) {
          switch (current.kind) {
            case "snapshot": {
              const listed = KEYS.filter((_, index) => current.listed[index]);
              const before = new Map(KEYS.map((key) => [key, ledger.state(key)]));
              const changes = ledger.observe(new Map(listed.map((key) => [key, `request of ${key}`])));
              expect(changes.conflicts).toEqual([]);
              for (const key of changes.fresh) {
                expect(submitted.has(key)).toBe(false); // never offered again after a successful update
                expect([undefined, "superseded"]).toContain(before.get(key)); // an answered key is never asked again
              }
              for (const key of changes.resend) {
                expect(before.get(key)).toBe("released");
                expect(ledger.pendingAnswer(key)).toBe(given.get(key)); // the same answer goes out again
              }
              for (const key of listed) {
                const kept = ledger.state(key) === "released" && changes.resend.includes(key);
                expect(kept || LIVE_WHILE_LISTED.has(ledger.state(key))).toBe(true); // none lost
              }
              break;
            }
            case "start": {
              const key = pick(inState("offered"), current.pick);
              if (key) ledger.startAnswering(key);
              break;
            }
            case "answer": {
              const key = pick(inState("offered", "answering", "released"), current.pick);
              if (key === undefined) break;
              if (ledger.state(key) === "released") {
                ledger.answered(key, ledger.pendingAnswer(key)!); // what the coordinator does: re-send
              } else {
                const answer = { action: "accept" as const, content: { key } };
                given.set(key, answer);
                ledger.answered(key, answer);
              }
              break;
            }
            case "update": {
              const batch = inState("submitting").filter((_, index) => current.take[index] ?? true);
              if (current.ok) {
                ledger.submitted(batch);
                for (const key of batch) submitted.add(key);
              } else {
                ledger.released(batch);
              }
              break;
            }
            case "giveUp": {
              const key = pick(inState("offered", "answering"), current.pick);
              if (key) ledger.unanswered(key);
              break;
            }
          }
          for (const key of submitted) expect(ledger.state(key)).toBe("submitted"); // final
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("the input ledger, for requests that arrive one by one (server requests)", () => {
  it("asks for a new request, waits while it is answered, and answers a repeat from memory", () => {
    const ledger = new InputLedger();
    expect(ledger.offer("7", "p")).toBe("fresh");
    expect(ledger.offer("7", "p")).toBe("pending");
    ledger.startAnswering("7");
    ledger.answered("7", yes);
    expect(ledger.offer("7", "p")).toBe("pending");
    ledger.submitted(["7"]);
    expect(ledger.offer("7", "p")).toBe("final");
    expect(ledger.offer("7", "other")).toBe("conflict");
  });

  it("re-sends a kept answer whose delivery failed, and asks again for a withdrawn request", () => {
    const ledger = new InputLedger();
    ledger.offer("a", "p");
    ledger.answered("a", no);
    ledger.released(["a"]);
    expect(ledger.offer("a", "p")).toBe("resend");
    expect(ledger.pendingAnswer("a")).toEqual(no);

    ledger.offer("b", "q");
    ledger.withdrawn("b");
    expect(ledger.state("b")).toBe("superseded");
    expect(ledger.offer("b", "q")).toBe("fresh");
  });

  it("never asks for a key answered before a resume", () => {
    const ledger = new InputLedger(["k"]);
    expect(ledger.offer("k", "p")).toBe("final");
  });
});
