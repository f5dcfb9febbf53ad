/**
 * The stdio line reader: lines cut at any chunk boundary (a CRLF and a UTF-8 letter included) come out whole, a
 * server's stray non-JSON output is skipped, JSON that is not JSON-RPC is refused, and a line may not outgrow the
 * limit. Through the real client (a stdio server whose line never ends) in
 * test/integration/transport/message-size.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProtocolError } from "../../../src/protocol/errors.js";
import { StdioLineReader } from "../../../src/session/stdio-lines.js";

const encode = (text: string) => new TextEncoder().encode(text);

/** Feeds `bytes` cut at `cuts`, and reads every message after each chunk, as the SDK's transport does. */
function readAll(reader: StdioLineReader, bytes: Uint8Array, cuts: number[] = []): unknown[] {
  const read: unknown[] = [];
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const point of [...points, bytes.length]) {
    reader.append(bytes.subarray(from, point));
    from = point;
    for (let message = reader.readMessage(); message !== null; message = reader.readMessage())
      read.push(message);
  }
  return read;
}

describe("StdioLineReader", () => {
  it("reads one message per line, LF or CRLF, skipping output that is not JSON", () => {
    const text = 'starting up...\n{"jsonrpc":"2.0","id":1,"result":{}}\r\n{"jsonrpc":"2.0","method":"m"}\n';
    expect(readAll(new StdioLineReader(1024), encode(text))).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", method: "m" },
    ]);
  });

  it("refuses JSON that is not a JSON-RPC message with a ProtocolError, and reads on", () => {
    const reader = new StdioLineReader(1024);
    reader.append(encode('{"hello":1}\n{"jsonrpc":"2.0","method":"m"}\n'));
    expect(() => reader.readMessage()).toThrow(ProtocolError);
    expect(reader.readMessage()).toEqual({ jsonrpc: "2.0", method: "m" });
    expect(reader.readMessage()).toBeNull();
  });

  it("fails a line that outgrows the limit, split over chunks or in one", () => {
    const split = new StdioLineReader(100);
    split.append(encode("x".repeat(60)));
    expect(() => split.append(encode("x".repeat(60)))).toThrow(/\(maxMessageBytes\)/);
    const whole = new StdioLineReader(100);
    expect(() => whole.append(encode(`${"x".repeat(101)}\n`))).toThrow(/\(maxMessageBytes\)/);
    const fits = new StdioLineReader(100);
    fits.append(encode(`{"jsonrpc":"2.0","method":"${"y".repeat(70)}"}\n`));
    expect(fits.readMessage()).toMatchObject({ method: "y".repeat(70) });
  });

  it("gives the same messages however the output is cut into chunks", () => {
    const message = fc.record({
      jsonrpc: fc.constant("2.0"),
      method: fc.string({ unit: "grapheme", maxLength: 10 }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(message, fc.constantFrom("\n", "\r\n")), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (lines, cuts) => {
          const bytes = encode(lines.map(([m, end]) => JSON.stringify(m) + end).join(""));
          expect(readAll(new StdioLineReader(1 << 20), bytes, cuts)).toEqual(lines.map(([m]) => m));
        },
      ),
      { numRuns: 200 },
    );
  });
});
