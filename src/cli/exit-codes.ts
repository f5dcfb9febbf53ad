/**
 * The exit codes of `mcp-tasks`: one per way a task can end, so scripts branch on `$?` without parsing text.
 * `--help` prints this table; keep the two in step through `EXIT_CODE_HELP`.
 */
import { AuthError, type CallToolResult, type TaskOutcome } from "../index.js";

export const ExitCode = {
  completed: 0,
  toolError: 1,
  usage: 2,
  failed: 3,
  cancelled: 4,
  gone: 5,
  deadline: 6,
  detached: 7,
  auth: 8,
} as const;

export const EXIT_CODE_HELP = `Exit codes:
  0  completed
  1  completed with a tool error (the result has isError: true)
  2  usage: bad arguments, unknown tool, server unreachable
  3  failed (the task failed, the server broke the protocol, or input could not be answered)
  4  cancelled
  5  expired or not found on the server
  6  --timeout passed (the task keeps running)
  7  detached (the task keeps running; resume it with \`mcp-tasks watch\`)
  8  authorization: the server refused the credentials or needs a login (\`mcp-tasks login <url>\`);
     a task keeps running: resume it with \`mcp-tasks watch\` once logged in
`;

/** The exit code for how a task ended. */
export function exitCodeOf(outcome: TaskOutcome<CallToolResult>): number {
  switch (outcome.kind) {
    case "completed":
      return outcome.result.isError === true ? ExitCode.toolError : ExitCode.completed;
    case "cancelled":
      return ExitCode.cancelled;
    case "not_found":
    case "expired":
      return ExitCode.gone;
    case "deadline_exceeded":
      return ExitCode.deadline;
    case "detached":
      return ExitCode.detached;
    case "error":
      return outcome.error instanceof AuthError ? ExitCode.auth : ExitCode.failed;
    default:
      return ExitCode.failed;
  }
}

/** A mistake on the command line (or a server that cannot be used): one line on stderr, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** The server refused the command's credentials, or wants a login first: one line on stderr, exit code 8. */
export class AuthorizationNeeded extends Error {
  override readonly name = "AuthorizationNeeded";
}
