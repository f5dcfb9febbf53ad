import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InputLedger, type InputKeyState } from "../../../src/input/ledger.js";

function listing(entries: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(entries));
}

describe("the input ledger", () => {
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
    ledger.answered("a");
    ledger.submitted(["a"]);
    expect(ledger.observe(listing({ a: "p1" }))).toEqual({ fresh: [], vanished: [], conflicts: [] });
    expect(ledger.state("a")).toBe("submitted");
  });

  it("offers a key again after the update carrying it failed", () => {
    const ledger = new InputLedger();
    ledger.observe(listing({ a: "p1" }));
    ledger.answered("a");
    ledger.released(["a"]);
    expect(ledger.failedUpdates("a")).toBe(1);
    expect(ledger.observe(listing({ a: "p1" })).fresh).toEqual(["a"]);
  });

  it("reports a key reused for another request and changes nothing", () => {
    const ledger = new InputLedger();
    ledger.observe(listing({ a: "p1" }));
    expect(ledger.observe(listing({ a: "p2", b: "p3" }))).toEqual({
      fresh: [],
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
    ledger.answered("a");
    ledger.submitted(["a"]);
    expect(() => ledger.answered("a")).toThrow(/cannot go from submitted/);
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
  it("never offers a key again after a successful update, and never loses a listed key", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const ledger = new InputLedger();
        const submitted = new Set<string>();
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
                expect([undefined, "released", "superseded"]).toContain(before.get(key));
              }
              for (const key of listed) expect(LIVE_WHILE_LISTED.has(ledger.state(key))).toBe(true); // none lost
              break;
            }
            case "start": {
              const key = pick(inState("offered"), current.pick);
              if (key) ledger.startAnswering(key);
              break;
            }
            case "answer": {
              const key = pick(inState("offered", "answering", "released"), current.pick);
              if (key) ledger.answered(key);
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
