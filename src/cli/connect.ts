/**
 * From the command line to a connected client: a server (a URL or the stdio command after `--`; which one a
 * task names is task-operand.ts's question), the store, the credentials, the input handlers. A server that
 * cannot be reached is a usage error: the command cannot do anything else with it.
 */
import { existsSync } from "node:fs";
import { AuthError, TaskClient, type ConnectionAuth, type ConnectTarget } from "../index.js";
import { oauth } from "../auth/oauth/index.js";
import type { Invocation } from "./args.js";
import { firstLine } from "./args.js";
import { CliStore, defaultStoreDir } from "./cli-store.js";
import { AuthorizationNeeded, UsageError } from "./exit-codes.js";
import { credentialsFileFor, CredentialsProvider } from "./credentials.js";
import { readHeaders } from "./headers.js";
import { STEP_UP_TIMEOUT_MS, terminalAuthorization } from "./login.js";
import type { Output } from "./output.js";
import { NotPrivateError } from "./private-files.js";
import { terminalHandlers, type Terminal } from "./prompts.js";
import { commandLine, shellWord } from "./shell-words.js";

export interface Server {
  target: ConnectTarget;
  /** The URL of a Streamable HTTP server; undefined for a stdio command. */
  url?: string;
  /** The URL, the stdio command as typed, or the server's name in the `--config` file. */
  label: string;
  /** Its name in the `--config` file, when it comes from one. */
  name?: string;
  /** The stdio command and its arguments (noted with the tasks it runs); undefined for a URL. */
  command?: string[];
  /** Headers the `--config` file gives a URL server (before `--header`, which wins). */
  headers?: Record<string, string>;
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

/** A stdio server: `command` is the program and its arguments; a config file may add `env` and `cwd`. */
export function stdioServer(
  command: string[],
  extra: { env?: Record<string, string> | undefined; cwd?: string | undefined } = {},
): Server {
  const [program = "", ...args] = command;
  const label = commandLine(command);
  const target = {
    ...ownSession(program, args),
    ...(extra.env !== undefined && { env: extra.env }),
    ...(extra.cwd !== undefined && { cwd: extra.cwd }),
  };
  return { target, label, command, again: `-- ${label}`, outlivesCommand: false };
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

/**
 * The command's store; `stderr` hears of a directory made private or a note ignored. `command` is the stdio
 * server command noted with every task the command starts.
 */
export function storeOf(invocation: Invocation, stderr: Output, command = invocation.stdio): CliStore {
  return new CliStore(invocation.options.store ?? defaultStoreDir(), command, (text) =>
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
      ...credentialsFor(server, invocation, onLog),
    });
  } catch (error) {
    if (error instanceof AuthError) throw new AuthorizationNeeded(authAdvice(error, server, invocation));
    throw new UsageError(`cannot connect to ${server.label}: ${firstLine(error)}`);
  }
}

/**
 * The credentials of an HTTP server: the `--header` options, and the tokens `mcp-tasks login` stored for it
 * (unless `--header` gives an `Authorization` of its own).
 */
export function credentialsFor(
  server: Server,
  invocation: Invocation,
  onLog: (text: string) => void,
): { headers?: Record<string, string>; auth?: ConnectionAuth } {
  const typed = readHeaders(invocation.options.headers);
  if (server.url === undefined) {
    if (Object.keys(typed).length > 0)
      throw new UsageError("--header applies to a server URL, not to `-- <command>`");
    return {};
  }
  const headers = { ...server.headers, ...typed };
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
  if (stored === undefined) return given;
  const authProvider = new CredentialsProvider(file, stored);
  // On a terminal, a request that needs the user (a wider scope) asks once, as `login` would, and carries on.
  if (!interactive(invocation)) return { ...given, auth: oauth(authProvider) };
  const authorizationResponse = terminalAuthorization(stored.redirectUrl, {
    noBrowser: invocation.options.noBrowser,
    timeoutMs: invocation.options.timeoutMs ?? STEP_UP_TIMEOUT_MS,
    say: onLog,
  });
  return { ...given, auth: oauth(authProvider, { authorizationResponse }) };
}

/** Whether `--header` gives the `Authorization` (the stored tokens are then not used). */
export function headerAuthorizes(invocation: Invocation): boolean {
  return (
    invocation.options.headers.length > 0 &&
    Object.keys(readHeaders(invocation.options.headers)).some(
      (name) => name.toLowerCase() === "authorization",
    )
  );
}

/**
 * One line on what the server wants and what to do about it; never a credential. A missing scope is named, and
 * `login` is advised with `--scope` for it; with `--header Authorization`, `login` would not help (the header
 * replaces stored tokens), so it is not advised.
 */
export function authAdvice(error: AuthError, server: Server, invocation: Invocation): string {
  const scope = plainScope(error.scope);
  const viaHeader = headerAuthorizes(invocation);
  const login =
    server.url === undefined || viaHeader
      ? ""
      : `: run \`mcp-tasks login ${server.url}${scope === undefined ? "" : ` --scope '${scope}'`}\``;
  const stepUp = error.status === 403 && scope !== undefined;
  if (error.reason === "insufficient_scope" || (error.reason === "authorization_required" && stepUp)) {
    const what = scope === undefined ? "more scope" : `scope "${scope}"`;
    const lacking = viaHeader ? "the --header Authorization token lacks" : "the stored credentials lack";
    return `${server.label} needs ${what}, which ${lacking}${login}`;
  }
  switch (error.reason) {
    case "forbidden":
      return `${server.label} forbids this request (HTTP 403) with these credentials`;
    case "authorization_failed": {
      const why = error.cause === undefined ? "" : `: ${firstLine(error.cause)}`;
      const retry = error.oauthError === "invalid_scope" ? login : "";
      return `could not get credentials for ${server.label}: ${firstLine(error)}${why}${retry}`;
    }
    default:
      if (viaHeader) {
        return `${server.label} refused the --header Authorization${error.status === undefined ? "" : ` (HTTP ${error.status})`}`;
      }
      return `${server.label} needs authorization${error.status === undefined ? "" : ` (HTTP ${error.status})`}${login}`;
  }
}

/** A scope as a server wrote it, if it is only scope tokens (RFC 6749 §3.3) that can go on a command line. */
function plainScope(scope: string | undefined): string | undefined {
  return scope !== undefined &&
    /^[\x21\x23-\x26\x28-\x5b\x5d-\x7e]+( [\x21\x23-\x26\x28-\x5b\x5d-\x7e]+)*$/.test(scope)
    ? scope
    : undefined;
}
