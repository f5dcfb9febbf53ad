/**
 * Typed tools end to end. The real `mcp-tasks types` command generates `Tools` from the reference
 * kit's tools (served over Streamable HTTP); a consumer of the packed package, typed with it, compiles its correct
 * use and fails on every misuse marked `@ts-expect-error` (a wrong tool name, argument or result type), and an
 * editor shows the result as `ToolResult<…>` of the tool's output type. In a production install, where the optional
 * peer json-schema-to-typescript is missing, the command says what to install.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, startTaskServer, step, structuredResult, type HttpTaskServer } from "mcp-tasks/testing";
import { packedConsumer, ROOT, type Consumer } from "./packed.js";

const exec = promisify(execFile);

const NUMBERS = {
  type: "object",
  properties: { a: { type: "number", description: "The first term." }, b: { type: "number" } },
  required: ["a", "b"],
};
const SUM = { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] };

/** The reference kit's typed tools the consumer is typed with. */
const TOOLS = [
  defineTool({
    name: "add",
    description: "Adds two numbers at once.",
    inputSchema: NUMBERS,
    outputSchema: SUM,
    task: "never",
    steps: [step.complete(structuredResult({ sum: 3 }))],
  }),
  defineTool({
    name: "slow_add",
    description: "Adds two numbers, as a task.",
    inputSchema: NUMBERS,
    outputSchema: SUM,
    task: "required",
    steps: [step.complete(structuredResult({ sum: 3 }))],
  }),
  defineTool({
    name: "find-items",
    description: "Finds items by tag.\n\nReturns at most `limit` of them.",
    inputSchema: {
      type: "object",
      properties: { tag: { type: "string" }, limit: { type: "integer", minimum: 1 } },
      required: ["tag"],
    },
    outputSchema: {
      type: "object",
      properties: { items: { type: "array", items: { $ref: "#/$defs/Item" } } },
      required: ["items"],
      $defs: { Item: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
    },
    steps: [step.complete(structuredResult({ items: [] }))],
  }),
  defineTool({ name: "ping", task: "never", steps: [step.complete(structuredResult({}))] }),
];

const CONSUMER = `import { TaskClient, type TaskRef, type ToolResult } from "mcp-tasks";
import type { Tools } from "./tools.js";

export async function typed(url: string): Promise<number> {
  const client = await TaskClient.connect<Tools>(url);
  const added = await client.callTool("add", { a: 1, b: 2 });
  if (added.isError) return -1;
  const sum: number = added.structuredContent.sum;

  const handle = client.callTool("slow_add", { a: 1, b: 2 }, { timeoutMs: 1000 });
  const ref: TaskRef<"slow_add"> | undefined = await handle.ref;
  if (ref !== undefined) {
    const again: ToolResult<{ sum: number }> = await client.task(ref);
    if (!again.isError) console.log(again.structuredContent.sum.toFixed(1));
  }
  const found = await client.callTool("find-items", { tag: "red" });
  if (!found.isError) for (const item of found.structuredContent.items) console.log(item.id.toUpperCase());
  await client.callTool("ping");
  const plain: TaskClient = client; // a typed client goes wherever a client goes (the bridges, helpers)
  void plain;

  // @ts-expect-error a tool the server does not have
  void client.callTool("subtract", { a: 1, b: 2 });
  // @ts-expect-error an argument of the wrong type
  void client.callTool("add", { a: "1", b: 2 });
  // @ts-expect-error a required argument missing
  void client.callTool("add", { a: 1 });
  // @ts-expect-error an argument the tool does not take
  void client.callTool("add", { a: 1, b: 2, c: 3 });
  // @ts-expect-error no arguments for a tool that needs some
  void client.callTool("add");
  // @ts-expect-error the result is a number, not a string
  const wrong: string = added.structuredContent.sum;
  // @ts-expect-error a field the result does not have
  void added.structuredContent.total;
  const unchecked = await client.callTool("slow_add", { a: 1, b: 2 });
  // @ts-expect-error a tool error carries no checked structuredContent: test isError first
  void unchecked.structuredContent.sum;
  void wrong;
  return sum;
}

export async function untyped(url: string, name: string): Promise<string | undefined> {
  const client = await TaskClient.connect(url);
  const result = await client.callTool(name, { anything: [1, "two"] });
  const structured: Record<string, unknown> | undefined = result.structuredContent;
  const again = await client.task("task-id");
  return typeof structured?.text === "string" ? structured.text : again.content[0]?.type;
}
`;

let consumer: Consumer;
let server: HttpTaskServer;
let generated: string;

beforeAll(async () => {
  [consumer, server] = await Promise.all([packedConsumer(), startTaskServer({ tools: TOOLS })]);
  const bin = join(ROOT, "bin", "mcp-tasks.js");
  const env = { ...process.env, MCP_TASKS_CLI_BUILT: "1" };
  const { stdout } = await exec(process.execPath, [bin, "types", server.url], { env, timeout: 60_000 });
  generated = stdout;
  writeFileSync(join(consumer.dir, "tools.ts"), generated);
  writeFileSync(join(consumer.dir, "consumer.ts"), CONSUMER);
  writeFileSync(
    join(consumer.dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022", "DOM", "ESNext.Disposable"],
        types: [],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        skipLibCheck: false,
      },
      files: ["consumer.ts", "tools.ts"],
    }),
  );
}, 120_000);

