/**
 * A reader for `text/event-stream` bodies (the WHATWG server-sent events format), small enough for the main
 * entry: lines end in CRLF, LF or CR; `data` lines join with "\n"; `id`, `event` and `retry` are kept; a blank
 * line dispatches the event. Web-standard APIs only (ReadableStream, TextDecoder), so it runs in every runtime.
 *
 * The server's bytes are bounded: each byte is scanned once (a line split over many chunks is kept as its pieces
 * and joined once, when its end arrives), and one event (its lines together, the unfinished one included) may
 * not grow past `maxEventBytes`; past it the parser throws a `TransportError` of kind `too_large` and reads nothing more.
 * Lines are cut on bytes (CR and LF never occur inside a UTF-8 sequence) and decoded whole.
 */
import { messageTooLarge } from "../protocol/errors.js";
import { joinBytes } from "./bounded-body.js";

export interface SseEvent {
  /** The `event` field; undefined means "message". */
  event: string | undefined;
  data: string;
  /** The `id` field of this event, if it had one. */
  id: string | undefined;
}

export interface SseHandlers {
  onEvent(event: SseEvent): void;
  /** A `retry` field: the server's reconnection delay in milliseconds. */
  onRetry?(ms: number): void;
}

const LF = 10;
const CR = 13;
const COLON = 58;

/** An incremental parser: `push` the body's chunks as they come; events are dispatched as they complete. */
export class SseParser {
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** The pieces of a line whose end has not arrived yet, and their length. */
  private pieces: Uint8Array[] = [];
  private pieceBytes = 0;
  /** The last chunk ended in CR: an LF at the start of the next one belongs to it. */
  private afterCr = false;
  private firstLine = true;
  private data: string[] = [];
  /** Bytes of the lines of the event being read (comments are not kept, so they do not count). */
  private eventBytes = 0;
  private event: string | undefined;
  private id: string | undefined;

  constructor(
    private readonly handlers: SseHandlers,
    private readonly maxEventBytes: number,
  ) {}

  /** Takes the next chunk of the body. Throws a `TransportError` of kind `too_large` when an event outgrows the limit. */
  push(chunk: Uint8Array): void {
    const length = chunk.length;
    let start = 0;
    if (this.afterCr && length > 0) {
      this.afterCr = false;
      if (chunk[0] === LF) start = 1;
    }
    const hasCr = chunk.indexOf(CR, start) !== -1;
    let lf = chunk.indexOf(LF, start);
    let cr = hasCr ? chunk.indexOf(CR, start) : -1;
    while (start < length) {
      if (lf !== -1 && lf < start) lf = chunk.indexOf(LF, start);
      if (cr !== -1 && cr < start) cr = chunk.indexOf(CR, start);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) {
        this.keep(chunk.slice(start));
        return;
      }
      this.line(chunk, start, end);
      start = end + 1;
      if (end === cr) {
        if (start === length) this.afterCr = true;
        else if (chunk[start] === LF) start += 1;
      }
    }
  }

  private keep(piece: Uint8Array): void {
    this.pieces.push(piece);
    this.pieceBytes += piece.length;
    this.check(this.pieceBytes);
  }

  private check(lineBytes: number): void {
    if (this.eventBytes + lineBytes > this.maxEventBytes) {
      this.pieces = [];
      this.pieceBytes = 0;
      this.data = [];
      throw messageTooLarge("an SSE event from the server", this.maxEventBytes);
    }
  }

  /** The line that ends at `chunk[end]`, with the pieces kept before it. */
  private line(chunk: Uint8Array, start: number, end: number): void {
    let bytes = chunk.subarray(start, end);
    if (this.pieces.length > 0) {
      this.pieces.push(bytes);
      bytes = joinBytes(this.pieces, this.pieceBytes + bytes.length);
      this.pieces = [];
      this.pieceBytes = 0;
    }
    if (this.firstLine) {
      this.firstLine = false;
      // A byte order mark opens the stream, not the first field.
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    }
    if (bytes.length === 0) return this.dispatch();
    if (bytes[0] === COLON) return; // a comment (keep-alive)
    this.check(bytes.length);
    this.eventBytes += bytes.length;
    this.field(this.decoder.decode(bytes));
  }

  private field(text: string): void {
    const colon = text.indexOf(":");
    const name = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") this.data.push(value);
    else if (name === "event") this.event = value;
    else if (name === "id" && !value.includes("\0")) this.id = value;
    else if (name === "retry" && /^\d+$/.test(value)) this.handlers.onRetry?.(Number(value));
  }

  private dispatch(): void {
    const { data, event, id } = this;
    this.data = [];
    this.eventBytes = 0;
    this.event = undefined;
    this.id = undefined;
    // An event with an id and no data still counts: servers prime a stream with one, to be resumable.
    if (data.length > 0 || id !== undefined) this.handlers.onEvent({ event, data: data.join("\n"), id });
  }
}

/**
 * Reads `body` to its end, calling `handlers` per event. Rejects when the stream fails (or is aborted), and with
 * a `TransportError` of kind `too_large` (the body cancelled) when one event outgrows `maxEventBytes`. An event without its
 * closing blank line at the end is dropped, as the format says.
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  handlers: SseHandlers,
  maxEventBytes: number,
): Promise<void> {
  const reader = body.getReader();
  const parser = new SseParser(handlers, maxEventBytes);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    try {
      parser.push(value);
    } catch (error) {
      reader.cancel().catch(() => undefined);
      throw error;
    }
  }
}
