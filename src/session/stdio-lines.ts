/**
 * The line framing of a stdio server's output (one JSON-RPC message per line), in place of the SDK's `ReadBuffer`,
 * whose every chunk copies the whole unfinished line and searches it again from its start: a 16 MiB line took
 * seconds and held the event loop for more than one at a time. Here each byte is searched once (a line split
 * over many chunks is kept as its pieces and joined once), and a line may not grow past `maxLineBytes`.
 *
 * It has the SDK reader's three methods, so the SDK's stdio transport can use it (./stdio-node.ts): `append`
 * throws a `TransportError` of kind `too_large` past the limit (the transport then reports it and closes the connection);
 * `readMessage` returns the next message or null, skips lines that are not JSON (a server's stray log output, as
 * the SDK does) and throws `ProtocolError` for JSON that is not a JSON-RPC message (reported, and reading goes on).
 */
import { ProtocolError, messageTooLarge } from "../protocol/errors.js";
import { joinBytes } from "./bounded-body.js";
import { isJsonRpcMessage } from "./frames.js";

const LF = 10;
const CR = 13;

export class StdioLineReader {
  private readonly decoder = new TextDecoder();
  private pieces: Uint8Array[] = [];
  private pieceBytes = 0;
  /** Complete lines not read yet, from `next` on. */
  private lines: string[] = [];
  private next = 0;

  constructor(private readonly maxLineBytes: number) {}

  append(chunk: Uint8Array): void {
    let start = 0;
    for (let end = chunk.indexOf(LF); end !== -1; end = chunk.indexOf(LF, start)) {
      this.take(chunk.subarray(start, end));
      start = end + 1;
    }
    if (start === chunk.length) return;
    const rest = chunk.subarray(start);
    this.pieceBytes += rest.length;
    if (this.pieceBytes > this.maxLineBytes) this.overflow();
    this.pieces.push(rest);
  }

  readMessage(): Record<string, unknown> | null {
    while (this.next < this.lines.length) {
      const line = this.lines[this.next] as string;
      this.next += 1;
      if (this.next === this.lines.length) {
        this.lines = [];
        this.next = 0;
      }
      let frame: unknown;
      try {
        frame = JSON.parse(line);
      } catch {
        continue;
      }
      if (isJsonRpcMessage(frame)) return frame;
      throw new ProtocolError("received a line that is not a JSON-RPC message", "(stdio)", frame);
    }
    return null;
  }

  clear(): void {
    this.pieces = [];
    this.pieceBytes = 0;
    this.lines = [];
    this.next = 0;
  }

  /** A line whose end is in this chunk, with the pieces of it kept before. */
  private take(tail: Uint8Array): void {
    let bytes = tail;
    if (this.pieces.length > 0) {
      const length = this.pieceBytes + tail.length;
      if (length > this.maxLineBytes) this.overflow();
      this.pieces.push(tail);
      bytes = joinBytes(this.pieces, length);
      this.pieces = [];
      this.pieceBytes = 0;
    } else if (tail.length > this.maxLineBytes) {
      this.overflow();
    }
    const end = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
    this.lines.push(this.decoder.decode(bytes.subarray(0, end)));
  }

  private overflow(): never {
    this.clear();
    throw messageTooLarge("a line of the stdio server's output", this.maxLineBytes);
  }
}
