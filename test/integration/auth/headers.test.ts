/**
 * `connect(url, { headers })` against the reference server with `auth: { type: "bearer" }`, over real HTTP: the
 * headers reach every request the connection makes (the server's request log is the witness), a function is asked
 * once per request, and a refusal is an `AuthError` carrying what the server said.
 */
import { afterEach, describe, expect, it } from "vitest";
import { AuthError, TaskClient, TransportError, type TaskClientOptions } from "mcp-tasks";
import {
  defineTool,
  elicitForm,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
  type HttpTaskServerOptions,
} from "mcp-tasks/testing";

const TOKEN = "hdr-token-5f1c9a";

const tools = [
  defineTool({
    name: "poll_job",
    task: "required",
    pollIntervalMs: 20,
    // Moves one step per poll, so its three working steps take three polls however loaded the machine is.
    advance: "poll",
    steps: [
      step.working("one"),
      step.working("two"),
      step.working("three"),
      step.complete(textResult("polled")),
    ],
  }),
  defineTool({
    name: "ask_job",
    task: "required",
    pollIntervalMs: 20,
    advance: { everyMs: 20 },
    steps: [
      step.input({ ok: elicitForm("Go?", { ok: { type: "boolean" } }, ["ok"]) }),
      step.complete(textResult("asked")),
    ],
  }),
  defineTool({
    name: "long_job",
    task: "required",
    pollIntervalMs: 20,
    advance: { everyMs: 600_000 },
    steps: [step.complete(textResult("never"))],
  }),
];

let server: HttpTaskServer | undefined;
let client: TaskClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function start(options: HttpTaskServerOptions = {}): Promise<HttpTaskServer> {
  server = await startTaskServer({ tools, auth: { type: "bearer", token: TOKEN }, ...options });
  return server;
}

/** Every request kind: tools/list, tools/call, polls, tasks/update, tasks/cancel, and (modern) listen streams. */
async function exercise(options: TaskClientOptions, era: "modern" | "legacy"): Promise<void> {
  const running = server as HttpTaskServer;
  client = await TaskClient.connect(running.url, {
    ...options,
    inputHandlers: { elicitation: () => Promise.resolve({ action: "accept", content: { ok: true } }) },
  });
  await client.listTools();
  expect(await client.callTool("poll_job")).toMatchObject({ content: [{ text: "polled" }] });
  if (era === "modern")
    expect(await client.callTool("ask_job")).toMatchObject({ content: [{ text: "asked" }] });
  const long = client.callTool("long_job");
  const ref = await long.ref;
  await client.cancel(ref!.taskId);
  long.detach();
  await long.outcome();
}

describe("static headers", () => {
  it("reach every request of a 2026-07-28 connection, listen streams and polls included", async () => {
    const running = await start();
    await exercise({ headers: { Authorization: `Bearer ${TOKEN}`, "X-Tenant": "blue" } }, "modern");
    const requests = running.requests.all();
    const methods = new Set(requests.map((request) => request.method));
    for (const method of [
      "server/discover",
      "tools/list",
      "tools/call",
      "tasks/get",
      "tasks/update",
      "tasks/cancel",
    ]) {
      expect(methods, method).toContain(method);
    }
    expect(methods).toContain("subscriptions/listen");
    for (const request of requests) {
      expect(request.headers["authorization"], `${request.method}`).toBe(`Bearer ${TOKEN}`);
      expect(request.headers["x-tenant"]).toBe("blue");
      expect(request.status).not.toBe(401);
    }
  });

  it("reach every request of a 2025-11-25 connection, the GET stream included", async () => {
    const running = await start({ era: "2025-11-25" });
    await exercise({ headers: { Authorization: `Bearer ${TOKEN}` } }, "legacy");
    const requests = running.requests.all();
    expect(requests.some((request) => request.httpMethod === "GET")).toBe(true);
    expect(requests.some((request) => request.method === "tasks/get")).toBe(true);
    for (const request of requests) {
      expect(request.headers["authorization"], `${request.httpMethod} ${request.method}`).toBe(
        `Bearer ${TOKEN}`,
      );
    }
  });
});

