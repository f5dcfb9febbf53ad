/**
 * One measured run: one library, one scenario, in a fresh `node --expose-gc` process started by run.ts.
 * Prints one line `BENCH_RESULT {json}` on stdout.
 *
 * The measured window runs from the first tool call to the last settled one (connecting is outside it).
 * CPU per poll is the process's CPU time in the window, without the forced GCs of the heap marks, divided
 * by the `tasks/get` requests the server answered. Gaps, polls per task and completion times come from the
 * server's own record; the library only reports when each call resolved.
 */
import { FakeTasksServer } from "./fake-server.js";
import { FakeTransport } from "./fake-transport.js";
import { HeapMarks } from "./heap-marks.js";
import { LegacyTasksServer } from "./legacy-server.js";
import { LoopDelay } from "./loop-delay.js";
import { measurePush, type PushFigures } from "./measure-push.js";
import type { CallObserver, LibraryDriver, LibraryName } from "./drivers/types.js";
import type { Scenario } from "./scenarios.js";
import { distribution, type Distribution } from "./stats.js";

export interface RunRequest {
  library: LibraryName;
  scenario: Scenario;
  jsonWire: boolean;
}

export interface RunResult {
  library: LibraryName;
  scenarioId: number;
  ok: boolean;
  failure?: string;
  wallMs: number;
  polls: number;
  cpuUsPerPoll: number;
  /** Heap above the baseline at each mark, in bytes. */
  heapAtMarks: number[];
  heapPerTaskBytes?: number;
  heapGrowthPerPollBytes?: number;
  gapMs: Distribution;
  pollsPerTask: { mean: number; max: number; ideal: number };
  latencyMs: Distribution;
  eventLoopDelayMs: Distribution;
  smallestIntervalMs: number;
  /** Timers and immediates still pending right after the library's close(): none is the goal. */
  timersAfterClose: number;
  /** Push scenarios only (bench/measure-push.ts). */
  push?: PushFigures;
}

const LOOP_DELAY_RESOLUTION_MS = 5;

async function loadDriver(library: LibraryName): Promise<LibraryDriver> {
  if (library === "ours") return (await import("./drivers/ours.js")).oursDriver;
  if (library === "ours-polling") return (await import("./drivers/ours.js")).oursPollingDriver;
  if (library === "ours-otel-noop") return (await import("./drivers/ours-otel.js")).oursOtelNoopDriver;
  if (library === "ours-otel-sdk") return (await import("./drivers/ours-otel.js")).oursOtelSdkDriver;
  if (library === "floor") return (await import("./drivers/floor.js")).floorDriver;
  return (await import("./drivers/ext-tasks.js")).extTasksDriver;
}

/** When each task's call resolved (by task index), and how many calls ended any other way. */
export class CallLog implements CallObserver {
  readonly resolvedAt: Float64Array;
  failures = 0;
  firstFailure: string | undefined;

  constructor(tasks: number) {
    this.resolvedAt = new Float64Array(tasks).fill(Number.NaN);
  }

  resolved(result: unknown): void {
    // The fake server puts the task index into the tool result's structuredContent.
    const task = (result as { structuredContent?: { task?: number } }).structuredContent?.task;
    if (typeof task === "number") this.resolvedAt[task] = performance.now();
    else this.failed(new Error("tool result without the task index"));
  }

  failed(error: unknown): void {
    this.failures++;
    this.firstFailure ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }

  get unresolved(): number {
    return this.resolvedAt.filter(Number.isNaN).length;
  }
}

