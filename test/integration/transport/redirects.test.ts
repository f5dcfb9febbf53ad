/**
 * Decision 17: a redirect never carries the connection's headers or a request's body to another origin. The
 * real client, the reference server behind the fault proxy (which answers what the test scripts with a redirect),
 * and a server on another origin that records whatever reaches it. Our transport, the 2025-era GET stream, and the
 * OAuth path (the SDK's transport on our fetch chain).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient, TransportError, type TaskClientOptions } from "mcp-tasks";
import { oauth } from "mcp-tasks/oauth";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { startFaultProxy, type FaultProxy } from "../lifecycle/fault-proxy.js";
import { closesAfterEach } from "../lifecycle/helpers.js";
import { redirect, startElsewhere, tokenHolder, type Elsewhere } from "./fixtures/hostile.js";

const SECRET = "api-key-3b9f0e";
const headers = { "X-Api-Key": SECRET };

let modern: HttpTaskServer;
let legacy: HttpTaskServer;
let elsewhere: Elsewhere;
beforeAll(async () => {
  modern = await startTaskServer();
  legacy = await startTaskServer({ era: "2025-11-25" });
  elsewhere = await startElsewhere();
});
afterAll(async () => {
  await Promise.all([modern.close(), legacy.close(), elsewhere.close()]);
});

const track = closesAfterEach();

async function through(server: HttpTaskServer): Promise<FaultProxy> {
  elsewhere.received.length = 0;
  return track(await startFaultProxy(server.url));
}

async function connect(proxy: FaultProxy, options: TaskClientOptions = {}): Promise<TaskClient> {
  return track(await TaskClient.connect(proxy.url, { headers, ...options }));
}

const greet = (client: TaskClient) => client.callTool("greet", { name: "Ada" }, { timeoutMs: 5_000 });

describe.each([
  ["our transport", {}],
  ["the OAuth path", { auth: oauth(tokenHolder()) }],
] as const)("a redirect of tools/call, through %s", (_path, options) => {
  it("to another origin is not followed: the call fails, and nothing reaches that origin", async () => {
    const proxy = await through(modern);
    const client = await connect(proxy, options);
    proxy.fault("tools/call", { respond: (res) => redirect(res, 307, elsewhere.url) });
    const failure = await greet(client).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TransportError);
    expect((failure as TransportError).transient).toBe(false);
    expect((failure as Error).message).toContain("another origin");
    expect(elsewhere.received).toEqual([]);
  });

  it("within the origin is followed, with the method, body and headers kept", async () => {
    const proxy = await through(modern);
    const client = await connect(proxy, options);
    proxy.fault("tools/call", { respond: (res) => redirect(res, 308, proxy.url) }, 1);
    await expect(greet(client)).resolves.toMatchObject({ content: [{ text: "Hello, Ada!" }] });
    const calls = proxy.exchanges.filter((exchange) => exchange.method === "tools/call");
    expect(calls).toHaveLength(2);
    const served = modern.requests.forMethod("tools/call").at(-1);
    expect(served?.headers["x-api-key"]).toBe(SECRET);
  });
});

describe("our transport's redirect rules", () => {
  it("does not follow a 302 of a POST, which would resend it as a GET without its body", async () => {
    const proxy = await through(modern);
    const client = await connect(proxy);
    proxy.fault("tools/call", { respond: (res) => redirect(res, 302, proxy.url) });
    await expect(greet(client)).rejects.toThrow(/HTTP 302.*not followed/);
    expect(proxy.seen.filter((method) => method === "tools/call")).toHaveLength(1);
  });

  it("stops after 5 redirects within the origin", async () => {
    const proxy = await through(modern);
    const client = await connect(proxy);
    proxy.fault("tools/call", { respond: (res) => redirect(res, 307, proxy.url) });
    await expect(greet(client)).rejects.toThrow(/more than 5 redirects/);
    expect(proxy.seen.filter((method) => method === "tools/call")).toHaveLength(6);
  });

  it("does not follow the 2025-era GET stream to another origin, and reports it as a fault no call owns", async () => {
    const proxy = await through(legacy);
    proxy.fault("GET", { respond: (res) => redirect(res, 307, elsewhere.url) });
    // The stream opens during connect: the logger hears from the start what the `error` event also carries.
    const errors: unknown[] = [];
    const client = await connect(proxy, {
      logger: { warn: (message, error) => void errors.push(error ?? message) },
    });
    // The stream opens after the handshake, on its own; a call goes on working without it.
    await expect(greet(client)).resolves.toMatchObject({ content: [{ text: "Hello, Ada!" }] });
    await expect.poll(() => errors.length, { timeout: 3_000 }).toBeGreaterThan(0);
    expect(String(errors[0])).toContain("another origin");
    expect(elsewhere.received).toEqual([]);
  });
});
