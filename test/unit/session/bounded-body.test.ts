/**
 * Reading bodies within the size limit: `readBoundedText` (our transport's JSON answers), and `limitResponse`,
 * which bounds bodies another parser reads (the SDK's transport on the OAuth path): all of a JSON body, or one
 * event of an SSE stream, whatever its line endings. Through the real client in
 * test/integration/transport/message-size.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { discardBody, limitResponse, readBoundedText } from "../../../src/session/bounded-body.js";
import { TransportError } from "../../../src/protocol/errors.js";
import { transportFailure } from "../../fixtures/errors.js";

/** A response whose body arrives in `chunks`, with no Content-Length (as a chunked answer has none). */
function chunked(chunks: string[], contentType = "application/json"): Response {
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next === chunks.length) controller.close();
      else controller.enqueue(encoder.encode(chunks[next++]));
    },
  });
  return new Response(body, { headers: { "content-type": contentType } });
}

describe("readBoundedText", () => {
  it("reads a body within the limit, in one chunk or many, multi-byte letters split included", async () => {
    const text = '{"a":"äöü€😀"}';
    const bytes = new TextEncoder().encode(text);
    const halves = [bytes.subarray(0, 8), bytes.subarray(8)];
    const split = new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const half of halves) controller.enqueue(half);
          controller.close();
        },
      }),
    );
    await expect(readBoundedText(split, 1024, "body")).resolves.toBe(text);
    await expect(readBoundedText(chunked([text]), 1024, "body")).resolves.toBe(text);
  });

  it("fails past the limit, and before reading anything when Content-Length says so", async () => {
    await expect(readBoundedText(chunked(["x".repeat(60), "x".repeat(60)]), 100, "body")).rejects.toSatisfy(
      transportFailure("too_large"),
    );
    const declared = new Response("x".repeat(200), { headers: { "content-length": "200" } });
    await expect(readBoundedText(declared, 100, "body")).rejects.toThrow("body is larger than 100 bytes");
  });

  it("counts an encoded body as it is decoded: its Content-Length is the bytes on the wire, not what is read", async () => {
    // As `fetch` hands it over: the body decoded, the headers as the server sent them.
    const inflated = new Response("x".repeat(200), {
      headers: { "content-encoding": "gzip", "content-length": "20" },
    });
    await expect(readBoundedText(inflated, 100, "body")).rejects.toSatisfy(transportFailure("too_large"));
    const small = new Response("x".repeat(90), {
      headers: { "content-encoding": "br", "content-length": "9000" },
    });
    await expect(readBoundedText(small, 100, "body")).resolves.toBe("x".repeat(90));
  });
});

describe("discardBody", () => {
  it("cuts a body nobody wants instead of reading it, unless its Content-Length says it is small", async () => {
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulls += 1;
          controller.enqueue(new Uint8Array(1024));
        },
      },
      { highWaterMark: 0 },
    );
    await discardBody(new Response(endless));
    expect(pulls).toBeLessThanOrEqual(1);
    const small = new Response("ok", { headers: { "content-length": "2" } });
    await discardBody(small);
    expect(small.bodyUsed).toBe(true);
  });

  it("cuts an encoded body whatever its Content-Length says: decoded, it may be any size", async () => {
    let pulls = 0;
    // 1 MiB once decoded, from 40 bytes on the wire.
    const inflated = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulls += 1;
          if (pulls > 1024) controller.close();
          else controller.enqueue(new Uint8Array(1024));
        },
      },
      { highWaterMark: 0 },
    );
    await discardBody(
      new Response(inflated, { headers: { "content-encoding": "gzip", "content-length": "40" } }),
    );
    expect(pulls).toBeLessThanOrEqual(1);
  });
});

describe("limitResponse", () => {
  async function read(response: Response): Promise<string | TransportError> {
    try {
      return await response.text();
    } catch (error) {
      if (error instanceof TransportError && error.kind === "too_large") return error;
      throw error;
    }
  }

  it("bounds an encoded body as it is decoded, whatever its Content-Length says", async () => {
    const inflated = new Response("x".repeat(200), {
      headers: { "content-encoding": "deflate", "content-length": "20" },
    });
    expect(await read(limitResponse(inflated, 100, "answer"))).toSatisfy(transportFailure("too_large"));
  });

  it("fails a JSON body once all of it passes the limit, and tells onLimit", async () => {
    const told: unknown[] = [];
    const limited = limitResponse(chunked(["x".repeat(60), "x".repeat(60)]), 100, "answer", (e) =>
      told.push(e),
    );
    expect(await read(limited)).toSatisfy(transportFailure("too_large"));
    expect(told).toHaveLength(1);
    await expect(read(limitResponse(chunked(["x".repeat(60), "x".repeat(40)]), 100, "answer"))).resolves.toBe(
      "x".repeat(100),
    );
  });

  it("bounds each SSE event, not the stream: it fails exactly when one event's bytes pass the limit", async () => {
    const line = fc
      .string({ unit: "grapheme-ascii", minLength: 1, maxLength: 30 })
      .map((text) => text.replace(/[\r\n]/g, "_"));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(line, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        fc.constantFrom("\n", "\r\n", "\r"),
        fc.integer({ min: 1, max: 80 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (events, ending, max, cuts) => {
          const text = events.map((lines) => lines.map((l) => l + ending).join("") + ending).join("");
          const largest = Math.max(...events.map((lines) => lines.join("").length));
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
          const chunks = [...points, text.length].map((point, i, all) =>
            text.slice(i === 0 ? 0 : all[i - 1], point),
          );
          const outcome = await read(limitResponse(chunked(chunks, "text/event-stream"), max, "stream"));
          if (largest > max) expect(outcome).toSatisfy(transportFailure("too_large"));
          else expect(outcome).toBe(text);
        },
      ),
      { numRuns: 200 },
    );
  });
});