async function measure(request: RunRequest): Promise<RunResult> {
  const { library, scenario, jsonWire } = request;
  if (scenario.kind === "push") {
    return measurePush(request, await loadDriver(library), new CallLog(scenario.tasks));
  }
  const server = scenario.kind === "legacy" ? new LegacyTasksServer(scenario) : new FakeTasksServer(scenario);
  const driver = await loadDriver(library);
  const connected = await driver.connect(new FakeTransport(server, jsonWire), scenario);
  const calls = new CallLog(scenario.tasks);
  const loopDelay = new LoopDelay(LOOP_DELAY_RESOLUTION_MS);
  const marks = new HeapMarks(scenario.heapMarks, loopDelay);
  server.onPoll = (polls) => marks.onPoll(polls);

  loopDelay.resume();
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  await connected.callAll(scenario.tasks, calls);
  const finished = performance.now();
  const cpu = process.cpuUsage(cpuStart);
  loopDelay.pause();
  await connected.close();
  const timersAfterClose = process
    .getActiveResourcesInfo()
    .filter((kind) => kind === "Timeout" || kind === "Immediate").length;

  const ok = calls.failures === 0 && calls.unresolved === 0 && marks.allReached;
  const failure = calls.firstFailure ?? `${calls.unresolved} calls unresolved or a heap mark not reached`;
  return {
    library,
    scenarioId: scenario.id,
    ok,
    ...(ok ? {} : { failure }),
    wallMs: finished - started - marks.pausedWithin(started, finished),
    polls: server.pollsServed,
    cpuUsPerPoll: (cpu.user + cpu.system - marks.cpuUs) / Math.max(1, server.pollsServed),
    heapAtMarks: marks.heapAboveBaseline,
    ...heapFigures(scenario, marks.heapAboveBaseline),
    gapMs: distribution(pollGaps(server, marks)),
    pollsPerTask: pollsPerTask(server, scenario),
    latencyMs: distribution(latencies(server, calls.resolvedAt, marks)),
    eventLoopDelayMs: loopDelay.summary(),
    smallestIntervalMs: driver.smallestIntervalMs,
    timersAfterClose,
  };
}

function heapFigures(scenario: Scenario, heapAtMarks: number[]): Partial<RunResult> {
  if (scenario.heapFigure === "perTask" && heapAtMarks.length === 1) {
    return { heapPerTaskBytes: heapAtMarks[0]! / scenario.tasks };
  }
  if (scenario.heapFigure === "perPoll" && heapAtMarks.length === 2) {
    const [first, last] = scenario.heapMarks as [number, number];
    return { heapGrowthPerPollBytes: (heapAtMarks[1]! - heapAtMarks[0]!) / (last - first) };
  }
  return {};
}

/** Time between consecutive contacts of each task (creation → poll 1 → poll 2 …), forced pauses removed. */
function pollGaps(server: FakeTasksServer, marks: HeapMarks): Float64Array {
  const gaps: number[] = [];
  for (let task = 0; task < server.tasksCreated; task++) {
    const contacts = server.contactsOf(task);
    for (let k = 1; k < contacts.length; k++) {
      gaps.push(contacts[k]! - contacts[k - 1]! - marks.pausedWithin(contacts[k - 1]!, contacts[k]!));
    }
  }
  return Float64Array.from(gaps);
}

function pollsPerTask(server: FakeTasksServer, scenario: Scenario): RunResult["pollsPerTask"] {
  let total = 0;
  let max = 0;
  for (let task = 0; task < server.tasksCreated; task++) {
    const polls = server.pollsOf(task);
    total += polls;
    max = Math.max(max, polls);
  }
  return { mean: total / Math.max(1, server.tasksCreated), max, ideal: scenario.pollsUntilDone + 1 };
}

/** From the moment a task finished on the server to the moment the library's promise resolved. */
function latencies(server: FakeTasksServer, resolvedAt: Float64Array, marks: HeapMarks): Float64Array {
  const values: number[] = [];
  for (let task = 0; task < server.tasksCreated; task++) {
    const doneAt = server.doneAtOf(task);
    const resolved = resolvedAt[task]!;
    if (Number.isNaN(doneAt) || Number.isNaN(resolved)) continue;
    values.push(resolved - doneAt - marks.pausedWithin(doneAt, resolved));
  }
  return Float64Array.from(values);
}

const request = JSON.parse(process.argv[2] ?? "{}") as RunRequest;
const result = await measure(request);
process.stdout.write(`BENCH_RESULT ${JSON.stringify(result)}\n`);
// Libraries under test may leave timers behind after close; the measurement is done.
process.exit(0);
