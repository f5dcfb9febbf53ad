/**
 * The random scenarios of the lifecycle property (interleavings.property.test.ts): what each tool does on the
 * reference server (polled, or moving on its own clock and pushed over listen streams), how those streams
 * misbehave (late, duplicated or reordered notifications, a stream that breaks), which requests the proxy in front
 * of it breaks, which `put`s of the client's store reject or hang, and what the caller does to its handles and
 * client, and when. A scenario is plain data, so fast-check can shrink a failing one and print it.
 *
 * A new kind of fault or action: add it to `FaultKind` / `StoreFaultKind` / `ActionKind` and to its generator
 * below; the compiler then asks for its proxy rule (`planFor`), its store behaviour (`storePlanFor`) or its effect
 * (`ACTIONS` in the property file). A new interesting state to count goes to interleavings-coverage.ts.
 */
import fc from "fast-check";
import { defineTool, step, textResult, type Step, type ToolDefinition } from "../../../src/testing/index.js";
import type { Clock, ListenBehaviour } from "../../../src/testing/index.js";
import type { FaultPlan, FaultRule } from "./fault-proxy.js";
import { question } from "./helpers.js";
import type { PutFault, PutPlan } from "./scripted-store.js";

/**
 * One change of a task's script (see `step`); `workThenAsk` is `working` followed at once by `input`, the pair
 * a reordered listen stream turns into a stale `working` after the `input_required`.
 */
export type ScriptStep = "working" | "message" | "input" | "workThenAsk" | "pollError" | "idle";
export type ScriptEnd = "complete" | "fail" | "cancelled" | "stall";

export interface ToolScript {
  task: "required" | "optional" | "never";
  /** Input rounds on the `tools/call` itself, before the task exists. */
  roundsBeforeTask: number;
  steps: ScriptStep[];
  end: ScriptEnd;
  onCancel: "honour" | "ignore";
  /** A short time to live makes the TTL backstop a player too. */
  ttlMs: number | null;
  /**
   * Whether the task moves on the server's clock (a step every 10 ms), which makes the server acknowledge it on
   * a listen and push its changes; otherwise it moves one step per `tasks/get` and is left to polling.
   */
  pushed: boolean;
  /** The `pollIntervalMs` the server suggests: the floor of the cadence invariant. */
  intervalMs: number;
}

export type FaultKind = "hang" | "drop" | "http500" | "rpcError";
export type FaultedMethod = "tools/call" | "tasks/get" | "tasks/cancel" | "tasks/update";

/** The `index`-th request of `method` (counted over the whole run) is broken this way. */
export interface Fault {
  method: FaultedMethod;
  index: number;
  kind: FaultKind;
}

/** What becomes of a `put` of the client's store: rejected, held 150 ms, or held until the run's end. */
export type StoreFaultKind = "reject" | "slow" | "hang";

/** How the server's listen streams misbehave (see `ListenBehaviour`). */
export interface ListenScript {
  ackDelayMs: number;
  duplicate: boolean;
  reorder: boolean;
  /** The first listen stream breaks this long after it opened. */
  firstDropsAfterMs: number | undefined;
}

export type ActionKind = "cancel" | "detach" | "abort" | "close";
/**
 * When an action happens: a time after the calls began, when a handle's event first fires, or (`storing`) when
 * the client's first `put` of the handle's task begins (the task exists, and its handle does not know it yet).
 */
export type Trigger = { afterMs: number } | { on: "task" | "update" | "retry" | "input" | "storing" };

export interface Action {
  handle: number;
  what: ActionKind;
  when: Trigger;
}

export interface CallPlan {
  tool: ToolScript;
  /** `timeoutMs` of the call: a deadline racing everything else. */
  timeoutMs: number | undefined;
  /** Whether the caller awaits the handle itself (a rejection must then reach it, and nothing else). */
  awaitsHandle: boolean;
  /** What becomes of the client's first `put` of the call's new task (its ref, before the handle reports it). */
  put: StoreFaultKind | "stored";
}

