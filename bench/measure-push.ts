/**
 * One measured run of a push scenario (tasks that change on the server's clock, `bench/push-server.ts`).
 * The window is the same as in the polling scenarios: from the first tool call to the last settled one.
 *
 * - Completion notice latency: from the moment the server changed a task to `completed` to the moment the
 *   library's promise resolved, forced GC pauses removed; p50, p99 and max.
 * - `tasks/get` per task: the server's count, mean and max.
 * - CPU per observed update: the process's CPU in the window (forced GCs removed) divided by the task states
 *   that reached the client, by poll answer or by notification, each distinct state counted once. A poller that
 *   misses a state between two polls observes fewer updates for its CPU.
 * - Live heap per task: heap after a forced GC at half of all state changes, minus the connected baseline.
 */
import type { LibraryDriver } from "./drivers/types.js";
import { FakeTransport } from "./fake-transport.js";
import { HeapMarks } from "./heap-marks.js";
import { LoopDelay } from "./loop-delay.js";
import type { CallLog, RunRequest, RunResult } from "./measure.js";
import { PushTasksServer } from "./push-server.js";
import { distribution } from "./stats.js";

/** What a push run adds to a `RunResult`. */
export interface PushFigures {
  latencyP50Ms: number;
  updatesObservedPerTask: number;
  cpuUsPerUpdate: number;
  tasksGetPerTaskMax: number;
  listens: number;
  notifications: number;
}

const LOOP_DELAY_RESOLUTION_MS = 5;

export async function measurePush(
  { library, scenario, jsonWire }: RunRequest,
  driver: LibraryDriver,
  calls: CallLog,
): Promise<RunResult> {
  const server = new PushTasksServer({
    tasks: scenario.tasks,
    changes: scenario.pollsUntilDone,
    pollIntervalMs: scenario.pollIntervalMs,
  });
  const connected = await driver.connect(new FakeTransport(server, jsonWire), scenario);
  const loopDelay = new LoopDelay(LOOP_DELAY_RESOLUTION_MS);
  const marks = new HeapMarks(scenario.heapMarks, loopDelay);
  server.onChange = (changes) => marks.onPoll(changes);

  loopDelay.resume();
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  await connected.callAll(scenario.tasks, calls);
  const finished = performance.now();
  const cpu = process.cpuUsage(cpuStart);
  loopDelay.pause();
  server.stop();
  await connected.close();
  const timersAfterClose = process
    .getActiveResourcesInfo()
    .filter((kind) => kind === "Timeout" || kind === "Immediate").length;

  let polls = 0;
  let pollsMax = 0;
  let observed = 0;
  const latencies: number[] = [];
  for (let task = 0; task < server.tasksCreated; task++) {
    polls += server.pollsOf(task);
    pollsMax = Math.max(pollsMax, server.pollsOf(task));
    observed += server.deliveredOf(task);
    const doneAt = server.doneAtOf(task);
    const resolved = calls.resolvedAt[task]!;
    if (Number.isNaN(doneAt) || Number.isNaN(resolved)) continue;
    latencies.push(resolved - doneAt - marks.pausedWithin(doneAt, resolved));
  }
  const created = Math.max(1, server.tasksCreated);
  const latency = Float64Array.from(latencies).sort();
  const cpuUs = cpu.user + cpu.system - marks.cpuUs;
  const ok = calls.failures === 0 && calls.unresolved === 0 && marks.allReached;
  const empty = { count: 0, mean: 0, p99: 0, max: 0 };
  const push: PushFigures = {
    latencyP50Ms: latency.length === 0 ? 0 : latency[Math.ceil(0.5 * latency.length) - 1]!,
    updatesObservedPerTask: observed / created,
    cpuUsPerUpdate: cpuUs / Math.max(1, observed),
    tasksGetPerTaskMax: pollsMax,
    listens: server.listensOpened,
    notifications: server.notificationsSent,
  };
  return {
    library,
    scenarioId: scenario.id,
    ok,
    ...(ok
      ? {}
      : { failure: calls.firstFailure ?? `${calls.unresolved} calls unresolved or a heap mark not reached` }),
    wallMs: finished - started - marks.pausedWithin(started, finished),
    polls: server.pollsServed,
    cpuUsPerPoll: cpuUs / Math.max(1, server.pollsServed),
    heapAtMarks: marks.heapAboveBaseline,
    ...(marks.heapAboveBaseline.length === 1 && {
      heapPerTaskBytes: marks.heapAboveBaseline[0]! / scenario.tasks,
    }),
    gapMs: empty,
    pollsPerTask: { mean: polls / created, max: pollsMax, ideal: 0 },
    latencyMs: distribution(latency),
    eventLoopDelayMs: loopDelay.summary(),
    smallestIntervalMs: driver.smallestIntervalMs,
    timersAfterClose,
    push,
  };
}
