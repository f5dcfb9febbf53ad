/**
 * The one owner of what `mcp-tasks/temporal` records in an activity's heartbeat details and how a retry reads
 * it back (decision 21: the engine holds the ref). The details are plain JSON, stored by Temporal's server and
 * shown in its UI, so they carry the task's name and status and nothing secret the task does not need: answers
 * given but not yet acknowledged (`pendingInputAnswers`, which may hold what a user typed) are left out. A retry
 * trusts them no more than any stored ref: `readTaskRef` keeps only a ref's fields, and details that are not ours,
 * or not for this tool, stop the activity instead of calling the tool.
 */
import { readTaskRef, TaskRefError, type TaskRef, type TaskStatus } from "mcp-tasks";

/** What the activity records in its heartbeat details while it calls a tool and follows its task. */
export interface ToolActivityDetails {
  /** Marks details written by `mcp-tasks/temporal`, and their format version. */
  mcpTasks: 1;
  /** The tool called. */
  tool: string;
  /**
   * The task being followed. Absent while `tools/call` is unanswered: a retry that finds no ref knows a call went
   * out whose task it cannot name.
   */
  ref?: TaskRef;
  /** The task's latest status, and its message (untrusted server text, at most 512 characters). */
  status?: TaskStatus;
  statusMessage?: string;
}

/** Longest status message recorded: details travel with every heartbeat and are kept in the workflow's history. */
export const MAX_RECORDED_MESSAGE = 512;

/** The details to record now. */
export function detailsOf(
  tool: string,
  ref: TaskRef | undefined,
  status?: TaskStatus,
  statusMessage?: string,
): ToolActivityDetails {
  const details: ToolActivityDetails = { mcpTasks: 1, tool };
  if (ref !== undefined) {
    const { pendingInputAnswers: _unsent, ...kept } = ref;
    details.ref = kept;
  }
  if (status !== undefined) details.status = status;
  if (typeof statusMessage === "string") details.statusMessage = statusMessage.slice(0, MAX_RECORDED_MESSAGE);
  return details;
}

/** What a previous attempt left: nothing (a first call), a task to follow, or a call whose task is unknown. */
export type PreviousAttempt =
  { kind: "none" } | { kind: "task"; ref: TaskRef } | { kind: "unconfirmed-call" };

/** Details this activity cannot act on without risking a second call of the tool. */
export class ActivityDetailsError extends TaskRefError {
  static override readonly errorName: string = "ActivityDetailsError";
}

/**
 * Reads the heartbeat details a previous attempt of the activity recorded (`activityInfo().heartbeatDetails`).
 * Throws `ActivityDetailsError` for details that are not `mcp-tasks/temporal`'s, are for another tool, or hold
 * a malformed ref.
 */
export function readPreviousAttempt(value: unknown, tool: string): PreviousAttempt {
  if (value === undefined || value === null) return { kind: "none" };
  if (typeof value !== "object" || Array.isArray(value) || (value as { mcpTasks?: unknown }).mcpTasks !== 1) {
    throw new ActivityDetailsError(
      "the activity's heartbeat details were not written by mcp-tasks/temporal: a previous attempt may have " +
        "called the tool, so it is not called again (heartbeat nothing else in an activity that calls a tool)",
    );
  }
  const details = value as { tool?: unknown; ref?: unknown };
  if (details.tool !== tool) {
    throw new ActivityDetailsError(
      `the activity's heartbeat details are for tool ${JSON.stringify(details.tool)}, not "${tool}"`,
    );
  }
  if (details.ref === undefined) return { kind: "unconfirmed-call" };
  let ref: TaskRef;
  try {
    ref = readTaskRef(details.ref);
  } catch (error) {
    throw new ActivityDetailsError(`the activity's heartbeat details hold a bad ref (${String(error)})`, {
      cause: error,
    });
  }
  if (ref.toolName !== tool) {
    throw new ActivityDetailsError(
      `the ref in the activity's heartbeat details names tool "${ref.toolName}", not "${tool}"`,
    );
  }
  return { kind: "task", ref };
}
