/**
 * `tools/call` on the reference server: decide between a task and a synchronous answer, resolve MRTR
 * rounds on the request itself, and create the task only when the rounds are done. The rules come
 * from the Tasks extension: a `CreateTaskResult` only for a request that declared the extension, and
 * `-32021` when a tool cannot run without a task.
 */
import { ProtocolError } from "./load-server-sdk.js";
import type { CallToolResult, InputRequests, InputResponse } from "../schema/index.js";
import { missingTasksCapability } from "./capabilities.js";
import type { Clock } from "./clock.js";
import { ErrorCode } from "./constants.js";
import { takeAnswers } from "./input-answers.js";
import type { RequestStateCodec, RoundState } from "./request-state.js";
import type { Step, ToolCall } from "./steps.js";
import { runSynchronously } from "./sync-runner.js";
import { resolveFromCall } from "./task-runner.js";
import type { ToolDefinition } from "./tool.js";
import { resolveAdvance, resolveSteps, TOOL_DEFAULTS } from "./tool.js";

/** What the handler learned from the request. */
export interface ToolCallRequest {
  name: unknown;
  arguments: unknown;
  declaresTasks: boolean;
  /** `inputResponses` of an MRTR retry (the SDK lifts them out of `params`). */
  inputResponses: Readonly<Record<string, unknown>> | undefined;
  droppedInputResponseKeys: readonly string[] | undefined;
  requestState: unknown;
  signal: AbortSignal;
}

export interface ToolCallDependencies {
  tools: ReadonlyMap<string, ToolDefinition>;
  clock: Clock;
  requestState: RequestStateCodec;
  /** Store a new task and return its `CreateTaskResult`. */
  createTask(
    tool: ToolDefinition,
    args: Readonly<Record<string, unknown>>,
    responses: Record<string, InputResponse>,
  ): Record<string, unknown>;
}

function pick(requests: InputRequests, keys: readonly string[]): InputRequests {
  return Object.fromEntries(Object.entries(requests).filter(([key]) => keys.includes(key)));
}

function argumentsOf(value: unknown): Readonly<Record<string, unknown>> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ProtocolError(ErrorCode.invalidParams, "Invalid params: arguments must be an object");
  }
  return value as Record<string, unknown>;
}

function decodeState(
  codec: RequestStateCodec,
  raw: unknown,
  tool: string,
  phase: RoundState["phase"],
): RoundState {
  const state = typeof raw === "string" ? codec.decode(raw) : undefined;
  if (state === undefined || state.tool !== tool || state.phase !== phase) {
    throw new ProtocolError(ErrorCode.invalidParams, "Invalid or expired requestState");
  }
  return state;
}

function inputRequired(
  codec: RequestStateCodec,
  state: RoundState,
  inputRequests: InputRequests,
): Record<string, unknown> {
  return { resultType: "input_required", inputRequests, requestState: codec.encode(state) };
}

/**
 * Fold an MRTR retry's answers into the state of the round it answers. Returns the new state and the
 * requests of that round still unanswered (empty when the script can go on).
 */
function resumeRound(
  deps: ToolCallDependencies,
  request: ToolCallRequest,
  steps: readonly Step[],
  previous: RoundState,
  callWith: (state: RoundState) => ToolCall,
): { state: RoundState; unanswered: InputRequests } {
  const waiting = steps[previous.index];
  if (waiting?.kind !== "input")
    throw new ProtocolError(ErrorCode.invalidParams, "Invalid or expired requestState");
  const round = resolveFromCall(waiting.requests, callWith(previous));
  const pending = Object.keys(round).filter((key) => !Object.hasOwn(previous.responses, key));
  const answers = takeAnswers(pick(round, pending), request.inputResponses, request.droppedInputResponseKeys);
  const state = { ...previous, responses: { ...previous.responses, ...answers } };
  return {
    state,
    unanswered: pick(
      round,
      pending.filter((key) => !Object.hasOwn(answers, key)),
    ),
  };
}

/** Answer one `tools/call`: a tool result, an MRTR `input_required` round, or a `CreateTaskResult`. */
export async function handleToolCall(
  deps: ToolCallDependencies,
  request: ToolCallRequest,
): Promise<Record<string, unknown>> {
  const tool = typeof request.name === "string" ? deps.tools.get(request.name) : undefined;
  if (tool === undefined)
    throw new ProtocolError(ErrorCode.invalidParams, `Unknown tool: ${String(request.name)}`);
  const args = argumentsOf(request.arguments);
  const support = tool.task ?? TOOL_DEFAULTS.task;
  const taskAllowed = request.declaresTasks || tool.createTaskWhenUndeclared === true;
  if (support === "required" && !taskAllowed) throw missingTasksCapability();
  const asTask = support !== "never" && taskAllowed;

  // As a task, only the MRTR rounds run here; without one, the whole script does.
  const phase: RoundState["phase"] = asTask ? "pre" : "sync";
  const steps: readonly Step[] = asTask
    ? resolveSteps(tool, "beforeTask", args)
    : [...resolveSteps(tool, "beforeTask", args), ...resolveSteps(tool, "steps", args)];
  const callWith = (state: RoundState): ToolCall => ({
    name: tool.name,
    arguments: args,
    responses: state.responses,
    taskId: undefined,
    cancelRequested: false,
  });

  let state: RoundState = { tool: tool.name, phase, index: -1, responses: {} };
  if (request.requestState !== undefined) {
    const resumed = resumeRound(
      deps,
      request,
      steps,
      decodeState(deps.requestState, request.requestState, tool.name, phase),
      callWith,
    );
    state = resumed.state;
    if (Object.keys(resumed.unanswered).length > 0)
      return inputRequired(deps.requestState, state, resumed.unanswered);
  }

  const outcome = await runSynchronously(steps, state.index + 1, callWith(state), {
    clock: deps.clock,
    advance: resolveAdvance(tool, args),
    signal: request.signal,
  });
  switch (outcome.kind) {
    case "result":
      return outcome.result as CallToolResult & Record<string, unknown>;
    case "inputRequired":
      return inputRequired(deps.requestState, { ...state, index: outcome.index }, outcome.inputRequests);
    case "exhausted":
      if (asTask) return deps.createTask(tool, args, state.responses);
      throw new ProtocolError(
        ErrorCode.internalError,
        `Tool "${tool.name}" ended its script without a result`,
      );
  }
}
