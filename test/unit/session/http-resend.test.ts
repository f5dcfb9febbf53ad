/**
 * Which failures count as a connection that died under the request, and which requests get the one resend.
 * The errors are shaped as undici (Node's `fetch`) throws them: a TypeError "fetch failed" with the socket's error
 * in `cause`. The end-to-end behaviour is in test/integration/transport/dead-connection.test.ts.
 */
import { describe, expect, it, vi } from "vitest";
import { isDeadConnection, withDeadConnectionResend } from "../../../src/session/http-resend.js";

function fetchFailed(cause: unknown): TypeError {
  return new TypeError("fetch failed", { cause });
}

function codeError(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

const post = (method: string): RequestInit => ({
  method: "POST",
  body: JSON.stringify({ jsonrpc: "2.0", id: "c-1", method, params: {} }),
});

describe("isDeadConnection", () => {
  it.each(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"])("is true for a fetch failure caused by %s", (code) => {
    expect(isDeadConnection(fetchFailed(codeError(code)))).toBe(true);
  });

  it.each([
    ["a refused connection (nothing was sent)", fetchFailed(codeError("ECONNREFUSED"))],
    ["a DNS failure", fetchFailed(codeError("ENOTFOUND"))],
    ["a connect timeout", fetchFailed(codeError("UND_ERR_CONNECT_TIMEOUT"))],
    ["a failure without a cause (browsers)", new TypeError("Failed to fetch")],
    ["an abort", new DOMException("aborted", "AbortError")],
    ["a thrown string", "ECONNRESET"],
  ])("is false for %s", (_label, error) => {
    expect(isDeadConnection(error)).toBe(false);
  });
});

describe("withDeadConnectionResend", () => {
  const reset = () => Promise.reject(fetchFailed(codeError("ECONNRESET")));

  it.each(["server/discover", "initialize", "notifications/initialized", "tools/list"])(
    "sends %s once more after a dead connection",
    async (method) => {
      const ok = new Response("{}");
      const fetchImpl = vi.fn().mockImplementationOnce(reset).mockResolvedValueOnce(ok);
      await expect(withDeadConnectionResend(fetchImpl)("http://x/mcp", post(method))).resolves.toBe(ok);
      expect(fetchImpl).toHaveBeenCalledTimes(2);
    },
  );

  it.each(["tools/call", "tasks/get", "tasks/cancel", "tasks/update", "subscriptions/listen"])(
    "never resends %s",
    async (method) => {
      const fetchImpl = vi.fn().mockImplementation(reset);
      await expect(withDeadConnectionResend(fetchImpl)("http://x/mcp", post(method))).rejects.toThrow(
        "fetch failed",
      );
      expect(fetchImpl).toHaveBeenCalledTimes(1);
    },
  );

  it("resends once only: a second dead connection is the caller's failure", async () => {
    const fetchImpl = vi.fn().mockImplementation(reset);
    await expect(withDeadConnectionResend(fetchImpl)("http://x/mcp", post("tools/list"))).rejects.toThrow(
      "fetch failed",
    );
    expect(fetchImpl).toHaveBeenCalledTimes(2);
  });

  it.each([
    ["a GET", { method: "GET" }],
    ["a fetch without a method (a GET)", {}],
  ])("sends %s once more after a dead connection", async (_label, init: RequestInit) => {
    const ok = new Response("{}");
    const fetchImpl = vi.fn().mockImplementationOnce(reset).mockResolvedValueOnce(ok);
    await expect(withDeadConnectionResend(fetchImpl)("http://x/.well-known/x", init)).resolves.toBe(ok);
    expect(fetchImpl).toHaveBeenCalledTimes(2);
  });

  it("does not resend another POST, a request whose signal was aborted, or after another kind of failure", async () => {
    const aborted = new AbortController();
    aborted.abort();
    const cases: Array<[RequestInit, () => Promise<never>]> = [
      [{ method: "POST", body: new URLSearchParams({ grant_type: "authorization_code" }) }, reset],
      [{ method: "POST", body: "not json" }, reset],
      [{ method: "DELETE" }, reset],
      [{ ...post("tools/list"), signal: aborted.signal }, reset],
      [post("tools/list"), () => Promise.reject(fetchFailed(codeError("ECONNREFUSED")))],
    ];
    for (const [init, failure] of cases) {
      const fetchImpl = vi.fn().mockImplementation(failure);
      await expect(withDeadConnectionResend(fetchImpl)("http://x/mcp", init)).rejects.toThrow();
      expect(fetchImpl).toHaveBeenCalledTimes(1);
    }
  });
});
