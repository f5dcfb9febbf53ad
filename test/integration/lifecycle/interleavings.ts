/**
 * The random scenarios of the lifecycle property (interleavings.property.test.ts): what each tool does on the
 * reference server, which requests the proxy in front of it breaks, and what the caller does to its handles and
 * client, and when. A scenario is plain data, so fast-check can shrink a failing one and print it.
 *
 * A new kind of fault or action: add it to `FaultKind` / `ActionKind` and to its generator below; the compiler then
 * asks for its proxy rule (`planFor`) or its effect (`ACTIONS` in the property file). A new interesting state to
 * count goes to interleavings-coverage.ts.
 */
import fc from "fast-check";
import { defineTool, step, textResult, type Step, type ToolDefinition } from "../../../src/testing/index.js";
import type { FaultPlan, FaultRule } from "./fault-proxy.js";
import { question } from "./helpers.js";

/** One change of a task's script (see `step`). */
export type ScriptStep = "working" | "message" | "input" | "pollError" | "idle";
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
}

export type FaultKind = "hang" | "drop" | "http500" | "rpcError";
export type FaultedMethod = "tools/call" | "tasks/get" | "tasks/cancel" | "tasks/update";

/** The `index`-th request of `method` (counted over the whole run) is broken this way. */
export interface Fault {
  method: FaultedMethod;
  index: number;
  kind: FaultKind;
}

export type ActionKind = "cancel" | "detach" | "abort" | "close";
/** When an action happens: a time after the calls began, or when a handle's event first fires. */
export type Trigger = { afterMs: number } | { on: "task" | "update" | "retry" | "input" };

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
}

export interface Scenario {
  calls: CallPlan[];
  faults: Fault[];
  actions: Action[];
  /** What the elicitation handler does: answer, or throw (then `unansweredInput` applies). */
  inputHandler: "answer" | "throw";
  unansweredInput: "decline" | "cancel" | "fail";
  /** Retry backoff: quick (5-20 ms), or slow enough (150-300 ms) to outlast `cancelGraceMs` and the run. */
  retry: "quick" | "slow";
}

const toolScript: fc.Arbitrary<ToolScript> = fc.record({
  task: fc.constantFrom("required", "required", "optional", "never"),
  roundsBeforeTask: fc.constantFrom(0, 0, 0, 1, 2),
  steps: fc.array(fc.constantFrom<ScriptStep>("working", "message", "input", "pollError", "idle"), {
    maxLength: 4,
  }),
  end: fc.constantFrom<ScriptEnd>("complete", "complete", "fail", "cancelled", "stall"),
  onCancel: fc.constantFrom("honour", "honour", "ignore"),
  ttlMs: fc.constantFrom(null, null, null, 150, 400),
});

const trigger: fc.Arbitrary<Trigger> = fc.oneof(
  fc.record({ afterMs: fc.integer({ min: 0, max: 250 }) }),
  fc.record({ on: fc.constantFrom("task", "update", "retry", "input") }),
);

export function scenarios(): fc.Arbitrary<Scenario> {
  return fc.integer({ min: 1, max: 3 }).chain((handles) =>
    fc.record({
      calls: fc.array(
        fc.record({
          tool: toolScript,
          timeoutMs: fc.constantFrom(undefined, undefined, 60, 150, 300),
          awaitsHandle: fc.boolean(),
        }),
        { minLength: handles, maxLength: handles },
      ),
      faults: fc.array(
        fc.record({
          method: fc.constantFrom<FaultedMethod>("tools/call", "tasks/get", "tasks/cancel", "tasks/update"),
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
      inputHandler: fc.constantFrom("answer", "answer", "throw"),
      unansweredInput: fc.constantFrom("decline", "cancel", "fail"),
      retry: fc.constantFrom("quick", "quick", "slow"),
    }),
  );
}

/** The reference server's tool for call `index` of a scenario. */
export function toolFor(index: number, script: ToolScript): ToolDefinition {
  const steps: Step[] = script.steps.map((kind, position) => {
    switch (kind) {
      case "working":
        return step.working(`step ${position}`);
      case "message":
        return step.message(`message ${position}`);
      case "input":
        return step.input({ [`q${position}`]: question });
      case "pollError":
        return step.pollErrors(1);
      case "idle":
        return step.idle(1);
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
  return defineTool({
    name: `tool_${index}`,
    task: script.task,
    pollIntervalMs: 10,
    ttlMs: script.ttlMs,
    onCancel: script.onCancel,
    beforeTask: rounds,
    steps: [...steps, ends[script.end]],
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

const stalls: ToolScript = {
  task: "required",
  roundsBeforeTask: 0,
  steps: [],
  end: "stall",
  onCancel: "honour",
  ttlMs: null,
};
const quietly = { inputHandler: "answer", unansweredInput: "decline", retry: "quick" } as const;

/**
 * Interleavings the defects name, run before the random ones (random runs reach them only rarely):
 * a failing `tasks/cancel` whose retries outlast the grace (defect 10), a hanging poll under a deadline
 * (defect 9), an unanswerable input whose `tasks/cancel` is refused (defect 8), and a detach after input was
 * answered, then a cancel (defect 3).
 */
export const namedScenarios: Scenario[] = [
  {
    ...quietly,
    retry: "slow",
    calls: [{ tool: stalls, timeoutMs: undefined, awaitsHandle: true }],
    faults: [
      { method: "tasks/cancel", index: 0, kind: "http500" },
      { method: "tasks/cancel", index: 1, kind: "http500" },
    ],
    actions: [{ handle: 0, what: "cancel", when: { on: "task" } }],
  },
  {
    ...quietly,
    calls: [{ tool: stalls, timeoutMs: 150, awaitsHandle: true }],
    faults: [{ method: "tasks/get", index: 0, kind: "hang" }],
    actions: [],
  },
  {
    ...quietly,
    inputHandler: "throw",
    unansweredInput: "cancel",
    calls: [{ tool: { ...stalls, steps: ["input"] }, timeoutMs: undefined, awaitsHandle: false }],
    faults: [{ method: "tasks/cancel", index: 0, kind: "rpcError" }],
    actions: [],
  },
  {
    ...quietly,
    calls: [{ tool: { ...stalls, steps: ["input", "working"] }, timeoutMs: undefined, awaitsHandle: true }],
    faults: [],
    actions: [
      { handle: 0, what: "detach", when: { on: "input" } },
      { handle: 0, what: "cancel", when: { afterMs: 100 } },
    ],
  },
];
