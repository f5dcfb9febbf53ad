/**
 * The docs site as `npm run docs` built it into docs/dist (`npm test` builds it once, before the unit tests):
 * the README, every guide and every public entry have a page, every internal link and anchor of the built HTML
 * resolves, the guides link into the API reference, and headless Chromium opens the pages with no console error
 * and no failed request. Reading the build instead of making one keeps this file cheap; a missing or stale build
 * fails, naming the command.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, relative, resolve, sep } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSiteLinks } from "./site-links.js";
import { ROOT } from "./snippets.js";

const SITE = join(ROOT, "docs/dist");
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

/** What the site is built from: a file newer than the build means the build is stale. */
function sources(): string[] {
  const under = (dir: string, ext: string) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
      .filter((path) => path.endsWith(ext))
      .map((path) => join(dir, path));
  return [
    "README.md",
    "bench/README.md",
    "package.json",
    "typedoc.config.mjs",
    "tsconfig.docs.json",
    "scripts/docs-site.mjs",
    ...under("docs", ".md").filter((path) => !path.startsWith(join("docs", "dist"))),
    ...under("src", ".ts"),
  ];
}

function readPage(path: string): string {
  return readFileSync(join(SITE, path), "utf8");
}

beforeAll(() => {
  const index = join(SITE, "index.html");
  if (!existsSync(index))
    throw new Error("docs/dist/index.html is missing: build the site with `npm run docs`");
  const built = statSync(index).mtimeMs;
  const newer = sources().find((path) => statSync(join(ROOT, path)).mtimeMs > built);
  if (newer !== undefined)
    throw new Error(`docs/dist is older than ${newer}: rebuild it with \`npm run docs\``);
});

describe("the docs site", () => {
  it("has the README as its home page, and a page for every guide and for the benchmarks", () => {
    expect(readPage("index.html")).toContain("<title>mcp-tasks</title>");
    expect(readPage("index.html")).toContain('id="quick-start"');
    const guides = readdirSync(join(ROOT, "docs")).filter((file) => file.endsWith(".md"));
    expect(guides.length).toBeGreaterThan(15);
    for (const guide of guides) {
      const page =
        guide === "README.md" ? "documents/docs.html" : `documents/${guide.replace(/\.md$/, ".html")}`;
      expect(existsSync(join(SITE, page)), page).toBe(true);
    }
    expect(readPage("documents/calling-tools.html")).toContain(
      "<title>Calling tools and the handle | mcp-tasks</title>",
    );
    expect(readPage("documents/bench.html")).toContain("<title>Benchmarks | mcp-tasks</title>");
  });

  it("has an API page for every entry of package.json exports", () => {
    const { exports } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    const entries = Object.keys(exports).filter((subpath) => subpath !== "./package.json");
    expect(entries).toEqual(
      expect.arrayContaining([
        ".",
        "./testing",
        "./store",
        "./store/redis",
        "./schema",
        "./ai-sdk",
        "./langchain",
      ]),
    );
    for (const subpath of entries) {
      const name = subpath === "." ? "mcp-tasks" : `mcp-tasks${subpath.slice(1)}`;
      const page = `modules/${name.replaceAll("/", "_")}.html`;
      expect(existsSync(join(SITE, page)), `${subpath}: ${page}`).toBe(true);
      expect(readPage(page), page).toContain(`<title>${name} | mcp-tasks</title>`);
    }
  });

  it("documents TaskClient, its methods and the telemetry option's types", () => {
    const client = readPage("classes/mcp-tasks.TaskClient.html");
    expect(client).toContain("One connection to an MCP server, ready for tasks.");
    for (const member of ["connect", "calltool", "task", "resume", "close"]) {
      expect(client, member).toContain(`id="${member}"`);
    }
    expect(existsSync(join(SITE, "interfaces/mcp-tasks.TelemetryOptions.html"))).toBe(true);
  });

  it("links code that names an export, in the guides and the README, to its API page", () => {
    expect(readPage("documents/calling-tools.html")).toContain(
      '<a href="../classes/mcp-tasks.TaskHandle.html" class="tsd-kind-class"><code>TaskHandle</code></a>',
    );
    // How the guides name the objects they hold: `client.resume()` is TaskClient's method.
    expect(readPage("documents/durable-tasks.html")).toContain(
      '<a href="../classes/mcp-tasks.TaskClient.html#resume" class="tsd-kind-method"><code>client.resume()</code></a>',
    );
    expect(readPage("index.html")).toContain('href="classes/mcp-tasks.TaskHandle.html#outcome"');
  });

  it("resolves every internal link and anchor of every page", () => {
    expect(checkSiteLinks(SITE)).toEqual([]);
  });
});

