/**
 * Answering servers that need input: inside a task (`input_required` → `tasks/update`), before one exists
 * (multi-round-trip `tools/call`), and in server→client requests (`server-requests.ts`, `task-inbox.ts`). The
 * task driver wires {@link InputCoordinator}, {@link runInputRounds} and {@link TaskInbox}; apps see only the
 * handler types, the events and `respond`.
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
export { InputRespondError, type InputRespondProblem } from "../protocol/errors.js";
export {
  DEFAULT_INPUT_CONCURRENCY,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_MAX_UPDATE_FAILURES,
  DEFAULT_UNANSWERED_INPUT_POLICY,
} from "./policy.js";
export { canonicalJson, fingerprint } from "./fingerprint.js";
export { ServerRequestRouter, relatedTaskId, type TaskInputTarget } from "./server-requests.js";
export { TaskInbox, type TaskInboxDeps } from "./task-inbox.js";
export { urlHost } from "./requests.js";
