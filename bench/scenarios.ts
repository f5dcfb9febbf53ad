/**
 * The benchmark's scenarios, full size and `--quick` size. A scenario fixes the load (tasks, advertised
 * interval, working answers before completion) and where the heap is measured after a forced GC.
 */
import type { LibraryName } from "./drivers/types.js";

export interface Scenario {
  id: number;
  title: string;
  /** What the scenario is there to show. */
  purpose: string;
  tasks: number;
  /** `pollIntervalMs` the server advertises on every answer. */
  pollIntervalMs: number;
  /** `working` answers per task before it completes; the ideal poll count is this + 1. */
  pollsUntilDone: number;
  /** Configure each library for the smallest poll interval it allows. */
  smallestInterval: boolean;
  /** Poll counts (server-wide) at which the heap is measured after a forced GC. */
  heapMarks: number[];
  /** How the heap marks are read: live heap per task (one mark) or heap growth per poll (two marks). */
  heapFigure: "perTask" | "perPoll";
  libraries: LibraryName[];
  /**
   * "push": tasks move on the server's clock (one change per `pollIntervalMs`, `pollsUntilDone` changes) and
   * the server serves `subscriptions/listen` (bench/push-server.ts); heap marks count state changes, not polls.
   * "legacy": the polling scenario spoken the 2025-11-25 way (`initialize`, `params.task`, `tasks/get`,
   * `tasks/result`; bench/legacy-server.ts).
   * Absent: the polling scenarios, where a task moves one step per poll (bench/fake-server.ts).
   */
  kind?: "push" | "legacy";
  /** "telemetry": the table sets telemetry on (no-op API, SDK) beside off, with the ratios. */
  report?: "telemetry";
}

const ALL: LibraryName[] = ["ours", "ext-tasks", "floor"];

function concurrent(
  id: number,
  title: string,
  purpose: string,
  tasks: number,
  pollIntervalMs: number,
  pollsUntilDone: number,
  libraries: LibraryName[] = ALL,
): Scenario {
  // Mid-run: every task exists and is being polled.
  const midRun = Math.floor((tasks * pollsUntilDone) / 2);
  return {
    id,
    title,
    purpose,
    tasks,
    pollIntervalMs,
    pollsUntilDone,
    smallestInterval: false,
    heapMarks: [midRun],
    heapFigure: "perTask",
    libraries,
  };
}

function longTask(polls: number, firstMark: number): Scenario {
  return {
    id: 3,
    title: `1 task polled ${polls.toLocaleString("en-US")} times at the smallest interval`,
    purpose: "heap growth per poll of one long task (status message changes on every poll)",
    tasks: 1,
    pollIntervalMs: 1,
    pollsUntilDone: polls,
    smallestInterval: true,
    heapMarks: [firstMark, polls],
    heapFigure: "perPoll",
    libraries: ALL,
  };
}

const PUSH_LIBRARIES: LibraryName[] = ["ours", "ours-polling", "ext-tasks"];

/** Push against polling: the same clock-driven tasks, the heap measured at half of all state changes. */
function push(id: number, title: string, tasks: number, intervalMs: number, changes: number): Scenario {
  return {
    id,
    title,
    purpose:
      "push notifications (`subscriptions/listen`) against polling, on tasks that change on the server's clock",
    tasks,
    pollIntervalMs: intervalMs,
    pollsUntilDone: changes,
    smallestInterval: false,
    heapMarks: [Math.floor((tasks * changes) / 2)],
    heapFigure: "perTask",
    libraries: PUSH_LIBRARIES,
    kind: "push",
  };
}

const TELEMETRY_LIBRARIES: LibraryName[] = ["ours", "ours-otel-noop", "ours-otel-sdk"];

/** The polling load of scenario 1 with telemetry off, on over the API's no-op globals, and on over the SDK. */
function telemetry(id: number, title: string, tasks: number, intervalMs: number, polls: number): Scenario {
  const purpose =
    "the cost of `telemetry`: off, on with the API's no-op tracer and meter, and on with the SDK (a batch span " +
    "processor, an exporter that keeps spans in memory, a meter provider with a reader; default `pollSpans`)";
  return {
    ...concurrent(id, title, purpose, tasks, intervalMs, polls, TELEMETRY_LIBRARIES),
    report: "telemetry",
  };
}

/** The polling load of scenario 1, against a 2025-11-25 server. */
function legacy(id: number, title: string, tasks: number, intervalMs: number, polls: number): Scenario {
  const purpose =
    "scenario 1 against a 2025-11-25 server: `initialize`, `params.task`, `tasks/get`, then `tasks/result`";
  return { ...concurrent(id, title, purpose, tasks, intervalMs, polls), kind: "legacy" };
}

export function scenarios(quick: boolean): Scenario[] {
  if (quick) {
    return [
      concurrent(1, "200 tasks, 100 ms, 5 polls", "CPU, heap and timeliness at moderate load", 200, 100, 5),
      concurrent(2, "2,000 tasks, 100 ms, 5 polls", "the same under heavy load", 2_000, 100, 5),
      longTask(1_000, 100),
      concurrent(4, "20 tasks, 200 ms, 5 polls", "poll gaps and polls per task at light load", 20, 200, 5),
      concurrent(
        5,
        "10,000 tasks, 1,000 ms, 2 polls",
        "scale (mcp-tasks only, with the floor for reference)",
        10_000,
        1_000,
        2,
        ["ours", "floor"],
      ),
      push(6, "push: 200 tasks, a change every 100 ms, 10 changes", 200, 100, 10),
      push(7, "push: 2,000 tasks, a change every 200 ms, 10 changes", 2_000, 200, 10),
      legacy(8, "2025-11-25 server: 200 tasks, 100 ms, 5 polls", 200, 100, 5),
      telemetry(9, "telemetry: 200 tasks, 100 ms, 5 polls", 200, 100, 5),
    ];
  }
  return [
    concurrent(
      1,
      "1,000 tasks, 100 ms, 20 polls",
      "CPU, heap and timeliness at moderate load",
      1_000,
      100,
      20,
    ),
    concurrent(2, "10,000 tasks, 100 ms, 20 polls", "the same under heavy load", 10_000, 100, 20),
    longTask(20_000, 1_000),
    concurrent(4, "100 tasks, 200 ms, 10 polls", "poll gaps and polls per task at light load", 100, 200, 10),
    concurrent(
      5,
      "100,000 tasks, 5,000 ms, 3 polls",
      "scale (mcp-tasks only, with the floor for reference)",
      100_000,
      5_000,
      3,
      ["ours", "floor"],
    ),
    push(6, "push: 1,000 tasks, a change every 100 ms, 20 changes", 1_000, 100, 20),
    push(7, "push: 10,000 tasks, a change every 500 ms, 20 changes", 10_000, 500, 20),
    legacy(8, "2025-11-25 server: 1,000 tasks, 100 ms, 20 polls", 1_000, 100, 20),
    telemetry(9, "telemetry: 1,000 tasks, 100 ms, 20 polls", 1_000, 100, 20),
  ];
}