afterAll(async () => {
  await server?.close();
  consumer?.remove();
});

describe("typed tools from `mcp-tasks types`", () => {
  it("generates Tools: per tool its arguments, its structured result and its description as TSDoc", () => {
    expect(generated).toMatch(
      /^\/\* eslint-disable \*\/\n\/\*\*\n \* The tools of mcp-tasks-reference-server /,
    );
    for (const fragment of [
      "export interface Tools {",
      "  /**\n   * Adds two numbers at once.\n   */\n  add: {\n    arguments: {\n      /**\n       * The first term.\n       */\n      a: number;\n      b: number;\n    };\n    structuredContent: {\n      sum: number;\n    };\n  };",
      '  /**\n   * Finds items by tag.\n   *\n   * Returns at most `limit` of them.\n   */\n  "find-items": {',
      "      tag: string;\n      limit?: number;",
      "      items: Item[];",
      "export interface Item {\n  id: string;\n}",
      "  ping: {\n    arguments: {};\n    structuredContent: unknown;\n  };",
    ])
      expect(generated).toContain(fragment);
    // Sorted by name, so the file changes only when the tools do.
    const names = [...generated.matchAll(/^ {2}("?[\w-]+"?): \{$/gm)].map((match) => match[1]);
    expect(names).toEqual(["add", '"find-items"', "ping", "slow_add"]);
  });

  it("compiles a consumer's correct use and fails each misuse marked @ts-expect-error", async () => {
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const result = await exec(process.execPath, [tsc, "-p", consumer.dir], { cwd: consumer.dir }).then(
      () => ({ stdout: "" }),
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? "tsc failed" }),
    );
    expect(result.stdout).toBe("");
  }, 120_000);

  it("shows an editor the result as ToolResult of the tool's type and the arguments as written", () => {
    const file = join(consumer.dir, "consumer.ts");
    const service = ts.createLanguageService(
      {
        getCompilationSettings: () => ({
          strict: true,
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.NodeNext,
          moduleResolution: ts.ModuleResolutionKind.NodeNext,
          types: [],
        }),
        getScriptFileNames: () => [file],
        getScriptVersion: () => "1",
        getScriptSnapshot: (name) => {
          const text = ts.sys.readFile(name);
          return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
        },
        getCurrentDirectory: () => consumer.dir,
        getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
        fileExists: ts.sys.fileExists,
        readFile: ts.sys.readFile,
        readDirectory: ts.sys.readDirectory,
        directoryExists: ts.sys.directoryExists,
        getDirectories: ts.sys.getDirectories,
      },
      ts.createDocumentRegistry(),
    );
    const hover = (marker: string, offset = 0) => {
      const at = CONSUMER.indexOf(marker) + offset;
      const info = service.getQuickInfoAtPosition(file, at);
      return ts.displayPartsToString(info?.displayParts ?? []);
    };
    expect(hover("added = ", 0)).toBe("const added: ToolResult<{\n    sum: number;\n}>");
    expect(hover('callTool("add", { a: 1, b: 2 })', 0)).toBe(
      '(method) TaskClient<Tools>.callTool<"add">(name: "add", args: {\n    a: number;\n    b: number;\n}, ' +
        'options?: CallToolOptions | undefined): TaskHandle<ToolResult<{\n    sum: number;\n}>, "add">',
    );
  });
});

describe("`mcp-tasks types` in a production install", () => {
  it("fails naming json-schema-to-typescript, the optional peer to install", async () => {
    const bin = join(consumer.dir, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    chmodSync(join(consumer.packageDir, "bin", "mcp-tasks.js"), 0o755);
    symlinkSync(join("..", "mcp-tasks", "bin", "mcp-tasks.js"), join(bin, "mcp-tasks"));
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
    env.npm_config_yes = "false";
    const failure = await exec("npx", ["mcp-tasks", "types", server.url], {
      cwd: consumer.dir,
      env,
      timeout: 30_000,
    }).then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(3);
    expect(failure?.stdout).toBe("");
    expect(failure?.stderr).toBe(
      "mcp-tasks: mcp-tasks types needs json-schema-to-typescript, an optional peer dependency that is not " +
        "installed: npm install --save-dev json-schema-to-typescript\n",
    );
  }, 60_000);
});
