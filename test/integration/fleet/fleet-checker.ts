/**
 * The fleet test's judge: reads the whole event log of a run (every worker's lines, the server's requests, the
 * faults applied) and returns every broken promise of the lease, as sentences naming the task, the workers and the
 * times. It owns the invariants; the run (fleet.ts) only produces the log.
 *
 * 1. Every created task (a worker stored its ref) reaches its end on the server and is reported — a handle settled
 *    `completed`, `failed` or `cancelled`, or ended by `OutputSchemaError` — by exactly one worker; by two only
 *    when the first was SIGKILLed within `crashWindowMs` of its report, before the ref's removal could land.
 * 2. No two workers follow one task at once for longer than the takeover bound: a worker that lost its lease (it
 *    was stopped, or cut off from Redis) may poll on until its next renewal tells it so, no more. A worker's polls
 *    of a task, joined where they are less than `gapMs` apart, make its spans of following; two workers' spans may
 *    overlap by at most `boundMs`.
 * 3. No input is answered twice: one `tasks/update` per task and input key reaches the server.
 * 4. No tool is called twice: one `tools/call` per job reaches the server.
 * 5. Nothing of a closed client runs afterwards: no HTTP request or Redis command after `close()` resolved, no
 *    poll reaching the server later than `slackMs` after it; and `close()` resolves within `closeBoundMs`.
 */

/** One line of the event log. `t` is `Date.now()` of the process that wrote it (one machine, one clock). */
export type FleetEvent =
  | { ev: "start"; w: string; t: number; pid: number }
  | { ev: "created"; w: string; t: number; job: number; taskId: string }
  | { ev: "callFailed"; w: string; t: number; job: number; error?: string }
  | { ev: "adopted" | "leaseLost"; w: string; t: number; taskId: string }
  | { ev: "answered"; w: string; t: number; taskId?: string; key: string }
  | { ev: "settled"; w: string; t: number; taskId?: string; kind: string; error?: string }
  | { ev: "request" | "redis"; w: string; t: number; after: boolean }
  | { ev: "closing" | "closed" | "exit"; w: string; t: number }
  | { ev: "crash"; w: string; t: number; error: string }
  | { ev: "poll"; w: string; t: number; taskId: string }
  | { ev: "update"; w: string; t: number; taskId: string; keys: string[] }
  | { ev: "call"; w: string; t: number; job: number }
  | { ev: "serverTask"; t: number; taskId: string; status: string }
  | { ev: "fault"; t: number; kind: string; target: string; untilT?: number };

export interface CheckLimits {
  /** Most two workers' following of one task may overlap (lease + one renewal interval + scheduling slack). */
  boundMs: number;
  /** Polls of one worker further apart than this are two spans of following. */
  gapMs: number;
  /** Allowance for a request already on the wire when `close()` resolved. */
  slackMs: number;
  /** Longest `close()` allowed. */
  closeBoundMs: number;
  /** A task reported again after its first reporter was SIGKILLed within this long of reporting is no fault. */
  crashWindowMs: number;
}

const REPORTS = new Set(["completed", "failed", "cancelled"]);
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** A handle's end that reports what the server said last: a terminal status, or a result its schema refused. */
export function isReport(event: Of<"settled">): boolean {
  return REPORTS.has(event.kind) || (event.kind === "error" && event.error === "OutputSchemaError");
}

type Of<K extends FleetEvent["ev"]> = Extract<FleetEvent, { ev: K }>;

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
}

function only<K extends FleetEvent["ev"]>(events: readonly FleetEvent[], ...kinds: K[]): Array<Of<K>> {
  return events.filter((event): event is Of<K> => (kinds as string[]).includes(event.ev));
}

/** A worker's spans of following one task: its polls, joined where less than `gapMs` apart. */
function spans(times: number[], gapMs: number): Array<[number, number]> {
  const sorted = [...times].sort((a, b) => a - b);
  const result: Array<[number, number]> = [];
  for (const time of sorted) {
    const last = result[result.length - 1];
    if (last !== undefined && time - last[1] < gapMs) last[1] = time;
    else result.push([time, time]);
  }
  return result;
}

/** The longest overlap of two workers' spans, with where it starts. */
function longestOverlap(
  a: Array<[number, number]>,
  b: Array<[number, number]>,
): { ms: number; from: number } {
  let best = { ms: 0, from: 0 };
  for (const [aFrom, aTo] of a) {
    for (const [bFrom, bTo] of b) {
      const ms = Math.min(aTo, bTo) - Math.max(aFrom, bFrom);
      if (ms > best.ms) best = { ms, from: Math.max(aFrom, bFrom) };
    }
  }
  return best;
}

/**
 * Whether the worker of this report was SIGKILLed within `windowMs` after it: between reporting a task and the
 * ref's removal reaching Redis a crash is possible, and then the adopter reports the task again. A report is an
 * event in a process; no order of report and removal makes it exactly once across a crash.
 */
function killedJustAfter(report: Of<"settled">, events: readonly FleetEvent[], windowMs: number): boolean {
  return events.some(
    (event) =>
      event.ev === "fault" &&
      event.kind === "kill" &&
      event.target === report.w &&
      event.t >= report.t &&
      event.t - report.t <= windowMs,
  );
}

