/**
 * `mcp-tasks` against a server whose text is hostile: task ids, status messages, results, prompts and error
 * messages carrying terminal escape sequences (OSC 52 writes the clipboard), bidi overrides and shell
 * punctuation. Nothing of it may reach the terminal raw; results piped to a file stay byte-exact; a printed
 * command line quotes the server's words. And `tools` labels a 2025-11-25 tool the way the library calls it.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  defineTool,
  elicitForm,
  startTaskServer,
  step,
  textResult,
  type HttpTaskServer,
} from "../../../src/testing/index.js";
import type { PrimitiveSchemaDefinition } from "../../../src/schema/index.js";
import { runCli, stateDir, Terminal } from "./harness.js";
import { HOSTILE_SUFFIX, hostileIdProxy, type HostileIdProxy } from "./hostile-ids.js";

const CLIPBOARD = "\u001b]52;c;cHduZWQ=\u0007"; // OSC 52: put "pwned" on the clipboard
const SHOWN_CLIPBOARD = "\\u001b]52;c;cHduZWQ=\\u0007"; // …as the command shows it
const FORGED = "\n2026-01-01T00:00:00.000Z completed"; // a status message that would print a line of its own
const RESULT = `report ${CLIPBOARD}\u001b[1mbold\u001b[0m \u202edone\n`;
/** Anything that can steer a terminal: C0 but newline and tab, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const tools = [
  defineTool({
    name: "hostile_text",
    task: "required",
    pollIntervalMs: 20,
    steps: [step.working(`step one${CLIPBOARD}${FORGED}`), step.complete(textResult(RESULT.trimEnd()))],
  }),
  defineTool({
    name: "hostile_prompt",
    task: "required",
    pollIntervalMs: 20,
    steps: [
      step.input({
        name: elicitForm(`Your name?${CLIPBOARD}`, {
          // A default the schema type does not list for strings, but servers send (the prompt shows it).
          name: { type: "string", title: "Name", default: `Ada${CLIPBOARD}` } as PrimitiveSchemaDefinition,
        }),
      }),
      step.complete(textResult(`hello ${CLIPBOARD}`)),
    ],
  }),
  defineTool({
    name: "long_hostile",
    task: "required",
    advance: { everyMs: 600_000 },
    pollIntervalMs: 100,
    steps: [step.complete(textResult("done"))],
  }),
];

let server: HttpTaskServer;
let proxy: HostileIdProxy;
let broken: HttpServer;
let brokenUrl: string;
let legacy: HttpServer;
let legacyUrl: string;
let state: ReturnType<typeof stateDir>;
const terminals: Terminal[] = [];

beforeAll(async () => {
  state = stateDir();
  server = await startTaskServer({ tools });
  proxy = await hostileIdProxy(server.url);
  legacy = await startLegacyServer();
  legacyUrl = `http://127.0.0.1:${(legacy.address() as AddressInfo).port}/mcp`;
  // Answers every request with a JSON-RPC error whose message carries escape sequences.
  broken = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const id = (JSON.parse(body || "{}") as { id?: unknown }).id ?? null;
      const error = { code: -32603, message: `down for maintenance${CLIPBOARD}\u202e` };
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id, error }));
    });
  });
  await new Promise<void>((resolve) => broken.listen(0, "127.0.0.1", resolve));
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/mcp`;
});

afterEach(() => {
  for (const terminal of terminals.splice(0)) terminal.close();
});

afterAll(async () => {
  await Promise.all([proxy.close(), server.close()]);
  for (const http of [broken, legacy]) {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
  state.remove();
});

describe("hostile server text", () => {
  it("shows escapes instead of control sequences on stderr, and pipes the result byte-exact", async () => {
    const run = await runCli(["call", proxy.url, "hostile_text"], state.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(RESULT); // not a terminal: the server's bytes, exactly
    expect(run.stderr).not.toMatch(RAW_CONTROL);
    expect(run.stderr).toMatch(/^\S+Z task [0-9a-f-]{36};id\\u001b\]52;c;cHduZWQ=\\u0007\\u202e created$/m);
    // The status message stays on its line: no forged "completed" line of its own.
    expect(run.stderr).toContain(`working: step one${SHOWN_CLIPBOARD}\\n2026-01-01T00:00:00.000Z completed`);
    expect(run.stderr).not.toMatch(/^2026-01-01T00:00:00.000Z completed$/m);
  });

  it("quotes a hostile task id in the resume hint, and `ls` shows it escaped", async () => {
    const run = await runCli(["call", proxy.url, "long_hostile", "--detach"], state.env);
    expect(run.code).toBe(7);
    const ref = JSON.parse(run.stdout) as { taskId: string };
    expect(ref.taskId.endsWith(HOSTILE_SUFFIX)).toBe(true); // the ref on stdout is the server's, exactly
    expect(run.stderr).not.toMatch(RAW_CONTROL);
    const shownId = `${ref.taskId.slice(0, 36)};id${SHOWN_CLIPBOARD}\\u202e`;
    expect(run.stderr).toContain(`follow it with: mcp-tasks watch '${shownId}' --server ${proxy.url}`);

    const listed = await runCli(["ls"], state.env);
    expect(listed.stdout).not.toMatch(RAW_CONTROL);
    expect(listed.stdout.split("\n").find((line) => line.startsWith(shownId))).toMatch(/long_hostile/);
  });

  it("shows a server's error message escaped in `cannot connect`", async () => {
    const run = await runCli(["tools", brokenUrl], state.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot connect to ${brokenUrl}: `);
    expect(run.stderr).toContain(`down for maintenance${SHOWN_CLIPBOARD}\\u202e`);
    expect(run.stderr).not.toMatch(RAW_CONTROL);
  });

  it("on a terminal, shows the result, the prompt and its default with escapes instead of sequences", async () => {
    const terminal = new Terminal(
      ["call", server.url, "hostile_prompt"],
      state.env,
      state.storeDir.replace(/mcp-tasks$/, ""),
    );
    terminals.push(terminal);
    await terminal.waitForText("Answer, decline or cancel?");
    expect(terminal.screen()).toContain(`Your name?${SHOWN_CLIPBOARD}`);
    terminal.keys("a", "Enter");
    await terminal.waitForText(`Name (Ada${SHOWN_CLIPBOARD}) [optional]:`);
    terminal.keys("Enter"); // take the default
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.screen()).toContain(`hello ${SHOWN_CLIPBOARD}`);
  });
});

describe("mcp-tasks tools on a 2025-11-25 server", () => {
  it("labels each tool by its execution.taskSupport, absent meaning forbidden (a plain call)", async () => {
    const run = await runCli(["tools", legacyUrl], state.env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      "report  [task: required]\nmaybe  [task: optional]\nplain  [task: forbidden]\nodd  [task: forbidden]\n",
    );
  });
});

/**
 * A 2025-11-25 server, scripted: it does not know `server/discover`, answers `initialize` with the tasks
 * capability, and lists four tools: `required`, `optional`, one without `execution` (the schema's default is
 * `forbidden`) and one with a `taskSupport` the schema does not have.
 */
async function startLegacyServer(): Promise<HttpServer> {
  const tools = [
    { name: "report", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
    { name: "maybe", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } },
    { name: "plain", inputSchema: { type: "object" } },
    { name: "odd", inputSchema: { type: "object" }, execution: { taskSupport: "sometimes" } },
  ];
  const answers: Record<string, (id: unknown) => unknown> = {
    initialize: (id) => ({
      jsonrpc: "2.0",
      id,
      result: {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
        serverInfo: { name: "scripted-2025", version: "1.0.0" },
      },
    }),
    "tools/list": (id) => ({ jsonrpc: "2.0", id, result: { tools } }),
  };
  const http = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const { id, method } = JSON.parse(body) as { id?: unknown; method: string };
      if (id === undefined) return void res.writeHead(202).end(); // a notification
      const answer = answers[method]?.(id) ?? {
        jsonrpc: "2.0",
        id,
        error: { code: -32601, message: `Method not found: ${method}` },
      };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return http;
}
