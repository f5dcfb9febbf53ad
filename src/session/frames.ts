/**
 * The shape of a JSON-RPC 2.0 message, as the transports that frame messages themselves check it (our Streamable
 * HTTP transport, the stdio line reader) before the session reads further.
 */

/** A JSON-RPC 2.0 request, notification or response, by shape (the session checks what it reads further). */
export function isJsonRpcMessage(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const frame = value as Record<string, unknown>;
  if (frame.jsonrpc !== "2.0") return false;
  if (typeof frame.method === "string") return true;
  const id = frame.id;
  const validId = typeof id === "string" || typeof id === "number";
  if ("result" in frame) return validId && typeof frame.result === "object" && frame.result !== null;
  if ("error" in frame)
    return (validId || id === null || id === undefined) && typeof frame.error === "object";
  return false;
}
