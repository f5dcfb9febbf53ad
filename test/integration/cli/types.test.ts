/**
 * `mcp-tasks types`, the built command, against the reference server. The module it prints is
 * code a user commits, made from a server's schemas: a server cannot put code into it (through `tsType`, a
 * description's comment end, a line separator or a bidirectional mark), nor make the command fetch a URL or read a
 * file (through a `$ref`). It works over stdio too.
 */
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, startTaskServer, type HttpTaskServer } from "../../../src/testing/index.js";
import { ROOT } from "../../package/packed.js";
import { runCli, stateDir } from "./harness.js";

let server: HttpTaskServer;
let bait: Server;
let baitHits = 0;
const state = stateDir();

beforeAll(async () => {
  // A server the schemas point at: the command must never ask it for anything.
  bait = createServer((_request, response) => {
    baitHits += 1;
    response.end('{"type":"string","tsType":"never"}');
  });
  await new Promise<void>((resolve) => bait.listen(0, "127.0.0.1", resolve));
  const address = bait.address();
  const baitUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/schema.json`;
  server = await startTaskServer({
    tools: [
      defineTool({
        name: "hostile",
        title: "Evil */ title",
        description: "Ends the comment */ declare const leaked: 1; /*\u2028// after a line separator\u202e",
        inputSchema: {
          type: "object",
          $id: "http://127.0.0.1:9/base/",
          properties: {
            spliced: { tsType: "string; } declare const pwned: 1; interface Again {" },
            fetched: { $ref: baitUrl },
            relative: { $ref: "other.json" },
            local: { $ref: "/etc/hostname" },
            named: { enum: ["a", "b"], tsEnumNames: ["A */ declare const enumPwned: 1; /*", "B"] },
            'quote"and*/': { type: "string", description: "A */ property" },
            self: { $ref: "#" },
          },
        },
        outputSchema: {
          type: "object",
          properties: { value: { $ref: "#/$defs/Value" } },
          $defs: { Value: { type: "string", description: "ok" } },
        },
        steps: [],
      }),
    ],
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => bait?.close(resolve));
  state.remove();
});

/** The top-level statements of a module, as `kind name`. */
function declarations(source: string): string[] {
  const file = ts.createSourceFile("tools.ts", source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  return file.statements.map((statement) => {
    const name = (statement as { name?: ts.Identifier }).name?.text ?? "?";
    return `${ts.SyntaxKind[statement.kind]} ${name}`;
  });
}

/** Type-checks one module on its own; resolves with the diagnostics. */
function diagnostics(source: string): string[] {
  const fileName = join(ROOT, "generated-tools.ts");
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (name) => (name === fileName ? source : read(name));
  host.fileExists = (
    (exists) => (name: string) =>
      name === fileName || exists(name)
  )(host.fileExists.bind(host));
  const program = ts.createProgram([fileName], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}

describe("mcp-tasks types", () => {
  it("prints a module a server's schemas cannot put code into, fetching and reading nothing they name", async () => {
    const run = await runCli(["types", server.url], state.env, 60_000);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const source = run.stdout;
    expect(declarations(source)).toEqual(["InterfaceDeclaration Tools", "InterfaceDeclaration Arguments"]);
    expect(diagnostics(source)).toEqual([]);
    expect(source).not.toMatch(/pwned|Again/); // the spliced code is gone, not merely commented out
    expect(source).toContain(
      "   * Evil * / title\n   *\n   * Ends the comment * / declare const leaked: 1; /*\\u2028// after a line separator\\u202e\n",
    );
    expect(source).toContain(
      "  spliced?: unknown;\n  fetched?: unknown;\n  relative?: unknown;\n  local?: unknown;",
    );
    expect(source).toContain('  named?: "a" | "b";');
    expect(source).toContain("  self?: Arguments;");
    expect(source).toContain("      value?: string;\n");
    expect(source).not.toMatch(/[\u2028\u2029\u202a-\u202e\u2066-\u2069]/u);
    expect(baitHits).toBe(0);
  }, 90_000);

  it("reads a stdio server's tools after `--`", async () => {
    const stdioServer = [
      process.execPath,
      "--input-type=module",
      "-e",
      `const m = await import(${JSON.stringify(join(ROOT, "dist/testing/index.js"))}); await m.taskServerMain(["--stdio"]);`,
    ];
    const run = await runCli(["types", "--", ...stdioServer], state.env, 60_000);
    expect(run.code).toBe(0);
    expect(declarations(run.stdout)[0]).toBe("InterfaceDeclaration Tools");
    expect(run.stdout).toMatch(
      /^ {2}greet: \{\n {4}arguments: \{\n {6}name: string;\n {4}\};\n {4}structuredContent: unknown;\n {2}\};$/m,
    );
  }, 90_000);
});
