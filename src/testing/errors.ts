/** Typed errors of the test kit: a tool definition that cannot work, or a script that breaks its own rules. */

import { McpTasksError } from "../protocol/errors.js";

/** Thrown by {@link defineTool} when a definition is malformed; the message names the field. */
export class ToolDefinitionError extends McpTasksError {
  static override readonly errorName: string = "ToolDefinitionError";
}

/**
 * Raised while a script runs when it breaks a rule it did not opt out of (for example reusing an
 * input key without `reuseKeys`). The task fails with `-32603` and the server's `onError` hears it.
 */
export class ScriptError extends McpTasksError {
  static override readonly errorName: string = "ScriptError";
}
