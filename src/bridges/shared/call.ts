/**
 * One bridged tool call, framework-neutral: it runs through the client's (or the host's) `callTool`, yields the task's live status,
 * and ends with what the model should see. The framework's abort signal cancels the task (the handle sends
 * `tasks/cancel` once) and is rethrown, so the framework reports an abort; every other ending is an output,
 * never an exception. With a hand-off time, a task still running then is handed off instead.
 */
import type { CallToolResult, TaskHandle, TaskOutcome, TaskStatus, TaskUpdate } from "mcp-tasks";
import { bookOf } from "./handed-off.js";
import { callInputHandlers, type BridgeSetup } from "./options.js";
import { endingText } from "./output.js";
import type { SourceTool } from "./source.js";

/** A live status of the call (never the last step). */
export interface StatusStep {
  type: "status";
  status: TaskStatus;
  /** Untrusted server text. */
  statusMessage?: string;
}

/** How a call ends for the model. */
export type FinalStep =
  /** The tool ran: its result (with `isError: true` when the tool reported an error). */
  | { type: "result"; result: CallToolResult }
  /** It did not complete: failed, cancelled, expired, …; the message names the tool and the task (redacted). */
  | { type: "error"; message: string }
  /** A message for the model: a task handed off (with its ref), still running, or cancelled on request. */
  | { type: "note"; message: string; ref?: string };

export type Step = StatusStep | FinalStep;

/** Where a framework's call comes from. */
export interface CallSite {
  signal: AbortSignal | undefined;
  toolCallId: string | undefined;
}

type Event =
  | { kind: "update"; update: TaskUpdate }
  | { kind: "settled"; outcome: TaskOutcome }
  | { kind: "task" }
  | { kind: "due" }
  | { kind: "abort" };

/** A queue the generator awaits: events pushed from listeners, taken one at a time. */
class Events {
  private readonly items: Event[] = [];
  private wake: (() => void) | undefined;
  closed = false;

  push(event: Event): void {
    if (this.closed) return;
    this.items.push(event);
    this.wake?.();
  }

  async next(): Promise<Event> {
    while (this.items.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    return this.items.shift()!;
  }
}

/** The ending of a call as the model sees it. */
export function finalStep(toolName: string, outcome: TaskOutcome): FinalStep {
  return outcome.kind === "completed"
    ? { type: "result", result: outcome.result }
    : { type: "error", message: endingText(toolName, outcome) };
}

export function statusStep(update: Pick<TaskUpdate, "status" | "statusMessage">): StatusStep {
  return update.statusMessage === undefined
    ? { type: "status", status: update.status }
    : { type: "status", status: update.status, statusMessage: update.statusMessage };
}

/** The note the model gets for a task handed off. */
export function handoffNote(toolName: string, ref: string, prefix: string): string {
  return (
    `Started "${toolName}"; it is still running as task ${ref}. ` +
    `Call ${prefix}task_status with {"ref": "${ref}"} to check on it later, or ${prefix}task_cancel to stop it.`
  );
}

/**
 * Runs one call; yields status steps, then exactly one final step. Throws only the framework's abort. The model
 * reads the tool under the name the source calls it by (a host's qualified name).
 */
export async function* runCall(
  setup: BridgeSetup,
  tool: SourceTool,
  args: unknown,
  site: CallSite,
): AsyncGenerator<Step> {
  const { signal, toolCallId } = site;
  const toolName = tool.callName;
  signal?.throwIfAborted();
  // The task is cancelled by the framework's abort only until it is handed off: after that it outlives the turn.
  const own = new AbortController();
  let handedOff = false;
  const events = new Events();
  const onAbort = () => {
    if (handedOff) return;
    own.abort(signal?.reason);
    events.push({ kind: "abort" });
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const inputHandlers = callInputHandlers(setup.inputHandlers, toolCallId);
  let handle: TaskHandle<CallToolResult>;
  try {
    handle = setup.source.callTool(toolName, argumentsOf(args), {
      signal: own.signal,
      ...(inputHandlers !== undefined && { inputHandlers }),
    });
  } catch (error) {
    signal?.removeEventListener("abort", onAbort);
    throw error;
  }
  handle.on("update", (update) => {
    setup.onUpdate?.({
      toolName: tool.tool.name,
      toolCallId,
      update,
      ...(tool.server !== undefined && { server: tool.server }),
    });
    events.push({ kind: "update", update });
  });
  handle.on("task", () => events.push({ kind: "task" }));
  void handle.outcome().then((outcome) => events.push({ kind: "settled", outcome }));
  const timer =
    setup.handoffAfterMs === undefined
      ? undefined
      : setTimeout(() => events.push({ kind: "due" }), setup.handoffAfterMs);
  let due = false;
  try {
    for (;;) {
      const event = await events.next();
      if (event.kind === "abort") throw signal?.reason ?? new DOMException("aborted", "AbortError");
      if (event.kind === "update" && !event.update.terminal) yield statusStep(event.update);
      if (event.kind === "settled") {
        yield finalStep(toolName, event.outcome);
        return;
      }
      if (event.kind === "due") due = true;
      if (due && handle.taskId !== undefined && !handle.isSettled) {
        handedOff = true;
        const ref = await bookOf(setup.source.target).add(handle, toolName);
        yield { type: "note", message: handoffNote(toolName, ref, setup.prefix), ref };
        return;
      }
    }
  } finally {
    events.closed = true;
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

type Arguments = Record<string, unknown>;

/** The model's arguments as a JSON object (a framework may pass `undefined` for a tool without parameters). */
function argumentsOf(args: unknown): Arguments {
  return args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Arguments) : {};
}
