/**
 * `connect(url, { auth: oauth(provider) })` against the reference server with `auth: { type: "oauth" }` over real HTTP:
 * discovery, dynamic registration, PKCE, the approval page walked as a browser would (`server.auth.approve`), a
 * refresh when a token expires mid-task, one refresh for many concurrent 401s, a revoked grant that ends the handle
 * (not the task), `Mcp-Param-*` mirroring on a request resent after a refresh, and a server whose authorization
 * server is not the one the provider remembers.
 *
 * Token expiry is driven by the server's clock (`skew`), not by waiting.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { auth } from "@modelcontextprotocol/client";
import { AuthError, TaskClient, type TaskClientOptions, type TaskHandle } from "mcp-tasks";
import { oauth, type OAuthOptions } from "mcp-tasks/oauth";
import {
  defineTool,
  startTaskServer,
  step,
  textResult,
  type Clock,
  type HttpTaskServer,
  type RecordedRequest,
} from "mcp-tasks/testing";
import { MemoryProvider } from "./memory-provider.js";

const LIFETIME_MS = 60_000;
let skew = 0;
/** The server's clock: real time plus `skew`, so a test can let every token expire at once. */
const clock: Clock = {
  now: () => Date.now() + skew,
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
const expireTokens = () => (skew += LIFETIME_MS + 1_000);

const steps = (n: number, text: string) => [
  ...Array.from({ length: n }, (_, i) => step.working(`step ${i + 1}`)),
  step.complete(textResult(text)),
];

const tools = [
  defineTool({ name: "polled", task: "required", pollIntervalMs: 20, steps: steps(6, "polled done") }),
  defineTool({
    name: "timed",
    task: "required",
    pollIntervalMs: 20,
    advance: { everyMs: 150 },
    steps: steps(3, "timed done"),
  }),
  defineTool({
    name: "routed",
    task: "never",
    inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } },
    steps: [step.complete((call) => textResult(`routed to ${String(call.arguments["region"])}`))],
  }),
];

let server: HttpTaskServer | undefined;
const clients: TaskClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server?.close();
  server = undefined;
  skew = 0;
});

async function start(): Promise<HttpTaskServer> {
  server = await startTaskServer({ tools, clock, auth: { type: "oauth", tokenLifetimeMs: LIFETIME_MS } });
  return server;
}

/** The client's options and `oauth()`'s, in one object. */
type ConnectOptions = Omit<TaskClientOptions, "authorizationResponse"> & OAuthOptions;

async function connect(
  running: HttpTaskServer,
  provider: MemoryProvider,
  { authorizationResponse, ...options }: ConnectOptions = {},
) {
  const client = await TaskClient.connect(running.url, {
    ...options,
    auth: oauth(provider, { authorizationResponse }),
  });
  clients.push(client);
  return client;
}

/** Approves in the "browser" whatever authorization the provider was sent to. */
const approving = (running: HttpTaskServer): OAuthOptions => ({
  authorizationResponse: (url) => running.auth!.approve(url),
});

/** What a host does after an `authorization_required`: the SDK's `auth()`, the page, the code exchanged. */
async function authorizeOutOfBand(running: HttpTaskServer, provider: MemoryProvider): Promise<void> {
  expect(await auth(provider, { serverUrl: running.url })).toBe("REDIRECT");
  const callback = await running.auth!.approve(provider.redirects.at(-1)!);
  const exchanged = await auth(provider, {
    serverUrl: running.url,
    authorizationCode: callback.searchParams.get("code")!,
    iss: callback.searchParams.get("iss") ?? undefined,
  });
  expect(exchanged).toBe("AUTHORIZED");
}

const posts = (running: HttpTaskServer, method: string): RecordedRequest[] =>
  running.requests.all().filter((request) => request.method === method);

/** Resolves once the handle has reported `count` status updates. */
function updates(handle: TaskHandle, count: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => handle.on("update", () => ++seen === count && resolve()));
}

