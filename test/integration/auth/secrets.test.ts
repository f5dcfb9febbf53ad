/**
 * Credentials live on the connection only. This test drives every path where text leaves the library — logger
 * lines, client and handle events, outcomes and their errors (cause chains included, as a logger prints them),
 * refs, and the files of a `fileStore` — through refusals, refreshes, a revoked grant and a throwing `headers`
 * function, and greps all of it for every token the connection ever held.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterEach, expect, it } from "vitest";
import { TaskClient, type Logger, type TaskHandle, type TaskClientOptions } from "mcp-tasks";
import { oauth } from "mcp-tasks/oauth";
import { fileStore } from "mcp-tasks/store";
import {
  defineTool,
  startTaskServer,
  step,
  textResult,
  type Clock,
  type HttpTaskServer,
} from "mcp-tasks/testing";
import { MemoryProvider } from "./memory-provider.js";

const BEARER = "static-bearer-4b1d7e2a90c3";
let skew = 0;
const clock: Clock = {
  now: () => Date.now() + skew,
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

const tools = [
  defineTool({
    name: "job",
    task: "required",
    pollIntervalMs: 20,
    steps: [step.working("a"), step.working("b"), step.working("c"), step.complete(textResult("job done"))],
  }),
  defineTool({
    name: "forever",
    task: "required",
    pollIntervalMs: 20,
    advance: { everyMs: 600_000 },
    steps: [],
  }),
];

/** Everything the library wrote where a user could read it. */
const written: string[] = [];
const record = (...values: unknown[]) => {
  for (const value of values) written.push(typeof value === "string" ? value : inspect(value, { depth: 8 }));
};
const logger: Logger = {
  debug: (message, ...details) => record(message, ...details),
  info: (message, ...details) => record(message, ...details),
  warn: (message, ...details) => record(message, ...details),
  error: (message, ...details) => record(message, ...details),
};

/** Records what a handle tells its user: its events (not the handle object itself), its outcome, its ref. */
async function watch(handle: TaskHandle): Promise<void> {
  for (const name of ["task", "update", "input", "inputUnanswered", "retry", "settled"] as const) {
    handle.on(name, (...args: unknown[]) => record(name, ...args));
  }
  record(await handle.outcome(), await handle.ref, handle.snapshot);
}

const servers: HttpTaskServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  written.length = 0;
  skew = 0;
});

async function clientFor(
  server: HttpTaskServer,
  options: TaskClientOptions,
): Promise<{ client: TaskClient; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-secrets-"));
  dirs.push(dir);
  const client = await TaskClient.connect(server.url, {
    logger,
    store: fileStore(dir),
    notifications: "off",
    ...options,
  });
  client.on("task", (_handle, taskId) => record("task", taskId));
  client.on("settled", (_handle, outcome) => record("settled", outcome));
  client.on("error", (error) => record("error", error));
  return { client, dir };
}

/** Waits (bounded) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(done()).toBe(true);
}

function filesIn(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesIn(path) : [readFileSync(path, "utf8")];
  });
}

function expectNoneOf(secrets: readonly string[], texts: readonly string[]): void {
  expect(secrets.length).toBeGreaterThan(0);
  expect(texts.length).toBeGreaterThan(10);
  for (const secret of secrets) {
    for (const text of texts) {
      if (text.includes(secret)) throw new Error(`a credential leaked into:\n${text.slice(0, 2_000)}`);
    }
  }
}

it("no OAuth token reaches a log line, an event, an outcome, an error, a ref or a store file", async () => {
  const server = await startTaskServer({ tools, clock, auth: { type: "oauth", tokenLifetimeMs: 60_000 } });
  servers.push(server);
  const provider = new MemoryProvider();
  const { client, dir } = await clientFor(server, {
    auth: oauth(provider, { authorizationResponse: (url) => server.auth!.approve(url) }),
  });
  const done = client.callTool("job");
  let updates = 0;
  done.on("update", () => ++updates === 2 && (skew += 61_000)); // expires mid-task: a refresh
  await watch(done);
  const forever = client.callTool("forever");
  await forever.ref;
  record(filesIn(dir)); // the store while a task runs
  const stored = filesIn(dir).join("\n");
  expect(stored).toContain((await forever.ref)!.taskId);
  server.auth!.revokeAll(); // the next poll is refused; the request re-authorizes (authorizationResponse)
  await until(
    () => server.auth!.tokenRequests.filter((r) => r.grantType === "authorization_code").length === 2,
  );
  forever.detach();
  await watch(forever);
  await client.close();
  record(filesIn(dir));
  expectNoneOf(provider.issued, written);
});

it("no header value reaches a log line, an event, an outcome, an error, a ref or a store file", async () => {
  const server = await startTaskServer({ tools, auth: { type: "bearer", token: BEARER } });
  servers.push(server);
  // Refused at connect: the wrong token is a credential too.
  const wrong = "wrong-bearer-77aa01";
  const refused = await TaskClient.connect(server.url, {
    logger,
    headers: { Authorization: `Bearer ${wrong}` },
  }).catch((error: unknown) => error);
  record(refused);
  // A headers function that throws with the secret in its hands.
  const thrown = await TaskClient.connect(server.url, {
    logger,
    headers: () => {
      throw new TypeError("vault unavailable");
    },
  }).catch((error: unknown) => error);
  record(thrown);

  const { client, dir } = await clientFor(server, { headers: { Authorization: `Bearer ${BEARER}` } });
  await watch(client.callTool("job"));
  const forever = client.callTool("forever");
  await forever.ref;
  record(filesIn(dir));
  server.auth!.revokeAll(); // the next poll is refused: the handle ends with AuthError
  await watch(forever);
  await client.close();
  record(filesIn(dir));
  expect(written.some((text) => text.includes("AuthError"))).toBe(true);
  expectNoneOf([BEARER, wrong], written);
});
