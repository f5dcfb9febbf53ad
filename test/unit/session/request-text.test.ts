/**
 * The Node path's request text (src/session/request-text.ts): always exactly `JSON.stringify` of the message,
 * with a shared frozen envelope's text reused.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildEnvelope, withEnvelope } from "../../../src/protocol/envelope.js";
import { RequestText } from "../../../src/session/request-text.js";
import type { OutgoingMessage } from "../../../src/session/types.js";

const envelope = buildEnvelope({ clientInfo: { name: "agent", version: "2.1.0" } });
const request = (id: string | number, method: string, params: Record<string, unknown>): OutgoingMessage => ({
  jsonrpc: "2.0",
  id,
  method,
  params: withEnvelope(params, envelope),
});

describe("a request's text on the Node path", () => {
  it("is what a 2026-07-28 poll sends, byte for byte", () => {
    expect(new RequestText().of(request("c1-7", "tasks/get", { taskId: "t-1" }))).toBe(
      '{"jsonrpc":"2.0","id":"c1-7","method":"tasks/get","params":{"taskId":"t-1","_meta":{' +
        '"io.modelcontextprotocol/protocolVersion":"2026-07-28",' +
        '"io.modelcontextprotocol/clientInfo":{"name":"agent","version":"2.1.0"},' +
        '"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}',
    );
  });

  it("is JSON.stringify's text for any params, request after request (property)", () => {
    const text = new RequestText();
    const key = fc.oneof(fc.string(), fc.constantFrom("__proto__", "1", "0", "toJSON", 'a"b', "é\u2028"));
    const value = fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.date({ noInvalidDate: true }));
    const params = fc.dictionary(key, value).filter((record) => !Object.hasOwn(record, "_meta"));
    const id = fc.oneof(fc.string(), fc.integer(), fc.constantFrom(Number.NaN, 1.5));
    fc.assert(
      fc.property(id, fc.string(), params, (requestId, method, record) => {
        const message = request(requestId, method, record);
        expect(text.of(message)).toBe(JSON.stringify(message));
      }),
      { numRuns: 500 },
    );
  });

  it("never reuses a _meta that can change: one not frozen all the way down is serialized every time", () => {
    const text = new RequestText();
    const meta = Object.freeze({ trace: { id: "a" } }); // the inner object is not frozen
    const message = {
      jsonrpc: "2.0" as const,
      id: 1,
      method: "tasks/get",
      params: { taskId: "t", _meta: meta },
    };
    expect(text.of(message)).toBe(JSON.stringify(message));
    (meta.trace as { id: string }).id = "b";
    expect(text.of(message)).toContain('"trace":{"id":"b"}');
  });

  it("serializes anything not built as the session builds a request as JSON.stringify does", () => {
    const text = new RequestText();
    const answer = { jsonrpc: "2.0" as const, id: 3, result: { ok: true } };
    const reordered = { id: 1, jsonrpc: "2.0", method: "tasks/get", params: withEnvelope({}, envelope) };
    const metaFirst = { jsonrpc: "2.0", id: 1, method: "m", params: { _meta: envelope, taskId: "t" } };
    for (const message of [answer, reordered, metaFirst] as OutgoingMessage[]) {
      expect(text.of(message)).toBe(JSON.stringify(message));
    }
  });
});
