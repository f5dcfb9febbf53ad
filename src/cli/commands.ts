/** The subcommands: `call`, `watch`, `cancel`, `ls`, `tools`, `types`. Each resolves with its exit code. */
import { RpcError, type TaskClient } from "../index.js";
import { taskSupportOf } from "../tools/catalog.js";
import { firstLine, readToolArguments, type Invocation } from "./args.js";
import type { CliStore, NotedRef } from "./cli-store.js";
import { authAdvice, connectTo, stdioServer, storeOf, urlServer, type Server } from "./connect.js";
import { ExitCode, exitCodeOf, UsageError } from "./exit-codes.js";
import { follow, Interrupts } from "./follow.js";
import type { SafeOutput } from "./output.js";
import { createReporter, type Reporter } from "./reporter.js";
import { namedTask } from "./task-operand.js";
import { commandLine, shellWord } from "./shell-words.js";
import { oneLine } from "./terminal-text.js";
import { loadCompiler, typesModule } from "./types-module.js";
import { configServer, configServerOf, serverAndTool } from "./config.js";
import { toolsAcross } from "./servers.js";
import { table } from "./table.js";

/** Where a command prints: every write is made safe for a terminal (output.ts). */
export interface Io {
  stdout: SafeOutput;
  stderr: SafeOutput;
}

/**
 * The server of `call` / `tools` / `types`: the stdio command after `--`, or the first operand: a URL, or with
 * `--config` a server of the file (`SERVER/TOOL` for `call`, whose tool then leads the rest; `SERVER` otherwise).
 */
