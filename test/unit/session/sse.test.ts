/**
 * The SSE reader on bodies cut at awkward places: every line ending, multi-line data, comments, ids, `retry`,
 * a byte order mark, a CRLF split across chunks, and an unfinished last event (dropped, as the format says); the
 * size limit on one event; and, as a property, the same events however the bytes are cut into chunks.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { readSse, SseParser, type SseEvent } from "../../../src/session/sse.js";
import { transportFailure } from "../../fixtures/errors.js";

const MiB = 1024 * 1024;

function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function read(...chunks: string[]): Promise<{ events: SseEvent[]; retries: number[] }> {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  await readSse(
    body(...chunks),
    { onEvent: (event) => events.push(event), onRetry: (ms) => retries.push(ms) },
    MiB,
  );
  return { events, retries };
}

describe("readSse", () => {
  it("reads events separated by LF, CRLF and CR, joining data lines with a newline", async () => {
    const { events } = await read(
      'data: {"a":1}\n\nid: 7\r\ndata: x\r\ndata: y\r\n\r\nevent: ping\rdata: z\r\r',
    );
    expect(events).toEqual([
      { event: undefined, data: '{"a":1}', id: undefined },
      { event: undefined, data: "x\ny", id: "7" },
      { event: "ping", data: "z", id: undefined },
    ]);
  });

  it("joins a line split across chunks, also a CRLF split between its CR and its LF", async () => {
    const { events } = await read("da", "ta: hel", "lo\r", "\n\r", "\ndata: two\n", "\n");
    expect(events.map((event) => event.data)).toEqual(["hello", "two"]);
    // One line ending, not a line ending and a blank line: both data lines belong to one event.
    const split = await read("data: a\r", "\ndata: b\n\n");
    expect(split.events.map((event) => event.data)).toEqual(["a\nb"]);
  });

  it("skips comments and empty events, delivers an id-only (priming) event, reads retry, strips a byte order mark", async () => {
    const { events, retries } = await read(
      "\uFEFF: keep-alive\n\nretry: 1500\nretry: soon\n\nid: 3\n\ndata:no-space\n\n",
    );
    expect(events).toEqual([
      { event: undefined, data: "", id: "3" },
      { event: undefined, data: "no-space", id: undefined },
    ]);
    expect(retries).toEqual([1500]);
  });

  it("drops an event whose blank line never came", async () => {
    const { events } = await read("data: whole\n\ndata: cut off");
    expect(events.map((event) => event.data)).toEqual(["whole"]);
  });

  it("rejects when the stream fails", async () => {
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new TypeError("terminated"));
      },
    });
    await expect(readSse(failing, { onEvent: () => undefined }, MiB)).rejects.toThrow("terminated");
  });
});

describe("readSse bounds what one event may hold", () => {
  /** A body that sends `chunk` up to `times` times and counts how many it was asked for. */
  function endless(
    chunk: string,
    times: number,
  ): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
    const bytes = new TextEncoder().encode(chunk);
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulls += 1;
          if (pulls > times) controller.close();
          else controller.enqueue(bytes);
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, pulled: () => pulls };
  }

  it("fails a line that never ends with a too_large TransportError once it passes the limit, and reads no further", async () => {
    const { stream, pulled } = endless("x".repeat(1024), 10_000);
    const failure = await readSse(stream, { onEvent: () => undefined }, 16 * 1024).catch((error) => error);
    expect(failure).toSatisfy(transportFailure("too_large"));
    expect(failure).toMatchObject({ limitBytes: 16 * 1024, transient: false });
    // 16 KiB allowed in 1 KiB chunks: the 17th chunk goes over; nothing is asked for after it.
    expect(pulled()).toBe(17);
  });

  it("counts an event's lines together, and starts again after each event", async () => {
    const line = `data: ${"y".repeat(94)}\n`; // 101 bytes with its line break
    const ten = line.repeat(10); // 1010 bytes of lines in one event
    const within: SseEvent[] = [];
    await readSse(body(`${ten}\n${ten}\n`), { onEvent: (event) => within.push(event) }, 1010);
    expect(within).toHaveLength(2);
    const over = readSse(body(`${ten}${line}\n`), { onEvent: () => undefined }, 1010);
    await expect(over).rejects.toSatisfy(transportFailure("too_large"));
  });

  it("does not count keep-alive comments, which it does not keep", async () => {
    const events: SseEvent[] = [];
    const comments = ": keep-alive\n".repeat(1000);
    await readSse(body(`${comments}data: after\n\n`), { onEvent: (event) => events.push(event) }, 100);
    expect(events.map((event) => event.data)).toEqual(["after"]);
  });
});

describe("SseParser, property", () => {
  interface Model {
    event: string | undefined;
    id: string | undefined;
    data: string[];
    comment: string | undefined;
    ending: "\n" | "\r\n" | "\r";
  }
  /** Field values: any text without line breaks (ids also without NUL), including non-ASCII and astral letters. */
  const value = fc.string({ unit: "grapheme", maxLength: 12 }).map((text) => text.replace(/[\r\n]/g, ""));
  const model: fc.Arbitrary<Model> = fc.record({
    event: fc.option(value, { nil: undefined }),
    id: fc.option(
      value.map((text) => text.replace(/\0/g, "")),
      { nil: undefined },
    ),
    data: fc.array(value, { minLength: 1, maxLength: 3 }),
    comment: fc.option(value, { nil: undefined }),
    ending: fc.constantFrom("\n" as const, "\r\n" as const, "\r" as const),
  });

  function serialize(events: Model[], bom: boolean): Uint8Array {
    let text = bom ? "\uFEFF" : "";
    for (const e of events) {
      const lines: string[] = [];
      if (e.comment !== undefined) lines.push(`:${e.comment}`);
      if (e.event !== undefined) lines.push(`event: ${e.event}`);
      if (e.id !== undefined) lines.push(`id: ${e.id}`);
      for (const data of e.data) lines.push(`data: ${data}`);
      text += lines.map((line) => line + e.ending).join("") + e.ending;
    }
    return new TextEncoder().encode(text);
  }

  function parse(bytes: Uint8Array, cuts: number[]): SseEvent[] {
    const events: SseEvent[] = [];
    const parser = new SseParser({ onEvent: (event) => events.push(event) }, MiB);
    const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
    let from = 0;
    for (const point of [...points, bytes.length]) {
      parser.push(bytes.subarray(from, point));
      from = point;
    }
    return events;
  }

  it("gives the same events however the bytes are cut into chunks (also inside a UTF-8 letter or a CRLF)", () => {
    fc.assert(
      fc.property(
        fc.array(model, { maxLength: 6 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 24 }),
        (events, bom, cuts) => {
          const bytes = serialize(events, bom);
          const expected = events.map((e) => ({ event: e.event, data: e.data.join("\n"), id: e.id }));
          expect(parse(bytes, [])).toEqual(expected);
          expect(parse(bytes, cuts)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