export interface Scenario {
  calls: CallPlan[];
  faults: Fault[];
  actions: Action[];
  /**
   * What the elicitation handler does: answer at once, answer after 60 ms (a user taking their time, so a
   * notification can arrive while it runs), or throw (then `unansweredInput` applies).
   */
  inputHandler: "answer" | "slow" | "throw";
  unansweredInput: "decline" | "cancel" | "fail";
  /** Retry backoff: quick (5-20 ms), or slow enough (150-300 ms) to outlast `cancelGraceMs` and the run. */
  retry: "quick" | "slow";
  listen: ListenScript;
  /**
   * The server's timestamps: exact, or whole seconds (like a server that stamps coarsely: successive states
   * share a `lastUpdatedAt`, so a reordered notification is a stale state with an equal timestamp).
   */
  stamps: "exact" | "seconds";
  /**
   * Pushed tasks started 25 ms apart besides the calls (each its own listen batch), so the client reaches its
   * cap of listen streams and merges new ids into an existing stream.
   */
  crowd: number;
}

const toolScript: fc.Arbitrary<ToolScript> = fc.record({
  task: fc.constantFrom("required", "required", "optional", "never"),
  roundsBeforeTask: fc.constantFrom(0, 0, 0, 1, 2),
  steps: fc.array(
    fc.constantFrom<ScriptStep>("working", "message", "input", "workThenAsk", "pollError", "idle"),
    {
      maxLength: 4,
    },
  ),
  end: fc.constantFrom<ScriptEnd>("complete", "complete", "fail", "cancelled", "stall"),
  onCancel: fc.constantFrom("honour", "honour", "ignore"),
  ttlMs: fc.constantFrom(null, null, null, 150, 400),
  pushed: fc.constantFrom(true, true, false),
  // Mostly far above the quick retry backoff (5-20 ms), so a poll brought forward shows.
  intervalMs: fc.constantFrom(10, 80, 80),
});

const trigger: fc.Arbitrary<Trigger> = fc.oneof(
  fc.record({ afterMs: fc.integer({ min: 0, max: 250 }) }),
  fc.record({ on: fc.constantFrom("task", "task", "update", "retry", "input", "storing", "storing") }),
);

const listenScript: fc.Arbitrary<ListenScript> = fc.record({
  ackDelayMs: fc.constantFrom(0, 0, 30),
  duplicate: fc.boolean(),
  reorder: fc.constantFrom(true, true, false),
  firstDropsAfterMs: fc.constantFrom(undefined, undefined, 60, 150),
});

export function scenarios(): fc.Arbitrary<Scenario> {
  return fc.integer({ min: 1, max: 3 }).chain((handles) =>
    fc.record({
      calls: fc.array(
        fc.record({
          tool: toolScript,
          timeoutMs: fc.constantFrom(undefined, undefined, 60, 150, 300),
          awaitsHandle: fc.boolean(),
          put: fc.constantFrom<CallPlan["put"]>("stored", "stored", "stored", "reject", "slow", "hang"),
        }),
        { minLength: handles, maxLength: handles },
      ),
      faults: fc.array(
        fc.record({
          // tasks/get twice as often: a failed poll and its retry are what the cadence must hold to the interval.
          method: fc.constantFrom<FaultedMethod>(
            "tools/call",
            "tasks/get",
            "tasks/get",
            "tasks/cancel",
            "tasks/update",
          ),
          // Early requests more often: a handle sends few of each method before it ends.
          index: fc.constantFrom(0, 0, 1, 1, 2, 3, 4),
          kind: fc.constantFrom<FaultKind>("hang", "drop", "http500", "rpcError"),
        }),
        { maxLength: 4 },
      ),
      actions: fc.array(
        fc.record({
          handle: fc.integer({ min: 0, max: handles - 1 }),
          what: fc.constantFrom<ActionKind>("cancel", "cancel", "detach", "abort", "close"),
          when: trigger,
        }),
        { maxLength: 4 },
      ),
      inputHandler: fc.constantFrom("answer", "slow", "throw"),
      unansweredInput: fc.constantFrom("decline", "cancel", "fail"),
      retry: fc.constantFrom("quick", "quick", "slow"),
      listen: listenScript,
      stamps: fc.constantFrom("exact", "seconds", "seconds"),
      crowd: fc.constantFrom(0, 0, 6),
    }),
  );
}

