/**
 * The shape of a JSON-RPC 2.0 message, as the transports that frame messages themselves check it (our Streamable
 * HTTP transport, the stdio line reader) before the session reads further; and the text of one this library
 * sends, which the session may have made already.
 */
import type { OutgoingMessage } from "./types.js";

/**
 * Where the session leaves a message's JSON text when it made it cheaper than `JSON.stringify` would
 * (src/protocol/envelope.ts, `framedRequestText`). A symbol: `JSON.stringify`, and so every other transport, skips it.
 */
export const MESSAGE_TEXT: unique symbol = Symbol("mcp-tasks.messageText");

/** The message as JSON text: the session's, when it left one, else serialized now. */
export function messageText(message: OutgoingMessage): string {
  return (message as { [MESSAGE_TEXT]?: string })[MESSAGE_TEXT] ?? JSON.stringify(message);
}

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
