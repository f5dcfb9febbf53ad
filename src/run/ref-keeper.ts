/**
 * What a task's ref says as of now: identity from the call (or the ref it was resumed from), times from the
 * server, the input ledger. When a ref is written, removed or released is decided in ./ref-life.ts.
 */
import type { CreateTaskResult, DetailedTask } from "../schema/index.js";
import { Method } from "../protocol/constants.js";
import type { InputCoordinator } from "../input/index.js";
import type { TaskRef } from "../task/ref.js";
import type { RunContext } from "./context.js";
import type { CallSpec } from "../eras/dialect.js";

/** A run made by `callTool` knows nothing of a ref beforehand; one frozen object serves them all. */
export const NO_REF: Partial<TaskRef> = Object.freeze({});

/**
 * A task's ref as of now: identity from the call (or the ref it was resumed from), `createdAt`/`ttlMs` from the
 * newest snapshot or the creation answer, the input keys answered so far, and answers given but not yet
 * acknowledged.
 */
export function refNow(
  context: RunContext,
  taskId: string,
  call: CallSpec | undefined,
  known: Partial<TaskRef>,
  [latest, created]: [DetailedTask | undefined, CreateTaskResult | undefined],
  input: InputCoordinator | undefined,
): TaskRef {
  return context.refFor({
    taskId,
    method: call?.method ?? known.method ?? Method.toolsCall,
    toolName: call?.toolName ?? known.toolName ?? "",
    createdAt: latest?.createdAt ?? created?.createdAt ?? known.createdAt,
    ttlMs: latest?.ttlMs ?? created?.ttlMs ?? known.ttlMs,
    answeredInputKeys: input?.answeredKeys() ?? known.answeredInputKeys ?? [],
    ...pendingOf(input?.pendingAnswers() ?? known.pendingInputAnswers),
  });
}

/** The `pendingInputAnswers` field, left out when nothing waits for an acknowledgement. */
function pendingOf(pending: Record<string, unknown> | undefined): Partial<TaskRef> {
  return pending !== undefined && Object.keys(pending).length > 0 ? { pendingInputAnswers: pending } : {};
}