describe("the authorization code flow", () => {
  it("runs end to end inside connect: discovery, registration, PKCE, the approval page, the code exchanged", async () => {
    const running = await start();
    const provider = new MemoryProvider();
    const client = await connect(running, provider, { ...approving(running), notifications: "off" });
    expect(await client.callTool("polled")).toMatchObject({ content: [{ text: "polled done" }] });

    const [authorization] = provider.redirects;
    expect(authorization?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorization?.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authorization?.searchParams.get("resource")).toBe(running.url);
    expect(running.auth!.clientCount).toBe(1);
    expect(running.auth!.tokenRequests).toEqual([{ grantType: "authorization_code", issued: true }]);

    const [refused, ...rest] = running.requests.all();
    expect(refused).toMatchObject({ method: "server/discover", status: 401 });
    expect(rest.length).toBeGreaterThan(2);
    for (const request of rest) {
      expect(request.status, request.method).toBe(200);
      expect(request.headers["authorization"]).toBe(`Bearer ${provider.accessToken!}`);
    }
  });

  it("without authorizationResponse fails with authorization_required; completed out of band, connect gets in", async () => {
    const running = await start();
    const provider = new MemoryProvider();
    const failure = await connect(running, provider).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({
      reason: "authorization_required",
      status: 401,
      method: "server/discover",
    });
    expect((failure as AuthError).resourceMetadataUrl ?? (failure as AuthError).challenge).toBeDefined();
    expect((failure as AuthError).challenge).toContain(running.auth!.resourceMetadataUrl!);
    expect(provider.redirects).toHaveLength(1);

    await authorizeOutOfBand(running, provider);
    const client = await connect(running, provider);
    expect(client.server.era).toBe("modern");
  });

  it("a denied authorization fails with authorization_failed", async () => {
    const running = await start();
    const failure = await connect(running, new MemoryProvider(), {
      authorizationResponse: (url) => running.auth!.approve(url, { deny: true }),
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "AuthError", reason: "authorization_failed" });
    expect(running.auth!.tokenRequests).toEqual([]);
  });

  it("an authorization response whose state does not match is refused before any code exchange", async () => {
    const running = await start();
    const failure = await connect(running, new MemoryProvider(), {
      authorizationResponse: async (url) => {
        const callback = await running.auth!.approve(url);
        callback.searchParams.set("state", "forged");
        return callback;
      },
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "AuthError", reason: "authorization_failed" });
    expect(String((failure as AuthError).cause)).toMatch(/state/);
    expect(running.auth!.tokenRequests).toEqual([]);
  });
});

describe("tokens that expire or are revoked during a task", () => {
  it("an expired access token is refreshed once and the task completes with no lost poll", async () => {
    const running = await start();
    const provider = new MemoryProvider();
    const client = await connect(running, provider, { ...approving(running), notifications: "off" });
    const handle = client.callTool("polled");
    const retries: unknown[] = [];
    handle.on("retry", (event) => retries.push(event));
    void updates(handle, 2).then(expireTokens);
    expect(await handle).toMatchObject({ content: [{ text: "polled done" }] });

    expect(retries).toEqual([]); // nothing failed that the client had to retry
    expect(running.auth!.tokenRequests.filter((r) => r.grantType === "refresh_token")).toEqual([
      { grantType: "refresh_token", issued: true },
    ]);
    expect(provider.invalidations).toBe(0);
    const polls = posts(running, "tasks/get");
    const refused = polls.filter((poll) => poll.status === 401);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const poll of refused) {
      // The same request, sent again after the refresh, and answered.
      expect(polls.some((again) => again.id === poll.id && again.status === 200)).toBe(true);
    }
  });

  it("many polls refused at once share one refresh, so rotating refresh tokens survive", async () => {
    const running = await start();
    // A slow token save (a keychain write) leaves room for every other 401 to start a refresh of its own.
    const provider = new MemoryProvider(undefined, 150);
    const client = await connect(running, provider, { ...approving(running), notifications: "off" });
    const handles = Array.from({ length: 6 }, () => client.callTool("polled"));
    await Promise.all(handles.map((handle) => updates(handle, 2)));
    expireTokens();
    const outcomes = await Promise.all(handles.map((handle) => handle.outcome()));
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(Array(6).fill("completed"));
    const refreshes = running.auth!.tokenRequests.filter((r) => r.grantType === "refresh_token");
    expect(refreshes.length).toBeGreaterThanOrEqual(1);
    expect(refreshes.every((refresh) => refresh.issued)).toBe(true);
    expect(provider.invalidations).toBe(0);
    expect(posts(running, "tasks/get").filter((poll) => poll.status === 401).length).toBeGreaterThanOrEqual(
      2,
    );
  });

  it("a revoked grant ends the handle with AuthError carrying the id; re-authorized, client.task(ref) gets the result", async () => {
    const running = await start();
    const provider = new MemoryProvider();
    await authorizeOutOfBand(running, provider);
    const client = await connect(running, provider, { notifications: "off" });
    const handle = client.callTool("timed");
    const ref = (await handle.ref)!;
    running.auth!.revokeAll();

    const outcome = await handle.outcome();
    if (outcome.kind !== "error") throw new Error(`expected an error outcome, got ${outcome.kind}`);
    const error = outcome.error as AuthError;
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ taskId: ref.taskId, reason: "authorization_required", status: 401 });
    expect(error.challenge).toMatch(/invalid_token/);

    await authorizeOutOfBand(running, provider);
    expect(await client.task(ref)).toMatchObject({ content: [{ text: "timed done" }] });
  });
});

