/**
 * `mcp-tasks`: call, watch, cancel and list MCP tasks from a terminal. `cliMain` reads the command line, runs
 * one subcommand and resolves with the exit code; `bin/mcp-tasks.js` runs it and exits.
 */
import { firstLine, readInvocation } from "./args.js";
import { call, cancel, ls, tools, types, watch } from "./commands.js";
import { readConfig } from "./config.js";
import { servers } from "./servers.js";
import { AuthorizationNeeded, ExitCode, UsageError } from "./exit-codes.js";
import { login, logout } from "./login.js";
import { USAGE } from "./help.js";
import { SafeOutput, type Output } from "./output.js";
import { NotPrivateError } from "./private-files.js";

const COMMANDS = { call, watch, cancel, ls, tools, servers, types, login, logout } as const;

export async function cliMain(
  argv: readonly string[],
  streams: { stdout: Output; stderr: Output } = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  // Everything the command prints goes through these: server text cannot reach the terminal raw.
  const io = { stdout: SafeOutput.over(streams.stdout), stderr: SafeOutput.over(streams.stderr) };
  try {
    const invocation = readInvocation(argv);
    if (invocation.options.help || invocation.command === undefined || invocation.command === "help") {
      (invocation.command === undefined && !invocation.options.help ? io.stderr : io.stdout).write(USAGE);
      return invocation.command === undefined && !invocation.options.help
        ? ExitCode.usage
        : ExitCode.completed;
    }
    const command = COMMANDS[invocation.command as keyof typeof COMMANDS] as
      (typeof COMMANDS)[keyof typeof COMMANDS] | undefined;
    if (command === undefined || !Object.hasOwn(COMMANDS, invocation.command)) {
      throw new UsageError(
        `unknown command ${JSON.stringify(invocation.command)} (call, watch, cancel, ls, tools, servers, types, login, logout)`,
      );
    }
    const config = readConfig(invocation, (text) => io.stderr.write(`mcp-tasks: warning: ${text}\n`));
    if (config !== undefined) invocation.config = config;
    return await command(invocation, io);
  } catch (error) {
    io.stderr.write(`mcp-tasks: ${firstLine(error)}\n`);
    if (error instanceof AuthorizationNeeded) return ExitCode.auth;
    return error instanceof UsageError || error instanceof NotPrivateError ? ExitCode.usage : ExitCode.failed;
  }
}
