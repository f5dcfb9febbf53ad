/**
 * `authProvider` against a strict authorization server (oidc-provider) on another origin than the MCP endpoint:
 * dynamic registration, resource indicators, PKCE, rotating refresh tokens, and every client held to the scope it
 * registered. The endpoint names only `tasks:read` in its first challenge and asks for `tasks:write` as well
 * (403 `insufficient_scope`) for `write_job`: the step-up a narrow first login leads to.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthError, TaskClient, type Logger, type TaskClientOptions } from "mcp-tasks";
import { defineTool, step, textResult } from "mcp-tasks/testing";
import { MemoryProvider } from "./memory-provider.js";
import { NARROW, WIDE, startStrictSetup, type StrictSetup } from "./strict-authorization.js";

const tools = [
  defineTool({ name: "read_job", task: "never", steps: [step.complete(textResult("read"))] }),
  defineTool({ name: "write_job", task: "never", steps: [step.complete(textResult("written"))] }),
  defineTool({
    name: "polled_job",
    task: "required",
    pollIntervalMs: 20,
    steps: [step.working("one"), step.working("two"), step.complete(textResult("polled"))],
  }),
];

let setup: StrictSetup;
const clients: TaskClient[] = [];
beforeAll(async () => {
  setup = await startStrictSetup({ tools, wideTools: ["write_job"] });
});
beforeEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  setup.reset();
});
afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await setup.close();
});

/** Connects with a fresh provider (a fresh registration) whose "user" approves every page. */
async function connect(
  options: TaskClientOptions = {},
): Promise<{ client: TaskClient; provider: MemoryProvider }> {
  const provider = new MemoryProvider();
  const client = await TaskClient.connect(setup.url, {
    authProvider: provider,
    authorizationResponse: (url) => setup.approve(url),
    notifications: "off",
    ...options,
  });
  clients.push(client);
  return { client, provider };
}

async function errorOf(promise: PromiseLike<unknown>): Promise<AuthError> {
  const failure = await Promise.resolve(promise).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(AuthError);
  return failure as AuthError;
}

describe("step-up to a scope the first challenge did not name", () => {
  it("succeeds: the client registered every scope the resource offers, and the user consents once per scope", async () => {
    const { client } = await connect();
    expect(await client.callTool("read_job")).toMatchObject({ content: [{ text: "read" }] });
    expect(await client.callTool("write_job")).toMatchObject({ content: [{ text: "written" }] });

    expect(setup.registeredScopes).toHaveLength(1);
    expect(setup.registeredScopes[0]?.split(" ")).toEqual(expect.arrayContaining([NARROW, WIDE]));
    expect(setup.consents).toBe(2); // the first login, then the step-up
    expect(setup.tokenRequests.filter((request) => request.error !== undefined)).toEqual([]);
  });

  it("refused by the authorization server, the AuthError names the OAuth error and the scope asked for", async () => {
    setup.set({ scopesSupported: null }); // nothing to register beyond the first challenge's scope
    const { client } = await connect();
    await client.callTool("read_job");
    const error = await errorOf(client.callTool("write_job"));
    expect(error).toMatchObject({
      reason: "authorization_failed",
      status: 403,
      oauthError: "invalid_scope",
      scope: `${NARROW} ${WIDE}`,
      method: "tools/call",
    });
    expect(error.message).toContain("invalid_scope");
    expect(error.message).toContain(`scope "${NARROW} ${WIDE}"`);
  });

  it("a server that still refuses after the step-up ends the call with insufficient_scope, without asking the user again", async () => {
    setup.set({ grantable: [NARROW] }); // the authorization server never puts tasks:write in a token
    const { client } = await connect();
    await client.callTool("read_job");
    const error = await errorOf(client.callTool("write_job"));
    expect(error).toMatchObject({ reason: "insufficient_scope", status: 403, scope: `${NARROW} ${WIDE}` });
    expect(setup.consents).toBe(2); // the first login and one step-up: never the same page twice
  });
});

describe("what reaches which server", () => {
  it("headers go to the MCP endpoint only, never to the authorization server on its other origin", async () => {
    const { client } = await connect({ headers: { "X-Api-Key": "key-7d1e55" } });
    expect(await client.callTool("polled_job")).toMatchObject({ content: [{ text: "polled" }] });

    const endpoint = setup.mcpRequests.filter((request) => request.path === "/mcp");
    expect(endpoint.length).toBeGreaterThan(3);
    for (const request of endpoint)
      expect(request.headers["x-api-key"], request.rpcMethod).toBe("key-7d1e55");
    const oauth = [...setup.asRequests, ...setup.mcpRequests.filter((request) => request.path !== "/mcp")];
    expect(oauth.map((request) => request.path)).toEqual(
      expect.arrayContaining(["/.well-known/oauth-protected-resource/mcp", "/reg", "/token"]),
    );
    for (const request of oauth) expect(request.headers["x-api-key"], request.path).toBeUndefined();
  });

  it("the SDK's own warnings go to the client's logger, not to the console", async () => {
    const warned: string[] = [];
    const logger: Partial<Logger> = { warn: (message) => warned.push(message) };
    const console = vi.spyOn(globalThis.console, "warn").mockImplementation(() => undefined);
    try {
      // No discoveryState(): the SDK warns that it cannot bind the code exchange to the authorization server.
      const provider = new MemoryProvider();
      const bare = Object.assign(Object.create(provider) as MemoryProvider, {
        discoveryState: undefined,
        saveDiscoveryState: undefined,
      });
      const client = await TaskClient.connect(setup.url, {
        authProvider: bare,
        authorizationResponse: (url) => setup.approve(url),
        logger,
        notifications: "off",
      });
      clients.push(client);
      expect(console.mock.calls.filter((call) => String(call[0]).startsWith("[mcp-sdk]"))).toEqual([]);
      expect(warned.some((line) => line.startsWith("OAuth (SDK): ") && line.includes("discoveryState"))).toBe(
        true,
      );
    } finally {
      console.mockRestore();
    }
  });
});
