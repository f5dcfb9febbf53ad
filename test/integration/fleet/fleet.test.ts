/**
 * The fleet test (fleet.ts): worker processes sharing one Redis follow a reference server's tasks through a seeded
 * schedule of faults, and the checker (fleet-checker.ts) reads the whole event log. A short run on one Redis node
 * and one on a 3-node Cluster; `npm run bench -- --fleet-only` soaks longer. Replay a run with `FLEET_SEED=<seed>`;
 * choose the fault kinds with `FLEET_FAULTS=kill,stop,close,redis,redisRestart,http,unfollowable,badOutput`.
 */
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_FAULTS, fleetFaults, fleetSeed, removeFleetBundle, runFleet } from "./fleet.js";

afterAll(removeFleetBundle);

describe("a fleet of workers under faults keeps the lease promise", () => {
  it.each(["node", "cluster"] as const)(
    "on a Redis %s: every task ends, reported once; no double following, answer, call or life after close",
    async (redis) => {
      const seed = fleetSeed();
      const result = await runFleet({
        seed,
        workers: 3,
        tasks: 20,
        // Two seconds: a lease shorter than that lapses when a loaded 2-core machine starves a worker of CPU.
        leaseMs: 2_000,
        redis,
        faults: fleetFaults(DEFAULT_FAULTS),
        faultCount: 6,
        durationMs: 12_000,
      });
      const replay = `FLEET_SEED=${String(seed)} FLEET_FAULTS=${fleetFaults(DEFAULT_FAULTS).join(",")}`;
      expect(
        result.problems,
        `fleet run failed; replay with ${replay}; events in ${result.eventsFile}; ${JSON.stringify(result.summary)}`,
      ).toEqual([]);
      expect(result.summary.created).toBeGreaterThan(10);
    },
    90_000,
  );
});
