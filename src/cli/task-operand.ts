/**
 * The task `watch` and `cancel` act on, and the server to ask about it. A task is named by its id (looked up in
 * the command's store), or by a ref given as JSON or `@ref.json`, which may come from anywhere: another process,
 * a colleague, a file someone left. So what a ref may decide is limited:
 *
 * - A ref from outside the store is read as identity only (server, task id, tool, era, times): its input ledger
 *   is dropped, so it cannot answer a prompt on your behalf, and it never names a command (`readTaskRef` keeps
 *   only `TaskRef` fields).
 * - Its URL chooses the server, but not where your `--header` values go: with `--header`, name the server with
 *   `--server` too.
 * - A stdio command is started only from the command's own note of a task it started (`cli-store.ts`: a
 *   private file of this user), and only when you say yes at a terminal; otherwise the command prints the exact
 *   command line to run instead (`-- <command>` spelled out), and starts nothing.
 * - With `--config`, a task whose server is one of the file's (the same URL, or the same stdio command) is reached
 *   as the file says (its headers, env and cwd): the file is one you named. A task id the store does not know
 *   goes only to the server `--server NAME` names, never to every server of the file (an id is bearer-like).
 */
import { readFileSync } from "node:fs";
import { readTaskRef, type TaskRef } from "../index.js";
import { firstLine, type Invocation } from "./args.js";
import type { CliStore, NotedRef } from "./cli-store.js";
import { configServer, configServerOf } from "./config.js";
import { interactive, stdioServer, urlServer, type Server } from "./connect.js";
import { UsageError } from "./exit-codes.js";
import type { SafeOutput } from "./output.js";
import { confirm } from "./prompts.js";
import { commandLine, shellWord } from "./shell-words.js";
import { oneLine } from "./terminal-text.js";

export interface NamedTask {
  task: TaskRef | string;
  server: Server;
}

/** The task `word` names for `verb` (`watch` or `cancel`), and its server. */
export async function namedTask(
  verb: "watch" | "cancel",
  word: string,
  invocation: Invocation,
  store: CliStore,
  stderr: SafeOutput,
): Promise<NamedTask> {
  if (word.startsWith("{") || word.startsWith("@")) {
    const task = outsideRef(word, stderr);
    return { task, server: serverOfOutsideRef(task, invocation) };
  }
  const stored: NotedRef | undefined = (await store.list()).find((ref) => ref.taskId === word);
  return { task: stored ?? word, server: await serverOfStored(verb, word, stored, invocation) };
}

/** A ref given on the command line, as identity only. */
function outsideRef(word: string, stderr: SafeOutput): TaskRef {
  let ref: TaskRef;
  try {
    const text = word.startsWith("@") ? readFileSync(word.slice(1), "utf8") : word;
    ref = readTaskRef(JSON.parse(text));
  } catch (error) {
    const which = word.startsWith("@") ? ` ${word}` : "";
    throw new UsageError(`cannot read the task ref${which}: ${firstLine(error)}`);
  }
  const unsent = Object.keys(ref.pendingInputAnswers ?? {}).length;
  if (unsent > 0) {
    stderr.write(
      `the ref carries ${unsent} unsent input answer(s); a ref from elsewhere does not answer for you: ` +
        "they are not sent (you are asked again if the server still wants them)\n",
    );
  }
  const { pendingInputAnswers: _dropped, ...identity } = ref;
  return { ...identity, answeredInputKeys: [] };
}

function serverOfOutsideRef(ref: TaskRef, invocation: Invocation): Server {
  const chosen = explicitServer(invocation);
  if (chosen !== undefined) return chosen;
  const url = ref.server.url;
  const { config } = invocation;
  const named = config === undefined ? undefined : configServerOf(config, url, undefined);
  if (config !== undefined && named !== undefined && invocation.options.headers.length === 0)
    return configServer(config, named);
  if (url === undefined) {
    throw new UsageError("the ref does not name a server URL: give --server <url> or -- <command>");
  }
  if (invocation.options.headers.length > 0) {
    throw new UsageError(
      `the ref names the server ${oneLine(url)}; --header values go only to a server you name: ` +
        `add --server ${oneLine(shellWord(url))} if that is the one you mean`,
    );
  }
  return urlServer(url);
}

async function serverOfStored(
  verb: "watch" | "cancel",
  taskId: string,
  stored: NotedRef | undefined,
  invocation: Invocation,
): Promise<Server> {
  const chosen = explicitServer(invocation);
  if (chosen !== undefined) return chosen;
  const { config } = invocation;
  const command = stored?.cli?.command;
  const named = config && stored && configServerOf(config, stored.server.url, command);
  if (config !== undefined && named !== undefined) return configServer(config, named);
  if (stored?.server.url !== undefined) return urlServer(stored.server.url);
  if (command === undefined) {
    throw new UsageError(
      config === undefined
        ? "the store does not know this task's server: give --server <url> or -- <command>"
        : `the store does not know this task's server: give --server with a server of ${config.path} (the task id goes to that server only)`,
    );
  }
  const typed = commandLine(command);
  const again = `mcp-tasks ${verb} ${shellWord(taskId)} -- ${typed}`;
  if (
    interactive(invocation) &&
    (await confirm(
      `Task ${taskId} ran on a stdio server that mcp-tasks started with:\n  ${typed}\n` +
        "Start that command again to reach the task? [y/N] ",
    ))
  ) {
    return stdioServer(command);
  }
  throw new UsageError(
    `task ${oneLine(taskId)} ran on a stdio server; mcp-tasks starts a stored command only when you say so: ` +
      `run ${oneLine(again)}`,
  );
}

/**
 * The server named on the command line (`-- <command>`, or `--server`: a URL, or with `--config` a server's name
 * in the file), if any.
 */
function explicitServer(invocation: Invocation): Server | undefined {
  if (invocation.stdio !== undefined) return stdioServer(invocation.stdio);
  const { server } = invocation.options;
  if (server === undefined) return undefined;
  const { config } = invocation;
  if (config !== undefined && !/^https?:\/\//i.test(server)) return configServer(config, server);
  return urlServer(server);
}