/** The reference server's tool for call `index` of a scenario. */
export function toolFor(index: number, script: ToolScript): ToolDefinition {
  const steps: Step[] = script.steps.flatMap((kind, position): Step[] => {
    switch (kind) {
      case "working":
        return [step.working(`step ${position}`)];
      case "message":
        return [step.message(`message ${position}`)];
      case "input":
        return [step.input({ [`q${position}`]: question })];
      case "workThenAsk":
        return [step.working(`step ${position}`), step.input({ [`q${position}`]: question })];
      case "pollError":
        return [step.pollErrors(1)];
      case "idle":
        return [step.idle(1)];
    }
  });
  const ends: Record<ScriptEnd, Step> = {
    complete: step.complete(textResult(`done ${index}`)),
    fail: step.fail({ code: -32000, message: "the tool gave up" }),
    cancelled: step.cancelled("the server stopped it"),
    stall: step.stall(),
  };
  const rounds = Array.from({ length: script.roundsBeforeTask }, (_, round) =>
    step.input({ [`before${round}`]: question }),
  );
  // A pushed task waits 40 ms first, so its listen is acknowledged before its script moves.
  const start = script.pushed ? [step.idle(4)] : [];
  return defineTool({
    name: `tool_${index}`,
    task: script.task,
    ...(script.pushed && { advance: { everyMs: 10 } }),
    pollIntervalMs: script.intervalMs,
    ttlMs: script.ttlMs,
    onCancel: script.onCancel,
    beforeTask: rounds,
    steps: [...start, ...steps, ends[script.end]],
  });
}

/** The proxy's plan: the scenario's faults, by method and per-method request index. */
export function planFor(faults: readonly Fault[]): FaultPlan {
  const rules: Record<FaultKind, FaultRule> = {
    hang: "hang",
    drop: "drop",
    http500: { status: 500 },
    rpcError: { error: { code: -32603, message: "injected internal error" } },
  };
  return (method, index) => {
    const fault = faults.find((each) => each.method === method && each.index === index);
    return fault === undefined ? undefined : rules[fault.kind];
  };
}

/** The store's plan: each call's fault, on the first `put` of its task. */
export function storePlanFor(calls: readonly CallPlan[]): PutPlan {
  const kinds: Record<StoreFaultKind, PutFault> = {
    reject: { kind: "reject" },
    slow: { kind: "hang", holdMs: 150 },
    hang: { kind: "hang", holdMs: undefined },
  };
  return (ref, index) => {
    const put = calls.find((_, call) => ref.toolName === `tool_${call}`)?.put;
    return index > 0 || put === undefined || put === "stored" ? undefined : kinds[put];
  };
}

/** The server's listen behaviour for a scenario. */
export function listenFor(script: ListenScript): ListenBehaviour {
  const drop = script.firstDropsAfterMs;
  return {
    ...(script.ackDelayMs > 0 && { ackDelayMs: script.ackDelayMs }),
    ...(script.duplicate && { duplicate: true }),
    ...(script.reorder && { reorder: true }),
    ...(drop !== undefined && { dropAfterMs: (listen: number) => (listen === 0 ? drop : undefined) }),
  };
}

/**
 * The server's clock: real timers, counted (`live`), so a run can tell the server's timers (tasks moving on the
 * clock, held notifications) from the client's; timestamps in whole seconds when the scenario says so.
 */
export function clockFor(stamps: Scenario["stamps"]): Clock & { readonly live: number } {
  const timers = new Set<ReturnType<typeof setTimeout>>();
  return {
    now: stamps === "exact" ? () => Date.now() : () => Math.floor(Date.now() / 1000) * 1000,
    setTimeout: (callback, ms) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        callback();
      }, ms);
      timers.add(timer);
      return timer;
    },
    clearTimeout: (handle) => {
      timers.delete(handle as ReturnType<typeof setTimeout>);
      clearTimeout(handle as ReturnType<typeof setTimeout>);
    },
    get live() {
      return timers.size;
    },
  };
}

