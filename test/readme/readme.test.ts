/**
 * The README and the guides (every markdown page under docs/, not the built site in docs/dist/) are tested.
 *
 * 1. Every ```ts snippet of README.md and of every page under docs/ is type-checked, all of them in one
 *    TypeScript program, with the options of a strict user project (`strict`, `exactOptionalPropertyTypes`)
 *    and `mcp-tasks`, `mcp-tasks/testing` and `mcp-tasks/schema` mapped to the sources. A snippet is a module of its own: it
 *    imports what it uses, and names it leaves to the reader are declared in the page itself
 *    (`declare const signal: AbortSignal;`).
 * 2. Every snippet marked `<!-- runs -->` (an HTML comment on the line before its fence, invisible on GitHub)
 *    is executed against the reference server. The mechanism, with no tsx and no files written:
 *    `ts.transpileModule` compiles the snippet to CommonJS, which runs as the body of an async function whose
 *    `require` serves only the three package entry points (imported here through the vitest aliases, so the
 *    sources) and whose `console` is captured. The docs' server URL, `http://127.0.0.1:3000/mcp` (what
 *    `npx mcp-tasks-server --port 3000` prints), is replaced with the URL of a `startTaskServer()` on
 *    127.0.0.1 serving the fixture tools at a hundredth of their timing; a runnable snippet that does not use
 *    that exact URL must start its own server. A snippet passes when it finishes without throwing, one that
 *    uses the URL must have called the server, and only tools the server has, and what it printed must be what
 *    the page shows (3). Each is a test named `<page>:<line>`.
 * 3. Where a page shows what a runnable snippet prints (what `console.log`, `.warn` and `.error` print, as
 *    Node formats it), one line per printed line:
 *    - an output block: a ```text fence right after the snippet's closing fence, with only blank lines between,
 *      is the snippet's whole output, every line in order;
 *    - inline: a `// ` comment ending a line that calls `console.log`, `.warn` or `.error` is a line that call
 *      prints. Such lines must appear in the output in the order of the comments (other lines may come between),
 *      so a comment that explains rather than shows belongs on the line above, not after a console call.
 *    In both, `…` stands for any text within a line (ids, timings, counts that vary) and a line that is only `⋮`
 *    for any number of lines (a status that repeats on a slower server). Trailing whitespace does not count. A
 *    runnable snippet that prints must show its output one of these ways.
 * 4. The list of the reference server's tools in docs/testing.md is the `--help` text generated from their
 *    definitions.
 * 5. The harness itself can fail: a snippet with a type error, an unknown export or a throw is caught, and so is
 *    output that differs from what is shown.
 * 6. No snippet is lost when text moves between pages: the totals checked and run are at least what the README
 *    alone had before the guides were split out of it (35 type-checked, 9 run).
 *
 * Links and anchors are checked by links.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { format } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as mcpTasks from "mcp-tasks";
import * as mcpTasksSchema from "mcp-tasks/schema";
import * as mcpTasksTesting from "mcp-tasks/testing";
import * as mcpTasksTelemetry from "mcp-tasks/telemetry";
import * as v1Client from "@modelcontextprotocol/sdk/client/index.js";
import * as v1Http from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as v1Types from "@modelcontextprotocol/sdk/types.js";
import * as otelTraceBase from "@opentelemetry/sdk-trace-base";
import * as temporalCommon from "@temporalio/common";
import * as temporalTesting from "@temporalio/testing";
import * as mcpTasksTemporal from "mcp-tasks/temporal";
import { describeTools, fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import {
  ROOT,
  compareOutput,
  documentSnippets,
  extractSnippets,
  runSnippet,
  typeCheckSnippets,
  type Snippet,
} from "./snippets.js";

const DOCS_URL = "http://127.0.0.1:3000/mcp";
const MODULES = {
  "mcp-tasks": mcpTasks,
  "mcp-tasks/schema": mcpTasksSchema,
  "mcp-tasks/testing": mcpTasksTesting,
  "mcp-tasks/telemetry": mcpTasksTelemetry,
  // The v1 SDK, for the snippet that drives the kit's 2025-11-25 mode with the v1 Client.
  "@modelcontextprotocol/sdk/client/index.js": v1Client,
  "@modelcontextprotocol/sdk/client/streamableHttp.js": v1Http,
  "@modelcontextprotocol/sdk/types.js": v1Types,
  // The OpenTelemetry SDK, for the Observability snippet that prints a task's spans.
  "@opentelemetry/sdk-trace-base": otelTraceBase,
  // Temporal's activity environment, for the Durable engines snippet that retries an activity.
  "mcp-tasks/temporal": mcpTasksTemporal,
  "@temporalio/common": temporalCommon,
  "@temporalio/testing": temporalTesting,
};

const SERVED = fixtureTools().map((tool) => tool.name);

/** The harness's own samples: one snippet that must not type-check, one that must throw when run. */
const SAMPLE = [
  "```ts",
  'import { TaskClient, NoSuchExport } from "mcp-tasks";',
  "const count: number = 'three';",
  "```",
  "",
  "<!-- runs -->",
  "",
  "```ts",
  'import { textResult } from "mcp-tasks/testing";',
  'if (textResult("x").content.length === 1) throw new Error("ran");',
  "```",
].join("\n");
const [broken, throwing] = extractSnippets(SAMPLE);

/** Samples of shown output: a block with both wildcards, and inline comments (one of them explaining). */
const SHOWN = [
  "```ts",
  'console.log("task-8f2c", "working"); // task-… working',
  "// the terminal update",
  'console.log("completed");',
  "```",
  "",
  "```text",
  "task-… working",
  "⋮",
  "completed",
  "```",
].join("\n");
const [shown] = extractSnippets(SHOWN) as [Snippet];

