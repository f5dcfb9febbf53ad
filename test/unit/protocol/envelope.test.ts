import { describe, expect, it } from "vitest";
import { buildEnvelope, withEnvelope, withExtraMeta } from "../../../src/protocol/envelope.js";

const clientInfo = { name: "agent", version: "2.1.0" };

describe("the request envelope", () => {
  it("names the 2026-07-28 revision, the client, and the tasks extension", () => {
    const envelope = buildEnvelope({ clientInfo });
    expect(envelope).toEqual({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": clientInfo,
      "io.modelcontextprotocol/clientCapabilities": {
        extensions: { "io.modelcontextprotocol/tasks": {} },
      },
    });
  });

  it("declares the host's own capabilities next to the tasks extension, and only those", () => {
    const envelope = buildEnvelope({
      clientInfo,
      capabilities: { elicitation: { form: {} }, extensions: { "example.com/other": { level: 2 } } },
    });
    expect(envelope["io.modelcontextprotocol/clientCapabilities"]).toEqual({
      elicitation: { form: {} },
      extensions: { "example.com/other": { level: 2 }, "io.modelcontextprotocol/tasks": {} },
    });
    expect(envelope["io.modelcontextprotocol/clientCapabilities"]).not.toHaveProperty("sampling");
    expect(envelope["io.modelcontextprotocol/clientCapabilities"]).not.toHaveProperty("roots");
  });

  it("cannot be edited by one request, and leaves the caller's objects editable", () => {
    const capabilities = { elicitation: { form: {} } };
    const envelope = buildEnvelope({ clientInfo, capabilities });
    expect(Object.isFrozen(envelope["io.modelcontextprotocol/clientCapabilities"].elicitation)).toBe(true);
    expect(Object.isFrozen(capabilities.elicitation)).toBe(false);
  });

  it("is added to params without touching the caller's object", () => {
    const envelope = buildEnvelope({ clientInfo });
    const params = { name: "report", arguments: { year: 2026 } };
    const framed = withEnvelope(params, envelope);
    expect(framed).toEqual({ ...params, _meta: envelope });
    expect(params).not.toHaveProperty("_meta");
  });

  it("copies a parameter named __proto__ (as JSON.parse makes it) as plain data, leaving the prototype alone", () => {
    const envelope = buildEnvelope({ clientInfo });
    const params = JSON.parse('{"__proto__": {"polluted": true}, "name": "x"}') as Record<string, unknown>;
    const framed = withEnvelope(params, envelope);
    expect(Object.getPrototypeOf(framed)).toBe(Object.prototype);
    expect((framed as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(framed))).toEqual(
      JSON.parse(JSON.stringify({ ...params, _meta: envelope })),
    );
    expect(Object.keys(framed)).toEqual(["__proto__", "name", "_meta"]);
  });

  it("keeps the caller's own _meta keys beside the envelope's, which win over the caller's", () => {
    const envelope = buildEnvelope({ clientInfo });
    const narrowed = { extensions: {} };
    const framed = withEnvelope(
      {
        taskId: "t-1",
        _meta: {
          "io.modelcontextprotocol/relatedTaskIds": ["t-0"],
          "io.modelcontextprotocol/clientCapabilities": narrowed,
        },
      },
      envelope,
    );
    expect(framed._meta).toEqual({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": clientInfo,
      "io.modelcontextprotocol/clientCapabilities": envelope["io.modelcontextprotocol/clientCapabilities"],
      "io.modelcontextprotocol/relatedTaskIds": ["t-0"],
    });
  });
});

describe("extra _meta entries (trace context)", () => {
  const envelope = buildEnvelope({ clientInfo });

  it("go under the caller's entries and the envelope's: neither is ever overwritten", () => {
    const params = { taskId: "t-1", _meta: { traceparent: "caller's", other: 1 } };
    const framed = withExtraMeta(params, envelope, {
      traceparent: "ours",
      baggage: "k=v",
      "io.modelcontextprotocol/protocolVersion": "1999-01-01",
    });
    expect(framed).toEqual({
      taskId: "t-1",
      _meta: { traceparent: "caller's", other: 1, baggage: "k=v", ...envelope },
    });
    expect(params._meta).toEqual({ traceparent: "caller's", other: 1 }); // the caller's object is untouched
  });

  it("go under the envelope when the caller gave none; every such request shares one frozen _meta", () => {
    const trace = { traceparent: "ours", "io.modelcontextprotocol/protocolVersion": "1999-01-01" };
    const first = withExtraMeta({ taskId: "t-1" }, envelope, trace);
    const second = withExtraMeta({ taskId: "t-1", extra: 2 }, envelope, trace);
    expect(first).toEqual({ taskId: "t-1", _meta: { traceparent: "ours", ...envelope } });
    expect(second._meta).toBe(first._meta);
    expect(Object.isFrozen(first._meta)).toBe(true);
    // Another envelope (another session) gets its own.
    const other = buildEnvelope({ clientInfo: { name: "other", version: "2" } });
    expect(withExtraMeta({ taskId: "t-1" }, other, trace)._meta).toEqual({ traceparent: "ours", ...other });
  });

  it("keep a caller's __proto__ entry as an own entry without touching any prototype", () => {
    const callerMeta = JSON.parse('{"__proto__": {"polluted": true}, "mine": 1}') as Record<string, unknown>;
    const framed = withExtraMeta({ taskId: "t-1", _meta: callerMeta }, envelope, { traceparent: "ours" });
    const meta = framed._meta as Record<string, unknown>;
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(meta, "__proto__")?.value).toEqual({ polluted: true });
    expect(meta.mine).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("are the whole _meta on the legacy era (no envelope) when the caller gave none", () => {
    expect(withExtraMeta({ taskId: "t-1" }, undefined, { traceparent: "ours" })).toEqual({
      taskId: "t-1",
      _meta: { traceparent: "ours" },
    });
  });
});