describe("the site link checker", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-site-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "documents"));
  writeFileSync(
    join(dir, "index.html"),
    '<h2 id="start">Start</h2><a href="documents/guide.html#part">ok</a>',
  );
  writeFileSync(
    join(dir, "documents/guide.html"),
    [
      '<h2 id="part">Part</h2><a name="old-part"></a>',
      '<a href="../index.html#start">ok</a> <a href="#old-part">ok</a> <a href="../">ok</a>',
      '<a href="https://example.com/missing">not followed</a> <script src="../assets/main.js"></script>',
      '<a href="../index.html#gone">no anchor</a> <a href="../../outside.html">outside</a>',
    ].join("\n"),
  );

  it("reports a missing file, a missing anchor and a link out of the site, with their pages", () => {
    expect(checkSiteLinks(dir)).toEqual([
      {
        page: `documents${sep}guide.html`,
        target: "../assets/main.js",
        problem: "no such file: assets/main.js",
      },
      {
        page: `documents${sep}guide.html`,
        target: "../index.html#gone",
        problem: 'no id "gone" in index.html',
      },
      { page: `documents${sep}guide.html`, target: "../../outside.html", problem: "points outside the site" },
    ]);
  });
});

describe("the docs site in a browser", () => {
  let server: Server;
  let origin: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    // A static file server for docs/dist on 127.0.0.1. Browsers ask every origin for /favicon.ico; the site
    // has none, so that one request gets an empty answer instead of a 404 in the console.
    const types: Record<string, string> = {
      ".html": "text/html",
      ".js": "text/javascript",
      ".css": "text/css",
      ".svg": "image/svg+xml",
    };
    server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
      if (path === "/favicon.ico") return void res.writeHead(204).end();
      const file = resolve(SITE, `.${path.endsWith("/") ? `${path}index.html` : path}`);
      if (relative(SITE, file).startsWith("..") || !existsSync(file) || !statSync(file).isFile()) {
        return void res.writeHead(404).end();
      }
      res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
      res.end(readFileSync(file));
    });
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((closed) => (server ? server.close(() => closed()) : closed()));
  });

  it("opens the home page, a guide and TaskClient's page with no console error or failed request", async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (.ci/run does)`,
      );
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning")
        problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("requestfailed", (request) => problems.push(`failed: ${request.url()}`));
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
    });

    await page.goto(`${origin}/index.html`);
    await expect.poll(() => page.locator("h1").first().textContent()).toBe("mcp-tasks");
    // The sidebar is drawn by the site's script from its navigation data: the guides are listed in order.
    const sidebar = page.locator(".site-menu a");
    await expect
      .poll(() => sidebar.allTextContents())
      .toEqual(expect.arrayContaining(["Getting started", "Calling tools and the handle", "Errors"]));

    await page.goto(`${origin}/documents/calling-tools.html`);
    await expect.poll(() => page.locator("h1").first().textContent()).toBe("Calling tools and the handle");
    await page.locator('a[href="../classes/mcp-tasks.TaskHandle.html"]').first().click();
    await expect.poll(() => page.locator("h1").first().textContent()).toBe("Class TaskHandle<T, Name>");

    await page.goto(`${origin}/classes/mcp-tasks.TaskClient.html`);
    await expect.poll(() => page.locator("h1").first().textContent()).toBe("Class TaskClient<Tools>");
    // Search, from its index loaded by the page.
    await page.locator("#tsd-search-trigger").click();
    await page.locator("#tsd-search-input").fill("redisStore");
    await expect
      .poll(() => page.locator("#tsd-search-results li").allTextContents())
      .toEqual(expect.arrayContaining([expect.stringContaining("redisStore")]));

    expect(problems).toEqual([]);
  }, 60_000);
});