/** Every broken promise in the log, one sentence each; empty when the run kept them all. */
export function checkFleet(log: readonly FleetEvent[], limits: CheckLimits): string[] {
  const events = [...log].sort((a, b) => a.t - b.t);
  const problems: string[] = [];
  // A worker that crashed makes the run say nothing about the lease: the harness (or the client) is broken.
  for (const crash of only(events, "crash")) problems.push(`${crash.w} crashed: ${crash.error}`);
  const start = Math.min(...events.map((event) => event.t));
  const at = (t: number) => `+${String(t - start)}ms`;

  // 1. Every created task ends, reported by exactly one worker.
  const created = only(events, "created");
  const serverStatus = new Map(only(events, "serverTask").map((task) => [task.taskId, task.status]));
  const reports = groupBy(
    only(events, "settled").filter((event) => event.taskId !== undefined && isReport(event)),
    (event) => event.taskId as string,
  );
  for (const { taskId, job, w } of created) {
    const status = serverStatus.get(taskId);
    if (status === undefined || !TERMINAL.has(status))
      problems.push(
        `task ${taskId} (job ${String(job)}, created by ${w}) never ended: server status ${String(status)}`,
      );
    const by = reports.get(taskId) ?? [];
    const workers = [...new Set(by.map((event) => event.w))];
    if (workers.length === 0) {
      const last = only(events, "settled", "adopted", "poll").filter((event) => event.taskId === taskId);
      const trail = last
        .slice(-4)
        .map(
          (event) => `${event.ev}${"kind" in event ? `:${event.kind}` : ""} by ${event.w} at ${at(event.t)}`,
        );
      problems.push(`task ${taskId} (job ${String(job)}) was reported by no worker [${trail.join("; ")}]`);
    } else if (
      workers.length === 2 &&
      killedJustAfter(by[0] as Of<"settled">, events, limits.crashWindowMs)
    ) {
      // Its first reporter died before it could remove the ref: reporting is at least once across a SIGKILL.
    } else if (workers.length > 1) {
      const list = by
        .slice(0, 4)
        .map((event) => `${event.w} (${event.kind} at ${at(event.t)})`)
        .join(", ");
      const more = by.length > 4 ? `, … ${String(by.length)} reports in all` : "";
      problems.push(`task ${taskId} was reported by ${String(workers.length)} workers: ${list}${more}`);
    }
  }

  // 2. No two workers follow one task at once beyond the takeover bound.
  for (const [taskId, polls] of groupBy(only(events, "poll"), (event) => event.taskId)) {
    const byWorker = [...groupBy(polls, (event) => event.w)].map(
      ([w, own]) =>
        [
          w,
          spans(
            own.map((event) => event.t),
            limits.gapMs,
          ),
        ] as const,
    );
    for (let i = 0; i < byWorker.length; i++) {
      for (let j = i + 1; j < byWorker.length; j++) {
        const [a, aSpans] = byWorker[i] as (typeof byWorker)[number];
        const [b, bSpans] = byWorker[j] as (typeof byWorker)[number];
        const overlap = longestOverlap(aSpans, bSpans);
        if (overlap.ms > limits.boundMs) {
          problems.push(
            `task ${taskId} was polled by ${a} and ${b} at once for ${String(overlap.ms)}ms from ` +
              `${at(overlap.from)} (bound ${String(limits.boundMs)}ms)`,
          );
        }
      }
    }
  }

  // 3. No input answered twice.
  const updates = only(events, "update").flatMap((event) =>
    event.keys.map((key) => ({ key: `${event.taskId} ${key}`, event })),
  );
  for (const [key, sent] of groupBy(updates, (entry) => entry.key)) {
    if (sent.length > 1) {
      const by = sent.map(({ event }) => `${event.w} at ${at(event.t)}`).join(", ");
      problems.push(`input ${key} was answered ${String(sent.length)} times: ${by}`);
    }
  }

  // 4. No tool called twice.
  for (const [job, calls] of groupBy(only(events, "call"), (event) => event.job)) {
    if (calls.length > 1) {
      const by = calls.map((event) => `${event.w} at ${at(event.t)}`).join(", ");
      problems.push(`job ${String(job)} was called ${String(calls.length)} times: ${by}`);
    }
  }

  // 5. Nothing of a closed client runs afterwards; close() is bounded.
  const killed = new Set(
    only(events, "fault").flatMap((event) => (event.kind === "kill" ? [event.target] : [])),
  );
  for (const [w, own] of groupBy(
    events.filter((event): event is Exclude<FleetEvent, Of<"serverTask" | "fault">> => "w" in event),
    (event) => event.w,
  )) {
    const closing = own.find((event) => event.ev === "closing");
    const closed = own.find((event) => event.ev === "closed");
    if (closing !== undefined && closed === undefined && !killed.has(w)) {
      problems.push(`${w}: close() called at ${at(closing.t)} never resolved`);
    }
    if (closing !== undefined && closed !== undefined && closed.t - closing.t > limits.closeBoundMs) {
      problems.push(
        `${w}: close() took ${String(closed.t - closing.t)}ms (bound ${String(limits.closeBoundMs)}ms) from ${at(closing.t)}`,
      );
    }
    if (closed === undefined) continue;
    const late = own.filter(
      (event) =>
        ("after" in event && event.after) ||
        ((event.ev === "adopted" || event.ev === "answered" || event.ev === "created") &&
          event.t > closed.t) ||
        ((event.ev === "poll" || event.ev === "update" || event.ev === "call") &&
          event.t > closed.t + limits.slackMs),
    );
    if (late.length > 0) {
      const kinds = [...new Set(late.map((event) => event.ev))].join(", ");
      problems.push(
        `${w}: ${String(late.length)} events (${kinds}) after close() resolved at ${at(closed.t)}, the last at ` +
          `${at((late[late.length - 1] as FleetEvent).t)}`,
      );
    }
  }
  return problems;
}
