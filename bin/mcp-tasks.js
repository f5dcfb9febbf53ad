#!/usr/bin/env node
// Launcher of the `mcp-tasks` command (`mcp-tasks --help`). In a clone (src/ present) it runs the TypeScript
// source through tsx, so it works right after `npm ci` and never runs a stale build; in the published package
// (no src/) it runs dist/cli.js. MCP_TASKS_CLI_BUILT=1 runs dist/cli.js in a clone too (the CLI tests do, to skip
// tsx's start-up in every child process).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = new URL("../src/cli/main.ts", import.meta.url);
const built = new URL("../dist/cli.js", import.meta.url);

async function loadCli() {
  if (existsSync(fileURLToPath(source)) && process.env.MCP_TASKS_CLI_BUILT !== "1") {
    const { register } = await import("tsx/esm/api");
    register();
    return import(source.href);
  }
  if (existsSync(fileURLToPath(built))) return import(built.href);
  throw new Error("cannot find src/cli/main.ts or dist/cli.js next to this launcher");
}

let code;
try {
  const { cliMain } = await loadCli();
  code = await cliMain(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`mcp-tasks: ${error instanceof Error ? error.message : String(error)}\n`);
  code = 3;
}
// Exit once stdout has taken everything (a pipe may still be draining), even if a stdin listener lingers.
process.stdout.write("", () => process.exit(code));
