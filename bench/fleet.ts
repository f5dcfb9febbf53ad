/**
 * The fleet soak: runs of the fleet test (test/integration/fleet/fleet.ts), longer and with more workers, tasks
 * and faults than the short runs in `npm test`, alternating one Redis node and a 3-node Cluster, each from its own
 * seed. Prints each run's seed, what it did and every broken promise; exits 1 if any run broke one.
 *
 * `node --import tsx bench/fleet.ts [runs] [first-seed]` (run by `npm run bench -- --fleet-only`); `FLEET_FAULTS`
 * chooses the fault kinds as in the test (default: the test's, every kind);
 * `FLEET_WORKERS`, `FLEET_TASKS` and `FLEET_DURATION_MS` the size. Seeds are `first-seed`, `first-seed + 1`, …; an
 * even seed runs on one node, an odd one on a Cluster, so `bench/fleet.ts 1 <seed>` replays a run.
 */
import { DEFAULT_FAULTS, fleetFaults, removeFleetBundle, runFleet } from "../test/integration/fleet/fleet.js";

const runs = Number(process.argv[2] ?? 6);
const first = Number(process.argv[3] ?? Math.floor(Math.random() * 2 ** 31));
const workers = Number(process.env["FLEET_WORKERS"] ?? 4);
const tasks = Number(process.env["FLEET_TASKS"] ?? 60);
const durationMs = Number(process.env["FLEET_DURATION_MS"] ?? 40_000);
const faults = fleetFaults(DEFAULT_FAULTS);

let failed = 0;
for (let index = 0; index < runs; index++) {
  const seed = (first + index) >>> 0;
  const redis = seed % 2 === 0 ? "node" : "cluster";
  const result = await runFleet({
    seed,
    workers,
    tasks,
    leaseMs: 1_500,
    redis,
    faults,
    faultCount: Math.round(durationMs / 2_000),
    durationMs,
    log: (line) => console.log(line),
  });
  const { summary } = result;
  console.log(
    `seed ${String(seed)} (${redis}): ${String(summary.reported)}/${String(summary.created)} reported, ` +
      `${String(summary.polls)} polls, faults ${JSON.stringify(summary.faults)}, proxy ${JSON.stringify(summary.injected)}, ` +
      `${String(Math.round(summary.ms / 1000))} s: ${result.problems.length === 0 ? "ok" : `${String(result.problems.length)} problems`}`,
  );
  for (const problem of result.problems) console.log(`  - ${problem}`);
  if (result.problems.length > 0) {
    failed++;
    console.log(
      `  replay: FLEET_SEED=${String(seed)} FLEET_FAULTS=${faults.join(",")}; events in ${result.eventsFile}`,
    );
  }
}
await removeFleetBundle();
console.log(`fleet soak: ${String(runs - failed)} of ${String(runs)} runs kept every promise`);
process.exitCode = failed > 0 ? 1 : 0;