/** A pushed task that lives ~160 ms and suggests polls 200 ms apart: one of a scenario's crowd. */
export const CROWD_TOOL = "crowd";
export const crowdTool: ToolDefinition = defineTool({
  name: CROWD_TOOL,
  task: "required",
  advance: { everyMs: 10 },
  pollIntervalMs: 200,
  steps: [step.working("in the crowd"), step.idle(14), step.complete(textResult("crowd done"))],
});

const stalls: ToolScript = {
  task: "required",
  roundsBeforeTask: 0,
  steps: [],
  end: "stall",
  onCancel: "honour",
  ttlMs: null,
  pushed: false,
  intervalMs: 10,
};
const quietly: Omit<Scenario, "calls" | "faults" | "actions"> = {
  inputHandler: "answer",
  unansweredInput: "decline",
  retry: "quick",
  listen: { ackDelayMs: 0, duplicate: false, reorder: false, firstDropsAfterMs: undefined },
  stamps: "exact",
  crowd: 0,
};

/**
 * Interleavings that once broke the client, run before the random ones (random runs reach them only rarely): a
 * failing `tasks/cancel` whose retries outlast the grace, a hanging poll under a deadline, an unanswerable input
 * whose `tasks/cancel` is refused, and a detach after input was answered, then a cancel; a crowd of pushed tasks
 * past the stream cap, a cancel while the new ref is being stored, a failed poll and a failing cancel under a long
 * interval, and a stale `working` stamped like the `input_required` after it, reordered, while the handler runs.
 */
export const namedScenarios: Scenario[] = [
  {
    ...quietly,
    retry: "slow",
    calls: [{ tool: stalls, timeoutMs: undefined, awaitsHandle: true, put: "stored" }],
    faults: [
      { method: "tasks/cancel", index: 0, kind: "http500" },
      { method: "tasks/cancel", index: 1, kind: "http500" },
    ],
    actions: [{ handle: 0, what: "cancel", when: { on: "task" } }],
  },
  {
    ...quietly,
    calls: [{ tool: stalls, timeoutMs: 150, awaitsHandle: true, put: "stored" }],
    faults: [{ method: "tasks/get", index: 0, kind: "hang" }],
    actions: [],
  },
  {
    ...quietly,
    inputHandler: "throw",
    unansweredInput: "cancel",
    calls: [
      { tool: { ...stalls, steps: ["input"] }, timeoutMs: undefined, awaitsHandle: false, put: "stored" },
    ],
    faults: [{ method: "tasks/cancel", index: 0, kind: "rpcError" }],
    actions: [],
  },
  {
    ...quietly,
    calls: [
      {
        tool: { ...stalls, steps: ["input", "working"] },
        timeoutMs: undefined,
        awaitsHandle: true,
        put: "stored",
      },
    ],
    faults: [],
    actions: [
      { handle: 0, what: "detach", when: { on: "input" } },
      { handle: 0, what: "cancel", when: { afterMs: 100 } },
    ],
  },
  {
    ...quietly,
    calls: [
      {
        tool: { ...stalls, pushed: true, intervalMs: 80 },
        timeoutMs: undefined,
        awaitsHandle: false,
        put: "stored",
      },
    ],
    faults: [],
    actions: [],
    crowd: 6,
  },
  {
    ...quietly,
    calls: [{ tool: stalls, timeoutMs: undefined, awaitsHandle: true, put: "slow" }],
    faults: [],
    actions: [{ handle: 0, what: "cancel", when: { on: "storing" } }],
  },
  {
    ...quietly,
    calls: [
      {
        tool: { ...stalls, steps: ["pollError", "working"], intervalMs: 80 },
        timeoutMs: undefined,
        awaitsHandle: false,
        put: "stored",
      },
    ],
    faults: [{ method: "tasks/cancel", index: 0, kind: "http500" }],
    actions: [{ handle: 0, what: "cancel", when: { afterMs: 200 } }],
  },
  {
    ...quietly,
    inputHandler: "slow",
    stamps: "seconds",
    listen: { ...quietly.listen, reorder: true },
    calls: [
      {
        tool: { ...stalls, pushed: true, steps: ["workThenAsk"], end: "complete" },
        timeoutMs: undefined,
        awaitsHandle: true,
        put: "stored",
      },
    ],
    faults: [],
    actions: [],
  },
];