describe("routing headers under OAuth", () => {
  it("Mcp-Param-* is on every tools/call POST, the one resent after a refresh included", async () => {
    const running = await start();
    const client = await connect(running, new MemoryProvider(), approving(running));
    await client.listTools();
    expireTokens();
    expect(await client.callTool("routed", { region: "eu-west" })).toMatchObject({
      content: [{ text: "routed to eu-west" }],
    });
    const calls = posts(running, "tools/call");
    expect(calls.map((call) => call.status)).toEqual([401, 200]);
    for (const call of calls) {
      expect(call.headers["mcp-param-region"]).toBe("eu-west");
      expect(call.headers["mcp-method"]).toBe("tools/call");
      expect(call.headers["mcp-name"]).toBe("routed");
    }
  });
});

describe("a server that moved to another authorization server (SEP-2352)", () => {
  it("a refused token makes the client discover again: it registers and authorizes at the new server only", async () => {
    const running = await start();
    // The authorization server the provider remembers for this endpoint: another reference server's.
    const former = await startTaskServer({ tools, auth: { type: "oauth" } });
    try {
      const formerIssuer = former.auth!.issuer!;
      const formerMetadata = (await (
        await fetch(`${formerIssuer}/.well-known/oauth-authorization-server`)
      ).json()) as Record<string, unknown>;
      const provider = new MemoryProvider();
      provider.saveDiscoveryState({
        authorizationServerUrl: formerIssuer,
        resourceMetadataUrl: running.auth!.resourceMetadataUrl!,
        resourceMetadata: { resource: running.url, authorization_servers: [formerIssuer] },
        authorizationServerMetadata: formerMetadata as never,
      });
      await provider.saveTokens({ access_token: "issued-by-the-former-server", token_type: "Bearer" });
      const servers = [running, former];
      const client = await connect(running, provider, {
        authorizationResponse: (url) =>
          servers.find((one) => one.auth!.issuer === url.origin)!.auth!.approve(url),
      });
      expect(await client.callTool("polled")).toMatchObject({ content: [{ text: "polled done" }] });

      expect(provider.redirects.map((url) => url.origin)).toEqual([running.auth!.issuer]);
      expect(running.auth!.clientCount).toBe(1);
      expect(former.auth!.clientCount).toBe(0);
      expect(former.auth!.tokenRequests).toEqual([]);
      expect(provider.discoveryState()?.authorizationServerUrl).toBe(running.auth!.issuer);
    } finally {
      await former.close();
    }
  });
});

