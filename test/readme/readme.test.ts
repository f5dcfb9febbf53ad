/**
 * The README is tested.
 *
 * 1. Every ```ts snippet of README.md is type-checked, all of them in one TypeScript program, with the options of
 *    a strict user project (`strict`, `exactOptionalPropertyTypes`) and `mcp-tasks`, `mcp-tasks/testing` and
 *    `mcp-tasks/schema` mapped to the sources. A snippet is a module of its own: it imports what it uses, and
 *    names it leaves to the reader are declared in the README itself (`declare const signal: AbortSignal;`).
 * 2. Every snippet marked `<!-- runs -->` (an HTML comment on the line before its fence, invisible on GitHub)
 *    is executed against the reference server. The mechanism, with no tsx and no files written:
 *    `ts.transpileModule` compiles the snippet to CommonJS, which runs as the body of an async function whose
 *    `require` serves only the three package entry points (imported here through the vitest aliases, so the
 *    sources) and whose `console` is captured. The README's server URL, `http://127.0.0.1:3000/mcp` (what
 *    `npx mcp-tasks-server --port 3000` prints), is replaced with the URL of a `startTaskServer()` on
 *    127.0.0.1 serving the fixture tools at a hundredth of their timing; a runnable snippet that does not use
 *    that exact URL must start its own server. A snippet passes when it finishes without throwing, and one that
 *    uses the URL must have called the server, and only tools the server has.
 * 3. The list of the reference server's tools is the `--help` text generated from their definitions.
 * 4. The harness itself can fail: a snippet with a type error, an unknown export or a throw is caught.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as mcpTasks from "mcp-tasks";
import * as mcpTasksSchema from "mcp-tasks/schema";
import * as mcpTasksTesting from "mcp-tasks/testing";
import * as v1Client from "@modelcontextprotocol/sdk/client/index.js";
import * as v1Http from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as v1Types from "@modelcontextprotocol/sdk/types.js";
import * as otelTraceBase from "@opentelemetry/sdk-trace-base";
import { describeTools, fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { ROOT, extractSnippets, readmeSnippets, runSnippet, typeCheckSnippets } from "./snippets.js";

const README_URL = "http://127.0.0.1:3000/mcp";
const MODULES = {
  "mcp-tasks": mcpTasks,
  "mcp-tasks/schema": mcpTasksSchema,
  "mcp-tasks/testing": mcpTasksTesting,
  // The v1 SDK, for the snippet that drives the kit's 2025-11-25 mode with the v1 Client.
  "@modelcontextprotocol/sdk/client/index.js": v1Client,
  "@modelcontextprotocol/sdk/client/streamableHttp.js": v1Http,
  "@modelcontextprotocol/sdk/types.js": v1Types,
  // The OpenTelemetry SDK, for the Observability snippet that prints a task's spans.
  "@opentelemetry/sdk-trace-base": otelTraceBase,
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

/** The README's snippets and the broken sample, type-checked together: one program, built once. */
let checked: Record<string, string[]> | undefined;
function typeCheckOnce(): Record<string, string[]> {
  checked ??= typeCheckSnippets({ "README.md": snippets, "sample.md": [broken!] });
  return checked;
}
const snippets = readmeSnippets();
const runnable = snippets.filter((snippet) => snippet.runs);

describe("README.md", () => {
  it("has TypeScript snippets, and some of them run", () => {
    expect(snippets.length).toBeGreaterThan(10);
    expect(runnable.length).toBeGreaterThanOrEqual(4);
  });

  it("shows the reference server's tools exactly as mcp-tasks-server --help prints them", () => {
    const fenced = ["```text", describeTools(fixtureTools())].join("\n");
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain(`${fenced}\`\`\`\n`);
  });

  it(
    "type-checks every ts snippet (strict, exactOptionalPropertyTypes) in one program",
    { timeout: 180_000 },
    () => {
      expect(typeCheckOnce()["README.md"]).toEqual([]);
    },
  );

  describe("runs the snippets marked <!-- runs --> against the reference server", () => {
    let server: HttpTaskServer;
    beforeAll(async () => {
      server = await startTaskServer({ tools: fixtureTools({ timeScale: 0.01 }) });
    });
    afterAll(async () => {
      await server.close();
    });

    it.each(runnable.map((snippet) => ({ ...snippet, name: `README.md:${snippet.line}` })))(
      "$name",
      { timeout: 60_000 },
      async ({ code }) => {
        server.requests.clear();
        const lines: string[] = [];
        const capture = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
        const usesServer = code.includes(README_URL);
        await runSnippet(code.replaceAll(README_URL, server.url), MODULES, {
          log: capture,
          warn: capture,
          error: capture,
        });
        if (!usesServer) return;
        const calls = server.requests.forMethod("tools/call");
        expect(calls.length).toBeGreaterThan(0);
        // outcome() never rejects, so a call to a tool the server lacks would not throw: check the names.
        for (const call of calls)
          expect(SERVED).toContain((call.body as { params: { name: string } }).params.name);
      },
    );
  });
});

describe("the README harness", () => {
  it("finds fences, their lines and the runs marker", () => {
    expect(broken).toMatchObject({ line: 1, runs: false });
    expect(throwing).toMatchObject({ line: 8, runs: true });
  });

  it("reports type errors and unknown exports at their README line", { timeout: 180_000 }, () => {
    const problems = typeCheckOnce()["sample.md"] ?? [];
    expect(
      problems.some((problem) => problem.startsWith("sample.md:2:") && problem.includes("NoSuchExport")),
    ).toBe(true);
    expect(problems.some((problem) => problem.startsWith("sample.md:3:"))).toBe(true);
  });

  it("fails a snippet that throws, and one that imports a module it does not serve", async () => {
    await expect(runSnippet(throwing!.code, MODULES, console)).rejects.toThrow("ran");
    await expect(runSnippet('import "node:fs";', MODULES, console)).rejects.toThrow('imports "node:fs"');
  });
});
