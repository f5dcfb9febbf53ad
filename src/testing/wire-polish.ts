/**
 * Undoes one SDK quirk on the way out: `@modelcontextprotocol/server` 2.4 adds `content: []` to any
 * `tools/call` result without `content`, including a flat `CreateTaskResult`. The reference server
 * promises spec-exact shapes, so an empty `content` on a `resultType: "task"` result is removed.
 */

/** The message with the SDK's `content: []` removed from a `CreateTaskResult`; anything else unchanged. */
export function polishOutgoing<T>(message: T): T {
  if (typeof message !== "object" || message === null) return message;
  const result = (message as { result?: unknown }).result;
  if (typeof result !== "object" || result === null) return message;
  const { content, ...rest } = result as Record<string, unknown>;
  if (rest["resultType"] !== "task" || !Array.isArray(content) || content.length > 0) return message;
  return { ...message, result: rest };
}
