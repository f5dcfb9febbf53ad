/**
 * `withSameOriginRedirects` with `fetch` stand-ins for what a real server cannot show: a `fetch` that follows
 * redirects itself whatever it is asked (some wrappers build their own request), and a browser's opaque manual
 * redirect. The behaviour on the wire is proven through the real client in
 * test/integration/transport/redirects.test.ts.
 */
import { describe, expect, it } from "vitest";
import { TransportError } from "../../../src/protocol/errors.js";
import { withSameOriginRedirects } from "../../../src/session/http-redirects.js";

const ENDPOINT = "https://mcp.example.com/mcp";

/** A response as a `fetch` that followed a redirect returns it: `redirected`, with the final URL. */
function followed(url: string): Response {
  const response = new Response('{"jsonrpc":"2.0","id":"1","result":{}}', {
    headers: { "content-type": "application/json" },
  });
  Object.defineProperty(response, "redirected", { value: true });
  Object.defineProperty(response, "url", { value: url });
  return response;
}

describe("withSameOriginRedirects", () => {
  it("asks the fetch under it for manual redirects, copying the request only when it did not ask already", async () => {
    const seen: RequestInit[] = [];
    const guarded = withSameOriginRedirects(async (_url, init) => {
      seen.push(init ?? {});
      return new Response("{}");
    });
    const manual: RequestInit = { method: "POST", redirect: "manual" };
    await guarded(ENDPOINT, manual);
    await guarded(ENDPOINT, { method: "GET" });
    expect(seen[0]).toBe(manual);
    expect(seen[1]).toMatchObject({ method: "GET", redirect: "manual" });
  });

  it("refuses the answer of a fetch that followed a redirect to another origin itself", async () => {
    const guarded = withSameOriginRedirects(async () => followed("https://elsewhere.example/collect"));
    const failure = await guarded(ENDPOINT, { method: "POST" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransportError);
    expect((failure as Error).message).toContain("https://elsewhere.example");
    expect((failure as Error).message).toContain('ignored redirect: "manual"');
  });

  it("keeps the answer of a fetch that followed a redirect within the origin", async () => {
    const guarded = withSameOriginRedirects(async () => followed("https://mcp.example.com/mcp/"));
    const response = await guarded(ENDPOINT, { method: "POST" });
    expect(response.status).toBe(200);
  });

  it("refuses a browser's opaque redirect, whose target it cannot see", async () => {
    const opaque = new Response(null, { status: 200 });
    Object.defineProperty(opaque, "type", { value: "opaqueredirect" });
    Object.defineProperty(opaque, "status", { value: 0 });
    const guarded = withSameOriginRedirects(async () => opaque);
    await expect(guarded(ENDPOINT, { method: "POST" })).rejects.toThrow(/hides where to/);
  });

  it("passes a redirect without a usable Location on to the caller as it is", async () => {
    const guarded = withSameOriginRedirects(async () => new Response(null, { status: 307 }));
    const response = await guarded(ENDPOINT, { method: "POST" });
    expect(response.status).toBe(307);
  });
});
