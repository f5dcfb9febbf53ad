/**
 * From the command line to a connected client: a server (a URL or the stdio command after `--`; which one a
 * task names is task-operand.ts's question), the store, the credentials, the input handlers. A server that
 * cannot be reached is a usage error: the command cannot do anything else with it.
 */
import { existsSync } from "node:fs";
import { AuthError, TaskClient, type ConnectTarget } from "../index.js";
import type { Invocation } from "./args.js";
import { firstLine } from "./args.js";
import { CliStore, defaultStoreDir } from "./cli-store.js";
import { AuthorizationNeeded, UsageError } from "./exit-codes.js";
import { credentialsFileFor, CredentialsProvider } from "./credentials.js";
import { readHeaders } from "./headers.js";
import type { Output } from "./output.js";
import { NotPrivateError } from "./private-files.js";
import { terminalHandlers, type Terminal } from "./prompts.js";
import { commandLine, shellWord } from "./shell-words.js";

export interface Server {
  target: ConnectTarget;
  /** The URL of a Streamable HTTP server; undefined for a stdio command. */
  url?: string;
  /** The URL, or the stdio command as typed. */
  label: string;
  /** Options that reach this server again from another shell (`--server URL` or `-- command`). */
  again: string;
  /**
   * Whether the server, and so its tasks, outlive this command. A stdio server is this command's child: it stops
   * when the command exits, and a task it runs cannot be followed from another shell.
   */
  outlivesCommand: boolean;
}

export function urlServer(url: string): Server {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(
      `expected a server URL (http:// or https://) or \`-- <command>\`, got ${JSON.stringify(url)}`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`a server URL must be http:// or https://, got ${JSON.stringify(url)}`);
  }
  return {
    target: parsed.href,
    url: parsed.href,
    label: parsed.href,
    again: `--server ${shellWord(parsed.href)}`,
    outlivesCommand: true,
  };
}

export function stdioServer(command: string[]): Server {
  const [program = "", ...args] = command;
  const label = commandLine(command);
  return { target: ownSession(program, args), label, again: `-- ${label}`, outlivesCommand: false };
}

const SETSID = "/usr/bin/setsid";

/**
 * A stdio server started from a terminal shares its process group, so Ctrl-C would reach it too and it would die
 * before it could confirm the cancel that Ctrl-C means here. Where `setsid` exists (Linux), the server starts in a
 * session of its own (`setsid` replaces itself with the server: same process, so closing still stops it).
 * Elsewhere it starts as typed.
 */
function ownSession(program: string, args: string[]): { command: string; args: string[] } {
  if (process.platform !== "linux" || !existsSync(SETSID)) return { command: program, args };
  return { command: SETSID, args: [program, ...args] };
}

/** The command's store; `stderr` hears of a directory made private or a note ignored. */
export function storeOf(invocation: Invocation, stderr: Output): CliStore {
  return new CliStore(invocation.options.store ?? defaultStoreDir(), invocation.stdio, (text) =>
    stderr.write(`mcp-tasks: ${text}\n`),
  );
}

/** Whether prompts may be shown: a terminal on stdin and stderr, and no `--no-input`. */
export function interactive(invocation: Invocation): boolean {
  return !invocation.options.noInput && process.stdin.isTTY === true && process.stderr.isTTY === true;
}

export async function connectTo(
  server: Server,
  invocation: Invocation,
  store: CliStore,
  terminal: Terminal,
  onLog: (text: string) => void,
): Promise<TaskClient> {
  const { options } = invocation;
  const inputHandlers = terminalHandlers(terminal, {
    interactive: interactive(invocation),
    allowSampling: options.allowSampling,
    roots: options.roots,
  });
  const say = (level: string) => (message: unknown) => onLog(`${level}: ${String(message)}`);
  try {
    return await TaskClient.connect(server.target, {
      clientInfo: { name: "mcp-tasks-cli", version: "0.1.0" },
      store,
      inputHandlers,
      unansweredInput: options.unanswered,
      logger: { warn: say("warning"), error: say("error") },
      ...credentialsFor(server, invocation),
    });
  } catch (error) {
    if (error instanceof AuthError) throw new AuthorizationNeeded(authAdvice(error, server));
    throw new UsageError(`cannot connect to ${server.label}: ${firstLine(error)}`);
  }
}

/**
 * The credentials of an HTTP server: the `--header` options, and the tokens `mcp-tasks login` stored for it
 * (unless `--header` gives an `Authorization` of its own).
 */
function credentialsFor(
  server: Server,
  invocation: Invocation,
): { headers?: Record<string, string>; authProvider?: CredentialsProvider } {
  const headers = readHeaders(invocation.options.headers);
  if (server.url === undefined) {
    if (Object.keys(headers).length > 0)
      throw new UsageError("--header applies to a server URL, not to `-- <command>`");
    return {};
  }
  const given = Object.keys(headers).length > 0 ? { headers } : {};
  if (Object.keys(headers).some((name) => name.toLowerCase() === "authorization")) return given;
  const file = credentialsFileFor(server.url);
  let stored;
  try {
    stored = file.load();
  } catch (error) {
    if (!(error instanceof NotPrivateError)) throw error;
    throw new UsageError(
      `refusing the stored credentials: ${error.message}; remove it with \`mcp-tasks logout ${shellWord(server.url)}\`, then log in again`,
    );
  }
  return stored === undefined ? given : { ...given, authProvider: new CredentialsProvider(file, stored) };
}

/** One line on what the server wants and what to do about it; never a credential. */
export function authAdvice(error: AuthError, server: Server): string {
  const login = server.url === undefined ? "" : `: run \`mcp-tasks login ${server.url}\``;
  switch (error.reason) {
    case "insufficient_scope":
      return `${server.label} needs more scope${error.scope === undefined ? "" : ` ("${error.scope}")`} than the credentials have${login}`;
    case "forbidden":
      return `${server.label} forbids this request (HTTP 403) with these credentials`;
    case "authorization_failed":
      return `could not get credentials for ${server.label}: ${firstLine(error.cause ?? error)}`;
    default:
      return `${server.label} needs authorization${error.status === undefined ? "" : ` (HTTP ${error.status})`}${login}`;
  }
}
