/**
 * Answering servers that need input: inside a task (`input_required` → `tasks/update`) and before one exists
 * (multi-round-trip `tools/call`). The task driver wires {@link InputCoordinator} and {@link runInputRounds};
 * apps see only the handler types, the events and `respond`.
 */
export type { InputContext, InputHandlers, InputUnansweredEvent } from "./types.js";
export { capabilitiesFor } from "./capabilities.js";
export { InputCoordinator, type InputCoordinatorDeps, type InputSnapshot } from "./coordinator.js";
export {
  InputRounds,
  runInputRounds,
  type InputRetry,
  type InputRoundsOptions,
  type RunInputRoundsOptions,
} from "./mrtr.js";
export { InputRespondError, type InputRespondProblem } from "./errors.js";
export {
  DEFAULT_INPUT_CONCURRENCY,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_MAX_UPDATE_FAILURES,
  DEFAULT_UNANSWERED_INPUT_POLICY,
} from "./policy.js";
export { canonicalJson, fingerprint } from "./fingerprint.js";
export { urlHost } from "./requests.js";