describe("how OAuth is given to connect", () => {
  it("an authProvider given to connect as before is refused, naming mcp-tasks/oauth, before any request", async () => {
    const running = await start();
    const provider = new MemoryProvider();
    const given: Array<[string, () => Promise<TaskClient>]> = [
      // @ts-expect-error -- the option moved: its type says so (never), and so does the TypeError
      ["authProvider", () => TaskClient.connect(running.url, { authProvider: provider })],
      [
        "authProvider and authorizationResponse",
        () =>
          TaskClient.connect(running.url, {
            // @ts-expect-error -- moved to mcp-tasks/oauth
            authProvider: provider,
            // @ts-expect-error -- moved to mcp-tasks/oauth
            authorizationResponse: (url: URL) => running.auth!.approve(url),
          }),
      ],
      [
        "authorizationResponse",
        // @ts-expect-error -- moved to mcp-tasks/oauth
        () => TaskClient.connect(running.url, { authorizationResponse: async () => "" }),
      ],
    ];
    for (const [what, connecting] of given) {
      const failure = await connecting().catch((error: unknown) => error);
      expect(failure, what).toBeInstanceOf(TypeError);
      expect((failure as Error).message, what).toContain(
        "pass `auth: oauth(authProvider, { authorizationResponse })` of mcp-tasks/oauth",
      );
    }
    expect(running.requests.size).toBe(0);
    expect(provider.redirects).toEqual([]);
  });

  it("a provider given as `auth` itself is refused with the oauth() to wrap it in", async () => {
    const running = await start();
    // @ts-expect-error -- a provider is not a ConnectionAuth
    const failure = await TaskClient.connect(running.url, { auth: new MemoryProvider() }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error).message).toContain("`auth` must be `oauth(provider)` of mcp-tasks/oauth");
    expect(running.requests.size).toBe(0);
  });

  it("oauth() refuses what is not a provider, and an authorizationResponse that is not a function", () => {
    // @ts-expect-error -- not a provider
    expect(() => oauth({ tokens: "abc" })).toThrow(/must be an OAuthClientProvider/);
    // @ts-expect-error -- not a function
    expect(() => oauth(new MemoryProvider(), { authorizationResponse: "code" })).toThrow(
      /`authorizationResponse` must be a function/,
    );
  });

  it("a static Authorization header next to auth is refused at connect, before any request", async () => {
    const running = await start();
    await expect(
      TaskClient.connect(running.url, {
        auth: oauth(new MemoryProvider()),
        headers: { authorization: "Bearer static" },
      }),
    ).rejects.toThrow(/either an `Authorization` header or `auth`/);
    expect(running.requests.size).toBe(0);
  });

  it("auth applies to a URL target only", async () => {
    await expect(
      TaskClient.connect({ command: "true" }, { auth: oauth(new MemoryProvider()) }),
    ).rejects.toThrow(/`headers` and `auth` apply to a URL target only/);
  });

  it("an Authorization from a headers function never replaces the provider's token", async () => {
    const running = await start();
    const provider = new MemoryProvider();
    const client = await connect(running, provider, {
      ...approving(running),
      notifications: "off",
      // Refused at connect as an object; a function can only be checked per request.
      headers: () => ({ Authorization: "Bearer stale-static-token", "X-Tenant": "blue" }),
    });
    expireTokens(); // the provider refreshes: its fresh token must be the one sent
    expect(await client.callTool("polled")).toMatchObject({ content: [{ text: "polled done" }] });
    const [first, ...rest] = running.requests.all();
    expect(first).toMatchObject({ status: 401 }); // before the provider had a token, the function's went out
    expect(rest.length).toBeGreaterThan(3);
    for (const request of rest) {
      const sent = request.headers["authorization"]?.replace(/^Bearer /, "");
      expect(provider.issued, request.method).toContain(sent);
      expect(request.headers["x-tenant"]).toBe("blue");
    }
    expect(rest.at(-1)!.headers["authorization"]).toBe(`Bearer ${provider.accessToken!}`);
    expect(running.auth!.tokenRequests.filter((r) => r.grantType === "refresh_token")).toEqual([
      { grantType: "refresh_token", issued: true },
    ]);
  });
});

describe("a refresh the authorization server failed (5xx)", () => {
  it("is not handed to the next request: the next 401 asks the authorization server again", async () => {
    const running = await start();
    const provider = new MemoryProvider();
    await authorizeOutOfBand(running, provider);
    // The token endpoint is down for the first refresh (the client's requests go through the global fetch, which
    // MCP_TASKS_HTTP=fetch makes them take on Node).
    vi.stubEnv("MCP_TASKS_HTTP", "fetch");
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    let failures = 1;
    const realFetch = globalThis.fetch;
    const down = vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
      const form = init?.body instanceof URLSearchParams ? init.body : undefined;
      if (form?.get("grant_type") === "refresh_token" && failures-- > 0) {
        return Promise.resolve(new Response("upstream unavailable", { status: 503 }));
      }
      return realFetch(input, init);
    });
    onTestFinished(() => down.mockRestore());
    const client = await connect(running, provider, { notifications: "off" });
    const refreshes = () => running.auth!.tokenRequests.filter((r) => r.grantType === "refresh_token");
    expireTokens();
    // The refresh failed, so the SDK sent the provider to the authorization page: nothing completes it here.
    await expect(client.callTool("routed", { region: "eu" })).rejects.toMatchObject({
      name: "AuthError",
      reason: "authorization_required",
    });
    expect(refreshes()).toEqual([]);

    // Within the minute a refresh's answer is shared, the same refresh token reaches the server this time.
    expect(await client.callTool("routed", { region: "eu" })).toMatchObject({
      content: [{ text: "routed to eu" }],
    });
    expect(refreshes()).toEqual([{ grantType: "refresh_token", issued: true }]);
  });
});
