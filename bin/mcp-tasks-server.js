#!/usr/bin/env node
// Launcher of the reference tasks server (`mcp-tasks-server --port 0`, `--stdio`, `--help`).
// In a clone (src/ present) it runs the TypeScript source through tsx, so it works right after
// `npm ci` and never runs a stale build; in the published package (no src/) it runs dist/.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = new URL("../src/testing/index.ts", import.meta.url);
const built = new URL("../dist/testing/index.js", import.meta.url);

async function loadServerModule() {
  if (existsSync(fileURLToPath(source))) {
    const { register } = await import("tsx/esm/api");
    register();
    return import(source.href);
  }
  if (existsSync(fileURLToPath(built))) return import(built.href);
  throw new Error("cannot find src/testing/index.ts or dist/testing/index.js next to this launcher");
}

try {
  const { taskServerMain } = await loadServerModule();
  await taskServerMain(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`mcp-tasks-server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
