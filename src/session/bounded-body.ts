/**
 * Reading a server's HTTP bodies within a size limit. A server decides how much it sends; without a limit one
 * endless body (or one endless SSE line) holds the client's memory and event loop. Every body the HTTP paths
 * read goes through here or through the SSE parser (./sse.ts), which bounds one event the same way.
 *
 * What is bounded is what the reader gets, counted as it arrives: `fetch` undoes a `Content-Encoding` (gzip,
 * deflate, br) on its own, and 4 KB of gzip become 4 MiB, so a `Content-Length` (the bytes on the wire) is trusted
 * only for a body nothing encoded.
 */
import { messageTooLarge, type TransportError } from "../protocol/errors.js";

/** The default of `maxMessageBytes`: the largest HTTP body, SSE event or stdio line the client takes. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Decoding without `stream` keeps no state between calls, so one decoder serves every body. */
const decoder = new TextDecoder();

/** How large a body nobody reads (a 202's) may say it is to be drained, keeping the connection; a larger one is cut. */
const DISCARD_BYTES = 64 * 1024;

/**
 * The body as text, failing with a `TransportError` of kind `too_large` (the body cancelled) past `maxBytes`. A `Content-Length`
 * of an unencoded body within the limit is trusted (fetch stops reading there); a larger one fails before
 * anything is read. An encoded body is counted as it is decoded.
 */
export function readBoundedText(response: Response, maxBytes: number, what: string): Promise<string> {
  const declared = contentLength(response);
  // Not an `async` function: the common answer (a declared length within the limit) hands back the body's own
  // promise, without the extra turns an `async` function returning a promise takes on every poll.
  if (declared !== undefined && declared <= maxBytes) return response.text();
  return readCounted(response, declared, maxBytes, what);
}

async function readCounted(
  response: Response,
  declared: number | undefined,
  maxBytes: number,
  what: string,
): Promise<string> {
  if (declared !== undefined || response.body === null) {
    if (response.body === null) return "";
    await response.body.cancel().catch(() => undefined);
    throw messageTooLarge(what, maxBytes);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw messageTooLarge(what, maxBytes);
    }
    chunks.push(value);
  }
  return decoder.decode(chunks.length === 1 ? chunks[0] : joinBytes(chunks, total));
}

/**
 * The pieces of one message, read chunk by chunk, joined into one array of `total` bytes: a body, an SSE line, a
 * stdio line. Each piece is copied once, when the message is whole, never each time another arrives.
 */
export function joinBytes(pieces: readonly Uint8Array[], total: number): Uint8Array {
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const piece of pieces) {
    joined.set(piece, offset);
    offset += piece.length;
  }
  return joined;
}

/**
 * An error response's body as text, or "" when it is larger than `maxBytes` (cut there) or fails: for finding a
 * JSON-RPC error in it, where a body too large to read is as good as none.
 */
export async function readErrorBody(response: Response, maxBytes: number): Promise<string> {
  try {
    return await readBoundedText(response, maxBytes, "");
  } catch {
    return "";
  }
}

/**
 * Lets go of a body nobody reads: drained when it says it is small and is not encoded (the connection can be used
 * again), else cut.
 */
export async function discardBody(response: Response): Promise<void> {
  const declared = contentLength(response);
  if (declared !== undefined && declared <= DISCARD_BYTES)
    await response.arrayBuffer().catch(() => undefined);
  else await response.body?.cancel().catch(() => undefined);
}

/** How many bytes the reader will get, when the server said so: never for an encoded body (see above). */
function contentLength(response: Response): number | undefined {
  if (isEncoded(response)) return undefined;
  const value = response.headers.get("content-length");
  if (value === null || !/^\d+$/.test(value)) return undefined;
  const length = Number(value);
  return Number.isSafeInteger(length) ? length : undefined;
}

/** Whether the body was sent encoded (`Content-Encoding` other than `identity`), which `fetch` decodes. */
function isEncoded(response: Response): boolean {
  const encoding = response.headers.get("content-encoding");
  return encoding !== null && !/^\s*(identity\s*)?$/i.test(encoding);
}

/**
 * A copy of `response` whose body fails with a `TransportError` of kind `too_large` once it passes `maxBytes` in all (JSON and
 * other bodies) or, for `text/event-stream`, once one event passes `maxBytes` (bytes since the last blank line).
 * For bodies another parser reads (the SDK's transport on the OAuth path, OAuth servers' answers).
 */
export function limitResponse(
  response: Response,
  maxBytes: number,
  what: string,
  /** Told the error when the limit is passed (the body's reader sees it too, as its failure). */
  onLimit?: (error: TransportError) => void,
): Response {
  const body = response.body;
  if (body === null) return response;
  const declared = contentLength(response);
  if (declared !== undefined && declared <= maxBytes) return response;
  const tooLarge = () => {
    const error = messageTooLarge(what, maxBytes);
    onLimit?.(error);
    return error;
  };
  const stream = isEventStream(response)
    ? body.pipeThrough(eventLimit(maxBytes, tooLarge))
    : body.pipeThrough(totalLimit(maxBytes, tooLarge));
  return new Response(stream, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").toLowerCase().includes("text/event-stream");
}

function totalLimit(maxBytes: number, tooLarge: () => Error): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.length;
      if (total > maxBytes) controller.error(tooLarge());
      else controller.enqueue(chunk);
    },
  });
}

/** Counts the bytes since the last blank line (an event's end: LF LF, CR CR, or CRLF CRLF). */
function eventLimit(maxBytes: number, tooLarge: () => Error): TransformStream<Uint8Array, Uint8Array> {
  let since = 0;
  /** What the last byte ended: 0 content, 10 or 13 a line (LF, CR), -13 a line (CRLF). */
  let lastBreak = 0;
  return new TransformStream({
    transform(chunk, controller) {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i] as number;
        if (byte === 10 || byte === 13) {
          // CRLF is one break: its LF neither ends nor starts anything.
          if (byte === 10 && lastBreak === 13) {
            lastBreak = -13;
            continue;
          }
          if (lastBreak !== 0) since = 0; // an empty line: the event ended
          lastBreak = byte;
        } else {
          lastBreak = 0;
          since += 1;
          if (since > maxBytes) {
            controller.error(tooLarge());
            return;
          }
        }
      }
      controller.enqueue(chunk);
    },
  });
}
