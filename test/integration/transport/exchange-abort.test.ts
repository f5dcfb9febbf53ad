/**
 * A request given up on the client closes its HTTP exchange, on both paths (this file also runs as the
 * "fetch-path" project): a poll that timed out, a request whose caller aborted, every request out when the
 * connection closes. The session hands our transport its own abort for each request (src/session/abort-line.ts),
 * which reaches undici as the request's signal and `fetch` as a real `AbortSignal`; the server seeing the
 * request's connection close is the proof that it did.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { buildHttpTransport } from "../../../src/session/http-transport.js";
import { Session } from "../../../src/session/session.js";
import { AbortLine } from "../../../src/session/abort-line.js";

const open: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** A server that never answers: it counts the requests it got and those whose client went away. */
async function silentServer(): Promise<{ url: URL; received: () => number; dropped: () => number }> {
  let received = 0;
  let dropped = 0;
  const server = http.createServer((req, res) => {
    received++;
    req.resume();
    res.on("close", () => dropped++);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  open.push({
    async close() {
      server.closeAllConnections();
      await once(server.close(), "close");
    },
  });
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), received: () => received, dropped: () => dropped };
}

async function joined(url: URL): Promise<Session> {
  const transport = await buildHttpTransport(url);
  const session = new Session(transport, {
    clientInfo: { name: "test", version: "1.0.0" },
    capabilities: {},
  });
  await session.join({ era: "modern", protocolVersion: "2026-07-28", supportsTasks: true });
  open.push({ close: () => session.close() });
  return session;
}

describe("a request given up closes its HTTP exchange", () => {
  it("when it times out", async () => {
    const server = await silentServer();
    const session = await joined(server.url);
    const poll = session.request("tasks/get", { taskId: "t" }, { timeoutMs: 100 });
    await expect(poll).rejects.toMatchObject({ name: "TransportError", kind: "timeout" });
    await expect.poll(server.dropped, { timeout: 5000 }).toBe(1);
  });

  it("when its caller aborts, with the caller's reason", async () => {
    const server = await silentServer();
    const session = await joined(server.url);
    const controller = new AbortController();
    const poll = session.request("tasks/get", { taskId: "t" }, { signal: controller.signal });
    await expect.poll(server.received, { timeout: 5000 }).toBe(1);
    const reason = new Error("the caller gave up");
    controller.abort(reason);
    await expect(poll).rejects.toBe(reason);
    await expect.poll(server.dropped, { timeout: 5000 }).toBe(1);
  });

  it("every one still out when the connection closes", async () => {
    const server = await silentServer();
    const session = await joined(server.url);
    const polls = [1, 2, 3].map((n) =>
      session.request("tasks/get", { taskId: `t${n}` }).then(
        () => "answered",
        (error: unknown) => error,
      ),
    );
    await expect.poll(server.received, { timeout: 5000 }).toBe(3);
    await session.close();
    for (const poll of polls) expect(await poll).toMatchObject({ name: "TransportError" });
    await expect.poll(server.dropped, { timeout: 5000 }).toBe(3);
  });
});

describe("AbortLine", () => {
  it("aborts once, tells its listeners with itself as `this`, and makes a real signal only when asked", () => {
    const line = new AbortLine();
    const heard: unknown[] = [];
    const listener = function (this: AbortLine) {
      heard.push(this);
    };
    const removed = () => heard.push("removed");
    line.addEventListener("abort", listener);
    line.addEventListener("abort", removed);
    line.removeEventListener("abort", removed);
    const before = line.signal;
    const reason = new Error("stop");
    line.abort(reason);
    line.abort(new Error("again"));
    expect(heard).toEqual([line]);
    expect({ aborted: line.aborted, reason: line.reason }).toEqual({ aborted: true, reason });
    expect(before.aborted && before.reason === reason).toBe(true);
    const after = new AbortLine();
    after.abort();
    expect(after.signal.reason).toMatchObject({ name: "AbortError" });
  });
});