describe("headers in every HeadersInit form", () => {
  /** Connects with `headers`, makes a call that polls, and returns every request the server logged. */
  async function callWith(headers: TaskClientOptions["headers"]) {
    const running = await start();
    client = await TaskClient.connect(running.url, { headers });
    expect(await client.callTool("poll_job")).toMatchObject({ content: [{ text: "polled" }] });
    return running.requests.all();
  }

  it.each([
    ["a Headers", () => new Headers({ Authorization: `Bearer ${TOKEN}`, "X-Tenant": "blue" })],
    [
      "an array of [name, value] pairs",
      () => [
        ["Authorization", `Bearer ${TOKEN}`],
        ["X-Tenant", "blue"],
      ],
    ],
    [
      "a function that returns a Headers",
      () => () =>
        Promise.resolve(
          new Headers([
            ["authorization", `Bearer ${TOKEN}`],
            ["x-tenant", "blue"],
          ]),
        ),
    ],
  ])("given as %s, reach every request", async (_form, make) => {
    const requests = await callWith(make() as TaskClientOptions["headers"]);
    expect(requests.some((request) => request.method === "tasks/get")).toBe(true);
    for (const request of requests) {
      expect(request.headers["authorization"], request.method).toBe(`Bearer ${TOKEN}`);
      expect(request.headers["x-tenant"]).toBe("blue");
      expect(request.status).not.toBe(401);
    }
  });

  it("refuses any other object (a Map) with a TypeError instead of sending no headers", async () => {
    const running = await start();
    const headers = new Map([["Authorization", `Bearer ${TOKEN}`]]) as unknown as HeadersInit;
    await expect(TaskClient.connect(running.url, { headers })).rejects.toThrow(TypeError);
    expect(running.requests.size).toBe(0);
  });

  it("refuses a bad pair by its name, never its value", async () => {
    const running = await start();
    const failure = await TaskClient.connect(running.url, {
      headers: [["X-Key", "s3cr3t\r\nInjected: yes"]],
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error).message).toContain("X-Key");
    expect((failure as Error).message).not.toContain("s3cr3t");
    expect(running.requests.size).toBe(0);
  });
});

describe("a headers function", () => {
  it("is called for every HTTP request, and each request carries what that call returned", async () => {
    const running = await start();
    let calls = 0;
    await exercise(
      { headers: () => Promise.resolve({ Authorization: `Bearer ${TOKEN}`, "X-Call": String(++calls) }) },
      "modern",
    );
    const requests = running.requests.all();
    const seen = requests.map((request) => request.headers["x-call"]);
    expect(new Set(seen).size).toBe(requests.length); // no two requests share a call
    expect(calls).toBeGreaterThanOrEqual(requests.length);
    expect(requests.filter((request) => request.method === "tasks/get").length).toBeGreaterThanOrEqual(3);
  });

  it("that throws fails the request with AuthError (authorization_failed) carrying the cause", async () => {
    const running = await start();
    const broken = new Error("the vault is sealed");
    const failure = await TaskClient.connect(running.url, { headers: () => Promise.reject(broken) }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({
      reason: "authorization_failed",
      method: "server/discover",
      cause: broken,
    });
    expect(running.requests.size).toBe(0); // nothing went out without its credentials
  });
});

describe("refusals", () => {
  it("a 401 is an AuthError with the server's challenge", async () => {
    const running = await start();
    const failure = await TaskClient.connect(running.url, {
      headers: { Authorization: "Bearer wrong" },
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({
      reason: "unauthorized",
      status: 401,
      oauthError: "invalid_token",
    });
    // Re-authorize, not retry: an AuthError is not a TransportError.
    expect(failure).not.toBeInstanceOf(TransportError);
    expect((failure as AuthError).challenge).toMatch(/^Bearer error="invalid_token"/);
    expect((failure as AuthError).message).not.toContain("wrong");
  });

  it("a 403 insufficient_scope is an AuthError naming the scope the server asked for", async () => {
    const running = await start({
      auth: {
        type: "bearer",
        token: TOKEN,
        scopes: ["tasks:read"],
        requiredScopes: ["tasks:read", "tasks:write"],
      },
    });
    const failure = await TaskClient.connect(running.url, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      name: "AuthError",
      reason: "insufficient_scope",
      status: 403,
      scope: "tasks:read tasks:write",
    });
  });

  it("a token revoked mid-task ends the handle with AuthError carrying the task id; the task keeps running", async () => {
    const running = await start();
    client = await TaskClient.connect(running.url, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const handle = client.callTool("long_job");
    const taskId = (await handle.ref)!.taskId;
    running.auth!.revokeAll();
    const outcome = await handle.outcome();
    if (outcome.kind !== "error") throw new Error(`expected an error outcome, got ${outcome.kind}`);
    expect(outcome.taskId).toBe(taskId);
    const error = outcome.error as AuthError;
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ taskId, reason: "unauthorized", status: 401, method: "tasks/get" });
    expect(error.message).not.toContain(taskId); // ids are redacted in messages
    expect(running.tasks.get(taskId)?.status).toBe("working");
  });
});

describe("caller mistakes", () => {
  it("an invalid header is refused at connect by its name, never its value", async () => {
    const running = await start();
    const secret = "s3cr3t\nInjected: yes";
    const failure = await TaskClient.connect(running.url, { headers: { Authorization: secret } }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect(String((failure as Error).message)).toContain("Authorization");
    expect(String((failure as Error).message)).not.toContain("s3cr3t");
    expect(running.requests.size).toBe(0);
  });

  it.each(["Mcp-Method", "mcp-param-region", "Content-Type"])(
    "refuses %s, which the protocol sets",
    async (name) => {
      const running = await start();
      await expect(TaskClient.connect(running.url, { headers: { [name]: "x" } })).rejects.toThrow(TypeError);
    },
  );

  it("refuses headers for a stdio target", async () => {
    await expect(
      TaskClient.connect({ command: "node", args: ["-e", ""] }, { headers: { Authorization: "Bearer x" } }),
    ).rejects.toThrow(/URL target only/);
  });
});
