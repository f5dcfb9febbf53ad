/**
 * mcp-tasks in a real browser. The packed package's main entry is bundled by esbuild for
 * `platform: "browser"` with no externals, into a page served on 127.0.0.1; Debian's headless Chromium
 * (driven by playwright-core) opens it, and the page runs the runtime smoke scenario (test/runtimes/smoke.mjs:
 * a task followed through its updates, a task cancelled with exactly one `tasks/cancel`) against the reference
 * server on another port (CORS). The report is read back from the page.
 * Without Chromium this test fails, naming the install command: it never skips.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectSmokeReport, smokeTools } from "../runtimes/runtimes.js";
import { packedConsumer, type Consumer } from "./packed.js";

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

// The shared runtime smoke scenario (test/runtimes/smoke.mjs), without a store: a page has no file system.
const PAGE_SCRIPT = `
import { jsonSchemaValidator } from "mcp-tasks/json-schema";
import { runSmoke } from "./smoke.mjs";

const url = new URL(location.href).searchParams.get("server");
runSmoke({ url, validateOutput: jsonSchemaValidator }).then(
  (result) => { window.outcome = result; },
  (error) => { window.outcome = { error: String(error && error.stack || error) }; },
);
`;

let consumer: Consumer;
let pageScript: string;
let metafile: Metafile;
let pageServer: Server;
let taskServer: HttpTaskServer;
let profile: string;
let context: BrowserContext | undefined;

beforeAll(async () => {
  consumer = await packedConsumer();
  copyFileSync(join(import.meta.dirname, "../runtimes/smoke.mjs"), join(consumer.dir, "smoke.mjs"));
  const bundled = await build({
    stdin: { contents: PAGE_SCRIPT, resolveDir: consumer.dir, sourcefile: "page.js" },
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
    tsconfigRaw: "{}",
    absWorkingDir: consumer.dir,
  });
  pageScript = bundled.outputFiles[0]?.text ?? "";
  metafile = bundled.metafile;

  pageServer = createServer((req, res) => {
    if (req.url?.startsWith("/page.js")) {
      res.writeHead(200, { "content-type": "text/javascript" }).end(pageScript);
    } else {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end('<!doctype html><script type="module" src="/page.js"></script>');
    }
  });
  await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
  const pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  taskServer = await startTaskServer({
    allowOrigins: [pageOrigin],
    tools: smokeTools(),
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  await taskServer?.close();
  await new Promise<void>((resolve) => (pageServer ? pageServer.close(() => resolve()) : resolve()));
  consumer?.remove();
});

describe("in a browser", () => {
  it("the main entry bundles for platform=browser with no externals, without the stdio transport", () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs).toContain("node_modules/mcp-tasks/dist/index.js");
    expect(inputs).toContain("node_modules/mcp-tasks/dist/stdio/unavailable.js");
    expect(
      inputs.filter((input) => /stdio\/node|client\/dist\/stdio|cross-spawn|^node:/.test(input)),
    ).toEqual([]);
  });

  it("completes one task and cancels another in headless Chromium", async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (.ci/run does)`,
      );
    }
    profile = mkdtempSync(join(tmpdir(), "mcp-tasks-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    const pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/?server=${encodeURIComponent(taskServer.url)}`;
    await page.goto(pageUrl);
    await page.waitForFunction(() => (window as { outcome?: unknown }).outcome !== undefined, null, {
      timeout: 30_000,
    });
    const outcome = await page.evaluate(() => (window as { outcome?: unknown }).outcome);
    expect(pageErrors).toEqual([]);
    expect((outcome as { error?: string }).error).toBeUndefined();
    expectSmokeReport(outcome as Record<string, unknown>, taskServer);
    expect((outcome as { resumed?: unknown }).resumed).toBeUndefined();
    const origins = taskServer.requests.all().map((request) => request.headers["origin"]);
    expect(new Set(origins)).toEqual(new Set([new URL(pageUrl).origin]));
  }, 60_000);
});