/** Runs a snippet with its printed lines collected as Node's console would format them. */
async function printedBy(code: string): Promise<string[]> {
  const lines: string[] = [];
  const capture = (...args: unknown[]) => void lines.push(format(...args));
  await runSnippet(code, MODULES, { log: capture, warn: capture, error: capture });
  return lines;
}

/** The snippets of every page, by page: README.md first, then docs/ in order. */
const documents = documentSnippets();
const pages = Object.keys(documents);
const snippets = Object.entries(documents).flatMap(([page, found]) =>
  found.map((snippet) => ({ ...snippet, page, name: `${page}:${snippet.line}` })),
);
const runnable = snippets.filter((snippet) => snippet.runs);

/** Every page's snippets and the broken sample, type-checked together: one program, built once. */
let checked: Record<string, string[]> | undefined;
function typeCheckOnce(): Record<string, string[]> {
  checked ??= typeCheckSnippets({ ...documents, "sample.md": [broken!] });
  return checked;
}

describe("README.md and docs/", () => {
  it("keep every snippet: at least 35 type-checked and 9 run, as the README had before the split", () => {
    console.log(
      `docs snippets: ${snippets.length} type-checked, ${runnable.length} run, in ${pages.length} pages`,
    );
    expect(pages[0]).toBe("README.md");
    expect(snippets.length).toBeGreaterThanOrEqual(35);
    expect(runnable.length).toBeGreaterThanOrEqual(9);
  });

  it("show the reference server's tools exactly as mcp-tasks-server --help prints them (docs/testing.md)", () => {
    const fenced = ["```text", describeTools(fixtureTools())].join("\n");
    expect(readFileSync(join(ROOT, "docs/testing.md"), "utf8")).toContain(`${fenced}\`\`\`\n`);
  });

  describe("type-check every ts snippet (strict, exactOptionalPropertyTypes) in one program", () => {
    it.each(pages)("%s", { timeout: 180_000 }, (page) => {
      expect(typeCheckOnce()[page]).toEqual([]);
    });
  });

  describe("runs the snippets marked <!-- runs --> against the reference server", () => {
    let server: HttpTaskServer;
    beforeAll(async () => {
      server = await startTaskServer({ tools: fixtureTools({ timeScale: 0.01 }) });
    });
    afterAll(async () => {
      await server.close();
    });

    it.each(runnable)("$name", { timeout: 60_000 }, async (snippet) => {
      server.requests.clear();
      const { code } = snippet;
      const usesServer = code.includes(DOCS_URL);
      const printed = await printedBy(code.replaceAll(DOCS_URL, server.url));
      if (printed.length > 0) {
        expect(
          snippet.output !== undefined || snippet.inline.length > 0,
          `${snippet.name} prints, but the page does not show what`,
        ).toBe(true);
      }
      expect(compareOutput(snippet, printed)).toBeUndefined();
      if (!usesServer) return;
      const calls = server.requests.forMethod("tools/call");
      expect(calls.length).toBeGreaterThan(0);
      // outcome() never rejects, so a call to a tool the server lacks would not throw: check the names.
      for (const call of calls)
        expect(SERVED).toContain((call.body as { params: { name: string } }).params.name);
    });
  });
});

describe("the docs harness", () => {
  it("finds fences, their lines and the runs marker", () => {
    expect(broken).toMatchObject({ line: 1, runs: false });
    expect(throwing).toMatchObject({ line: 8, runs: true });
  });

  it("reports type errors and unknown exports at their page and line", { timeout: 180_000 }, () => {
    const problems = typeCheckOnce()["sample.md"] ?? [];
    expect(
      problems.some((problem) => problem.startsWith("sample.md:2:") && problem.includes("NoSuchExport")),
    ).toBe(true);
    expect(problems.some((problem) => problem.startsWith("sample.md:3:"))).toBe(true);
  });

  it("reads the output shown beside a snippet: the block after it, and comments on console lines", () => {
    expect(shown.output?.map((line) => [line.line, line.text])).toEqual([
      [8, "task-… working"],
      [9, "⋮"],
      [10, "completed"],
    ]);
    expect(shown.inline).toEqual([{ line: 2, text: "task-… working" }]);
    expect(broken?.output).toBeUndefined();
  });

  it("compares printed lines with the shown output, ids and repeats allowed to vary", () => {
    expect(compareOutput(shown, ["task-8f2c working", "completed"])).toBeUndefined();
    expect(compareOutput(shown, ["task-1 working", "working", "working", "completed  "])).toBeUndefined();
    expect(compareOutput(shown, ["task-8f2c working"])).toMatch(/output shown at line 8/);
    expect(compareOutput(shown, ["task-8f2c working", "completed", "extra"])).toMatch(/output shown/);
    expect(compareOutput(shown, ["job-8f2c working", "completed"])).toMatch(/output shown/);
    const inlineOnly = { ...shown, output: undefined };
    expect(compareOutput(inlineOnly, ["first", "task-9 working", "last"])).toBeUndefined();
    expect(compareOutput(inlineOnly, ["completed"])).toMatch(/line 2 says it prints "task-… working"/);
  });

  it("catches a runnable snippet whose output differs from its page", async () => {
    const [snippet] = extractSnippets(
      ["```ts", 'console.log(["a", "b"].length); // 3', "```"].join("\n"),
    ) as [Snippet];
    expect(compareOutput(snippet, await printedBy(snippet.code))).toMatch(/says it prints "3"/);
  });

  it("fails a snippet that throws, and one that imports a module it does not serve", async () => {
    await expect(runSnippet(throwing!.code, MODULES, console)).rejects.toThrow("ran");
    await expect(runSnippet('import "node:fs";', MODULES, console)).rejects.toThrow('imports "node:fs"');
  });
});
