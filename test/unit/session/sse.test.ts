/**
 * The SSE reader on bodies cut at awkward places: every line ending, multi-line data, comments, ids, `retry`,
 * a byte order mark, a CRLF split across chunks, and an unfinished last event (dropped, as the format says).
 */
import { describe, expect, it } from "vitest";
import { readSse, type SseEvent } from "../../../src/session/sse.js";

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
  await readSse(body(...chunks), {
    onEvent: (event) => events.push(event),
    onRetry: (ms) => retries.push(ms),
  });
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
    await expect(readSse(failing, { onEvent: () => undefined })).rejects.toThrow("terminated");
  });
});
