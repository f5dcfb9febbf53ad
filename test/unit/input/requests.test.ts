import { describe, expect, it } from "vitest";
import { capabilitiesFor } from "../../../src/input/capabilities.js";
import { createLimiter } from "../../../src/input/limit.js";
import { completeResponse, readInputRequest, urlHost } from "../../../src/input/requests.js";
import { deferred, elicitation, roots, sampling, settle, urlElicitation } from "./helpers.js";

describe("declared input capabilities", () => {
  it("declares only the kinds the app gave handlers for", () => {
    const noop = async () => {
      throw new Error("unused");
    };
    expect(capabilitiesFor({})).toEqual({});
    expect(capabilitiesFor(undefined)).toEqual({});
    expect(capabilitiesFor({ elicitation: noop })).toEqual({ elicitation: { form: {}, url: {} } });
    expect(capabilitiesFor({ sampling: noop, roots: noop })).toEqual({ sampling: {}, roots: {} });
  });
});

describe("URL-mode elicitation hosts", () => {
  it("shows the real host, including a port, of an http(s) URL", () => {
    expect(urlHost("https://auth.example.com/start?x=1")).toEqual({ ok: true, host: "auth.example.com" });
    expect(urlHost("http://127.0.0.1:8080/")).toEqual({ ok: true, host: "127.0.0.1:8080" });
    expect(urlHost("https://trusted.example@evil.example/")).toEqual({ ok: true, host: "evil.example" });
  });

  it("shows an international host in its ASCII form, so look-alike letters stand out", () => {
    expect(urlHost("https://pаypal.example/")).toEqual({ ok: true, host: "xn--pypal-4ve.example" });
  });

  it("rejects URLs that do not parse or are not http(s)", () => {
    expect(urlHost("not a url")).toMatchObject({ ok: false });
    expect(urlHost("/relative/path")).toMatchObject({ ok: false });
    expect(urlHost("javascript:alert(1)")).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/javascript:/),
    });
    expect(urlHost("file:///etc/passwd")).toMatchObject({ ok: false });
    expect(urlHost("data:text/html,hi")).toMatchObject({ ok: false });
  });
});

describe("reading input requests", () => {
  it("routes each known method to its handler kind", () => {
    expect(readInputRequest(elicitation("Go?"))).toMatchObject({
      ok: true,
      kind: "elicitation",
      urlHost: undefined,
    });
    expect(readInputRequest(urlElicitation("https://a.example/x"))).toMatchObject({
      ok: true,
      kind: "elicitation",
      urlHost: "a.example",
    });
    expect(readInputRequest(sampling("Hi"))).toMatchObject({ ok: true, kind: "sampling" });
    expect(readInputRequest(roots)).toMatchObject({ ok: true, kind: "roots" });
  });

  it("explains why a request cannot be answered", () => {
    expect(readInputRequest({ method: "widgets/pick" })).toMatchObject({ ok: false, method: "widgets/pick" });
    expect(readInputRequest("nonsense")).toMatchObject({ ok: false, reason: "the request has no method" });
    expect(readInputRequest({ method: "sampling/createMessage", params: { messages: [] } })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/does not fit sampling\/createMessage \(maxTokens/),
    });
    expect(readInputRequest({ method: "roots/list", params: 3 })).toMatchObject({ ok: false });
  });

  it("keeps an unknown method short in the reason, so a server cannot flood a log line", () => {
    const read = readInputRequest({ method: "x".repeat(10_000) });
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.reason.length).toBeLessThan(200);
  });
});

describe("the handler concurrency limit", () => {
  it("starts waiting work as soon as a slot frees, in order", async () => {
    const limit = createLimiter(1);
    const order: string[] = [];
    const first = deferred<void>();
    const a = limit(async () => {
      order.push("a");
      await first.promise;
    });
    const b = limit(async () => void order.push("b"));
    await settle();
    expect(order).toEqual(["a"]);
    first.resolve();
    await Promise.all([a, b]);
    expect(order).toEqual(["a", "b"]);
  });

  it("keeps going after a task fails", async () => {
    const limit = createLimiter(1);
    await expect(limit(async () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    await expect(limit(async () => 7)).resolves.toBe(7);
  });

  it("turns a handler that throws before returning its promise into a rejection, and frees its slot", async () => {
    const limit = createLimiter(1);
    const throwing = () => {
      throw new Error("sync");
    };
    await expect(limit(throwing)).rejects.toThrow("sync");
    await expect(limit(async () => 8)).resolves.toBe(8);
  });

  it("runs as many handlers at once as the limit allows, no more", async () => {
    const limit = createLimiter(2);
    const gates = [deferred<void>(), deferred<void>(), deferred<void>()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      limit(async () => {
        started.push(i);
        await gate.promise;
      }),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    gates[1]?.resolve();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.resolve();
    gates[2]?.resolve();
    await Promise.all(runs);
  });

  it("rejects a limit that is not a positive integer", () => {
    expect(() => createLimiter(0)).toThrow(RangeError);
    expect(() => createLimiter(1.5)).toThrow(RangeError);
    expect(() => createLimiter(Infinity)).not.toThrow();
  });
});

describe("SEP-1034 defaults in accepted form answers", () => {
  const form = readInputRequest({
    method: "elicitation/create",
    params: {
      message: "Profile?",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", default: "John Doe" },
          verified: { type: "boolean", default: false },
          nested: { type: "string", default: { not: "a value an answer may carry" } },
          plain: { type: "string" },
        },
      },
    },
  });

  it("fills only the fields the answer left out, with values an answer may carry, on a copy", () => {
    const answer = { action: "accept" as const, content: { name: "Ada" } };
    expect(completeResponse(form, answer)).toEqual({
      action: "accept",
      content: { name: "Ada", verified: false },
    });
    expect(answer).toEqual({ action: "accept", content: { name: "Ada" } });
    expect(completeResponse(form, { action: "accept" })).toEqual({
      action: "accept",
      content: { name: "John Doe", verified: false },
    });
  });

  it("leaves declines, cancels, URL-mode answers and other kinds alone", () => {
    expect(completeResponse(form, { action: "decline" })).toEqual({ action: "decline" });
    expect(completeResponse(form, { action: "cancel" })).toEqual({ action: "cancel" });
    const url = readInputRequest({
      method: "elicitation/create",
      params: { mode: "url", message: "Sign in", url: "https://example.com/a" },
    });
    expect(completeResponse(url, { action: "accept" })).toEqual({ action: "accept" });
    expect(completeResponse(readInputRequest({ method: "roots/list" }), { roots: [] })).toEqual({
      roots: [],
    });
  });
});
