/**
 * The coordinator end to end, for any interleaving of snapshots (keys appearing, repeating, vanishing) and
 * `tasks/update` outcomes (success, failure, still in flight): no key is answered again after a successful update,
 * no key is asked again without a failed update or a disappearance in between, and every key seen is eventually
 * answered.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RpcError } from "../../../src/protocol/errors.js";
import { accepted, coordinatorHarness, deferred, elicitation, settle } from "./helpers.js";

const KEYS = ["a", "b", "c", "d"] as const;

type Step = { kind: "snapshot"; listed: boolean[] } | { kind: "deliver"; ok: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("snapshot" as const),
    listed: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant("deliver" as const), ok: fc.boolean() }),
);

function snapshotOf(keys: readonly string[]) {
  return {
    status: "input_required",
    inputRequests: Object.fromEntries(keys.map((key) => [key, elicitation(`${key}?`)])),
  };
}

describe("the input coordinator, for any sequence of snapshots and update outcomes", () => {
  it("answers every key exactly once after success, and never asks again without a reason", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const asked = new Map<string, number>();
        const { coordinator, channel, recorded } = coordinatorHarness({
          maxUpdateFailures: 1_000, // this property is about re-offering; giving up is tested elsewhere
          handlers: {
            elicitation: async (_params, { key }) => {
              asked.set(key, (asked.get(key) ?? 0) + 1);
              return accepted;
            },
          },
        });
        const inFlight: Array<{ keys: string[]; settle: (ok: boolean) => void }> = [];
        const acknowledged = new Map<string, number>();
        const failedFor = new Map<string, number>();
        const vanishedWhileAsked = new Map<string, number>();
        channel.answer = (_method, params) => {
          const keys = Object.keys(params.inputResponses as object);
          const reply = deferred<Record<string, unknown>>();
          inFlight.push({
            keys,
            settle: (ok) => {
              for (const key of keys)
                (ok ? acknowledged : failedFor).set(key, ((ok ? acknowledged : failedFor).get(key) ?? 0) + 1);
              if (ok) reply.resolve({ resultType: "complete" });
              else reply.reject(new RpcError("tasks/update", -32602, "rejected"));
            },
          });
          return reply.promise;
        };
        let listedNow: string[] = [];
        const observe = (keys: string[]) => {
          for (const key of listedNow) {
            if (!keys.includes(key) && (asked.get(key) ?? 0) > (acknowledged.get(key) ?? 0)) {
              vanishedWhileAsked.set(key, (vanishedWhileAsked.get(key) ?? 0) + 1);
            }
          }
          listedNow = keys;
          coordinator.observe(snapshotOf(keys));
        };

        for (const current of steps) {
          if (current.kind === "snapshot") observe(KEYS.filter((_, index) => current.listed[index]));
          else inFlight.shift()?.settle(current.ok);
          await settle();
        }
        // Let everything finish, then show every key once more: each must end up acknowledged.
        for (let round = 0; round < 10 && (inFlight.length > 0 || round === 0); round++) {
          while (inFlight.length > 0) inFlight.shift()?.settle(true);
          await settle();
          observe([...KEYS]);
          await settle();
        }
        while (inFlight.length > 0) inFlight.shift()?.settle(true);
        await coordinator.whenIdle();

        expect(recorded.failed).toEqual([]);
        for (const key of KEYS) {
          expect(acknowledged.get(key)).toBe(1); // answered, and never again after success
          const allowed = 1 + (failedFor.get(key) ?? 0) + (vanishedWhileAsked.get(key) ?? 0);
          expect(asked.get(key) ?? 0).toBeLessThanOrEqual(allowed); // asked again only after a failure or vanishing
        }
      }),
      { numRuns: 300 },
    );
  });
});