function serverOperand(invocation: Invocation, form: "tool" | "server"): { server: Server; rest: string[] } {
  if (invocation.stdio !== undefined)
    return { server: stdioServer(invocation.stdio), rest: invocation.operands };
  const [word, ...rest] = invocation.operands;
  if (word === undefined)
    throw new UsageError(
      invocation.config === undefined
        ? "missing the server: a URL, or `-- <command> [args…]` at the end"
        : `missing the ${form === "tool" ? "tool: SERVER/TOOL" : "server"} (servers: ${Object.keys(invocation.config.servers).join(", ")})`,
    );
  const { config } = invocation;
  if (config === undefined || /^https?:\/\//i.test(word)) return { server: urlServer(word), rest };
  if (form === "server") return { server: configServer(config, word), rest };
  const { server, tool } = serverAndTool(config, word);
  return { server: configServer(config, server), rest: [tool, ...rest] };
}

/** Connects, runs `body` with a reporter wired to Ctrl-C and the prompts, and always closes the client. */
async function withClient(
  invocation: Invocation,
  io: Io,
  server: Server,
  tool: string,
  body: (client: TaskClient, reporter: Reporter, store: CliStore, interrupts: Interrupts) => Promise<number>,
): Promise<number> {
  const store = storeOf(invocation, io.stderr, server.command);
  const interrupts = new Interrupts();
  const live = !invocation.options.json && io.stderr.isTTY === true && io.stdout.isTTY === true;
  const view: { reporter?: Reporter } = {}; // set once connected; prompts and logs may come before
  const client = await connectTo(
    server,
    invocation,
    store,
    {
      input: process.stdin,
      output: process.stderr,
      onInterrupt: () => interrupts.fire(),
      pause: () => view.reporter?.pause(),
      resume: () => view.reporter?.resume(),
    },
    (text) => (view.reporter ? view.reporter.say(text) : io.stderr.write(`${text}\n`)),
  );
  const reporter = createReporter({
    tool,
    json: invocation.options.json,
    live,
    stdout: io.stdout,
    stderr: io.stderr,
  });
  view.reporter = reporter;
  interrupts.install();
  try {
    return await body(client, reporter, store, interrupts);
  } finally {
    interrupts.uninstall();
    await client.close();
  }
}

export async function call(invocation: Invocation, io: Io): Promise<number> {
  const { server, rest } = serverOperand(invocation, "tool");
  const [tool, ...words] = rest;
  if (tool === undefined) throw new UsageError("missing the tool name");
  const args = readToolArguments(words);
  const { timeoutMs, detach } = invocation.options;
  if (detach && !server.outlivesCommand) {
    throw new UsageError(
      "--detach needs a server that outlives this command: a stdio server stops when mcp-tasks exits, and its " +
        "tasks with it (use an HTTP server, or follow the task to its end)",
    );
  }
  return withClient(invocation, io, server, tool, async (client, reporter, store, interrupts) => {
    const handle = client.callTool(tool, args, timeoutMs === undefined ? {} : { timeoutMs });
    if (detach) {
      const ref = await handle.ref;
      if (ref !== undefined) {
        if (handle.status !== undefined) await store.note(ref.taskId, handle.status, undefined);
        handle.detach();
        await handle.outcome();
        io.stdout.data(`${JSON.stringify(ref)}\n`);
        reporter.say(`detached; follow it with: ${resumeHintFor(server, invocation)(ref.taskId) ?? ""}`, {
          ref,
        });
        return ExitCode.detached;
      }
    }
    return follow({
      handle,
      reporter,
      store,
      interrupts,
      resumeHint: resumeHintFor(server, invocation),
      authAdvice: (error) => authAdvice(error, server, invocation),
      check: (outcome) => {
        // The server refused the call itself (an unknown tool, arguments it cannot take): a usage error.
        const error = outcome.kind === "error" && outcome.taskId === undefined ? outcome.error : undefined;
        if (error instanceof RpcError && (error.code === -32602 || error.code === -32601)) {
          throw new UsageError(`${server.label} refused ${tool}: ${oneLine(error.rpcMessage)}`);
        }
      },
    });
  });
}

export async function watch(invocation: Invocation, io: Io): Promise<number> {
  const [word] = invocation.operands;
  if (word === undefined)
    throw new UsageError("missing the task: a task id, a TaskRef as JSON, or @ref.json");
  const lookup = storeOf(invocation, io.stderr);
  const { task, server } = await namedTask("watch", word, invocation, lookup, io.stderr);
  const tool = typeof task === "string" ? "task" : task.toolName || "task";
  const { timeoutMs } = invocation.options;
  return withClient(invocation, io, server, tool, (client, reporter, store, interrupts) => {
    if (typeof task !== "string") store.follows(task);
    const handle = client.task(task, timeoutMs === undefined ? {} : { timeoutMs });
    return follow({
      handle,
      reporter,
      store,
      interrupts,
      resumeHint: resumeHintFor(server, invocation),
      authAdvice: (error) => authAdvice(error, server, invocation),
    });
  });
}

export async function cancel(invocation: Invocation, io: Io): Promise<number> {
  const [word] = invocation.operands;
  if (word === undefined)
    throw new UsageError("missing the task: a task id, a TaskRef as JSON, or @ref.json");
  const lookup = storeOf(invocation, io.stderr);
  const { task, server } = await namedTask("cancel", word, invocation, lookup, io.stderr);
  const tool = typeof task === "string" ? "task" : task.toolName || "task";
  return withClient(invocation, io, server, tool, async (client, reporter) => {
    const handle = client.task(task);
    const { ack, error, outcome } = await handle.cancel();
    if (error !== undefined) reporter.say(`the server refused the cancel: ${oneLine(firstLine(error))}`);
    else if (ack !== undefined) reporter.say("the server acknowledged the cancel");
    const code = exitCodeOf(outcome);
    reporter.finish(outcome, code);
    return code;
  });
}

/**
 * `ls`: the unfinished tasks in the store. With `--config`, only those of the file's servers (matched by URL, or
 * by stdio command and arguments), each under its server's name there.
 */
export async function ls(invocation: Invocation, io: Io): Promise<number> {
  const store = storeOf(invocation, io.stderr);
  const { config } = invocation;
  let refs: Array<NotedRef & { configServer?: string }> = await store.list();
  if (config !== undefined) {
    refs = refs.flatMap((ref) => {
      const name = configServerOf(config, ref.server.url, ref.cli?.command);
      return name === undefined ? [] : [{ ...ref, configServer: name }];
    });
  }
  if (invocation.options.json) {
    for (const ref of refs) io.stdout.data(`${JSON.stringify(ref)}\n`);
    return ExitCode.completed;
  }
  if (refs.length === 0) {
    const of = config === undefined ? "" : ` of the servers of ${config.path}`;
    io.stderr.write(`no unfinished tasks${of} in ${store.dir}\n`);
    return ExitCode.completed;
  }
  const rows = refs
    .sort((a, b) => (a.createdAt ?? "").localeCompare(b.createdAt ?? ""))
    .map((ref) => [
      ref.taskId,
      ref.configServer ??
        ref.server.url ??
        (ref.cli?.command && commandLine(ref.cli.command)) ??
        ref.server.name ??
        "?",
      ref.toolName,
      age(ref.createdAt),
      [ref.cli?.status ?? "?", ref.cli?.statusMessage].filter(Boolean).join(": "),
    ]);
  io.stdout.write(table([["TASK", "SERVER", "TOOL", "AGE", "LAST STATUS"], ...rows]));
  return ExitCode.completed;
}

export async function tools(invocation: Invocation, io: Io): Promise<number> {
  if (invocation.config !== undefined && invocation.stdio === undefined && invocation.operands.length === 0)
    return toolsAcross(invocation, io, invocation.config);
  const { server, rest } = serverOperand(invocation, "server");
  if (rest.length > 0) throw new UsageError(`unexpected ${JSON.stringify(rest[0])}`);
  return withClient(invocation, io, server, "tools/list", async (client) => {
    const listed = await client.listTools();
    // 2026-07-28: the server decides per call. 2025-11-25: the tool's `execution.taskSupport`, absent meaning
    // forbidden (a plain call), as the library reads it.
    const legacy = client.server.era === "legacy";
    for (const tool of listed) {
      const task = legacy ? taskSupportOf(tool) : "decided per call";
      if (invocation.options.json) {
        io.stdout.data(`${JSON.stringify({ name: tool.name, description: tool.description, task })}\n`);
        continue;
      }
      io.stdout.write(`${oneLine(String(tool.name))}  [task: ${task}]\n`);
      // A description may be several lines: each is indented, so none can pass for a tool of its own.
      if (typeof tool.description === "string")
        io.stdout.write(`    ${tool.description.replace(/\r?\n/g, "\n    ")}\n`);
    }
    return ExitCode.completed;
  });
}

/** `types`: the server's tools as a TypeScript module exporting `Tools`, on stdout. */
export async function types(invocation: Invocation, io: Io): Promise<number> {
  const { server, rest } = serverOperand(invocation, "server");
  if (rest.length > 0) throw new UsageError(`unexpected ${JSON.stringify(rest[0])}`);
  const compile = await loadCompiler(); // a missing generator fails before anything is started
  return withClient(invocation, io, server, "tools/list", async (client) => {
    const listed = await client.listTools();
    const info = client.server.serverInfo;
    // Code for a file: passed on exactly (its special characters are escapes already), made safe on a terminal.
    io.stdout.data(await typesModule(listed, compile, { name: info?.name, version: info?.version }));
    return ExitCode.completed;
  });
}

/**
 * How to follow a task of `server` from another shell; nothing for a server that stops with this command.
 * `--header` values are never repeated (they may be secrets). The task id is the server's: quoted, so pasting
 * the line runs nothing else.
 */
function resumeHintFor(server: Server, invocation: Invocation): (taskId: string) => string | undefined {
  const headers = invocation.options.headers.length > 0 ? " (with the same --header options)" : "";
  return (taskId) =>
    server.outlivesCommand
      ? `mcp-tasks watch ${oneLine(shellWord(taskId))} ${server.again}${headers}`
      : undefined;
}

function age(createdAt: string | undefined): string {
  const at = createdAt === undefined ? Number.NaN : Date.parse(createdAt);
  if (!Number.isFinite(at)) return "?";
  const seconds = Math.max(0, Math.round((Date.now() - at) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}
