/**
 * The packed package on every JavaScript runtime it supports besides Chromium (see test/package/browser.test.ts):
 * Node 20, 22 and 24, Bun, Deno and workerd. Each runs `smoke.mjs` against the reference server on loopback: a
 * task followed through its status updates to completion, a task cancelled (exactly one `tasks/cancel` on the
 * wire, read from the server's request log), and, where the runtime has a file system the file store supports,
 * a task resumed from a `fileStore` by a second client. A runtime that is missing or cannot start fails its test.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { packedConsumer, type Consumer } from "../package/packed.js";
import { CLI_RUNTIMES, expectSmokeReport, runtimeVersion, smokeTools } from "./runtimes.js";
import { bundleWorker, startWorker, type RunningWorker } from "./workerd.js";

const exec = promisify(execFile);
const SCRIPTS = ["smoke.mjs", "smoke-cli.mjs", "smoke-worker.mjs"];

let consumer: Consumer;
let server: HttpTaskServer | undefined;

beforeAll(async () => {
  consumer = await packedConsumer();
  for (const script of SCRIPTS) copyFileSync(join(import.meta.dirname, script), join(consumer.dir, script));
}, 60_000);

afterEach(async () => {
  await server?.close();
  server = undefined;
});

afterAll(() => consumer?.remove());

describe.each(CLI_RUNTIMES)("on $name", ({ resolve }) => {
  it("completes a task with status updates, cancels one with one tasks/cancel, resumes one from a fileStore", async () => {
    const runtime = resolve();
    expect(await runtimeVersion(runtime)).toMatch(runtime.version);
    server = await startTaskServer({ tools: smokeTools() });
    const storeDir = mkdtempSync(join(consumer.dir, "store-"));
    const { stdout, stderr } = await exec(
      runtime.binary,
      [...runtime.args("smoke-cli.mjs"), server.url, storeDir],
      { cwd: consumer.dir, env: { ...process.env, ...runtime.env }, timeout: 60_000 },
    ).catch((error: { message: string; stdout?: string; stderr?: string }) => {
      throw new Error(
        `${runtime.name} failed: ${error.message}\n${error.stdout ?? ""}\n${error.stderr ?? ""}`,
      );
    });
    const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "null") as Record<string, unknown>;
    expect(stderr).toBe("");
    expectSmokeReport(report, server);
    expect(report["resumed"]).toEqual({ handles: 1, sameTask: true, kind: "completed", text: "resumed ok" });
  }, 90_000);
});

describe("on workerd (Cloudflare Workers)", () => {
  let worker: RunningWorker | undefined;
  afterAll(async () => worker?.stop());

  it("bundles with the workerd conditions, without the stdio transport or node: modules", async () => {
    const inputs = await bundleWorker(consumer.dir, "smoke-worker.mjs");
    expect(inputs).toContain("node_modules/mcp-tasks/dist/index.js");
    expect(
      inputs.filter((input) => /stdio\/node|client\/dist\/stdio|cross-spawn|^node:/.test(input)),
    ).toEqual([]);
  }, 60_000);

  it("completes a task with status updates and cancels one with one tasks/cancel, inside a fetch handler", async () => {
    server = await startTaskServer({ tools: smokeTools() });
    worker = await startWorker(consumer.dir);
    const response = await fetch(`${worker.url}/?server=${encodeURIComponent(server.url)}`);
    const report = (await response.json()) as Record<string, unknown>;
    expect(report["error"], worker.output()).toBeUndefined();
    expectSmokeReport(report, server);
    expect(report["resumed"]).toBeUndefined();
    // Without the validator passed in, a one-file bundle cannot import it: results fail, saying what to pass.
    expect(report["bundledCheck"]).toEqual({
      kind: "error",
      typed: true,
      advice: true,
      kept: { city: "Oslo", highC: 21 },
    });
  }, 90_000);
});
