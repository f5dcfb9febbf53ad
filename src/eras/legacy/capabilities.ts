/**
 * What a 2025-11-25 server's `initialize` capabilities say about tasks (`capabilities.tasks`):
 * `{ list?: {}, cancel?: {}, requests?: { tools?: { call?: {} } } }`. Presence of a key is the offer.
 */
export interface LegacyTaskSupport {
  /** `capabilities.tasks` is there at all: `tasks/get` and `tasks/result` exist. */
  any: boolean;
  /** `tasks.requests.tools.call`: `tools/call` may be task-augmented. */
  toolCalls: boolean;
  /** `tasks.list`: `tasks/list` exists. */
  list: boolean;
  /** `tasks.cancel`: `tasks/cancel` exists. */
  cancel: boolean;
}

export function legacyTaskSupport(capabilities: Record<string, unknown> | undefined): LegacyTaskSupport {
  const tasks = objectAt(capabilities, "tasks");
  const tools = objectAt(objectAt(tasks, "requests"), "tools");
  return {
    any: tasks !== undefined,
    toolCalls: objectAt(tools, "call") !== undefined,
    list: objectAt(tasks, "list") !== undefined,
    cancel: objectAt(tasks, "cancel") !== undefined,
  };
}

function objectAt(
  value: Record<string, unknown> | undefined,
  key: string,
): Record<string, unknown> | undefined {
  const inner = value?.[key];
  return typeof inner === "object" && inner !== null && !Array.isArray(inner)
    ? (inner as Record<string, unknown>)
    : undefined;
}
