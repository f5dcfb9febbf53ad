/**
 * `mcp-tasks types` emits only what it generated: for each hostile schema below, the module is generated, written
 * to a private directory, transpiled and imported, and nothing of the server's runs (every payload would push its
 * name onto a global list); the module still holds only type declarations and type-checks under `strict`. The
 * first cases are the holes found in review (a `patternProperties` key with two comment ends, `tsType` under
 * `extends`, `tsType` under an unknown keyword reached by a local `$ref`, the server's name in the header); the
 * others come from reading json-schema-to-typescript: every place it writes schema text into the output.
 */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCompiler, typesModule } from "../../../src/cli/types-module.js";
import type { ToolInfo } from "../../../src/index.js";

declare global {
  var mcpTasksPwned: string[] | undefined;
}

/** A statement that records that the server's code ran. */
const ran = (label: string) => `globalThis.mcpTasksPwned.push(${JSON.stringify(label)});`;

interface HostileCase {
  name: string;
  tools: ToolInfo[];
  origin?: { name?: string; version?: string };
  /** Lines the module must hold, to show the case still generated a type (literal, after formatting). */
  expected: string[];
}

/** A tool with these arguments and nothing else. */
const takes = (name: string, inputSchema: Record<string, unknown>): ToolInfo => ({ name, inputSchema });

const cases: HostileCase[] = [
  {
    // json-schema-to-typescript escapes the first comment end of a pattern only, and writes its line breaks raw.
    name: "a patternProperties key with two comment ends",
    tools: [
      takes("patterns", {
        type: "object",
        patternProperties: {
          [`x*/ */ }; structuredContent: unknown } }; ${ran("patternProperties")} interface R { t: { a: { /*`]:
            {
              type: "string",
            },
        },
      }),
      takes("linesInPatterns", {
        type: "object",
        patternProperties: {
          "^a\r\n*/\u2028b$": { type: "number" },
          "^a\r\n*\\/\u2028b$": { type: "number" },
        },
      }),
    ],
    expected: [
      String.raw`       * via the ${"`patternProperty`"} "x*\/ *\/ }; structuredContent: unknown } }; globalThis.mcpTasksPwned.push("patternProperties"); interface R { t: { a: { /*".`,
      String.raw`       * via the ${"`patternProperty`"} "^a\r\n*\/\u2028b$".`,
      String.raw`       * via the ${"`patternProperty`"} "^a\r\n*\/\u2028b$ (2)".`,
      "      [k: string]: string;",
    ],
  },
  {
    name: "tsType under extends",
    tools: [
      takes("extending", {
        type: "object",
        properties: {
          value: {
            type: "object",
            properties: { a: { type: "string" } },
            extends: { title: "Base", tsType: `string;\n${ran("extends")}\nexport type Also = string` },
          },
        },
      }),
    ],
    expected: ["      value?: {\n        a?: string;\n      };"],
  },
  {
    name: "tsType under an unknown keyword, reached by a local $ref",
    tools: [
      takes("unknownKeyword", {
        type: "object",
        properties: { value: { $ref: "#/x-hidden/payload" } },
        "x-hidden": {
          payload: {
            title: "Payload",
            tsType: `string;\n${ran("unknown keyword")}\nexport type Also = string`,
          },
        },
      }),
    ],
    expected: ["      value?: unknown;"],
  },
  {
    name: "the server's name and version in the header",
    tools: [],
    origin: { name: `evil */ ${ran("header name")} /*`, version: `1 */ ${ran("header version")} /*` },
    expected: [
      ' * The tools of evil * / globalThis.mcpTasksPwned.push("header name"); /* 1 * / globalThis.mcpTasksPwned.push("header version"); /*, from',
    ],
  },
  {
    name: "the server's name with line terminators",
    tools: [],
    origin: { name: `evil\n*/\r${ran("header CR")}\u2028/*\u2029x` },
    expected: [
      ' * The tools of evil * / globalThis.mcpTasksPwned.push("header CR"); /* x, from its tools/list',
    ],
  },
  {
    // The normalizer writes `@minItems <value>` into the comment after it escaped the description.
    name: "a minItems or maxItems that is text",
    tools: [
      takes("bounds", {
        type: "object",
        properties: {
          list: {
            type: "array",
            items: { type: "string" },
            minItems: `*/ }; structuredContent: unknown } }; ${ran("minItems")} interface R { t: { a: { /*`,
          },
          other: {
            type: "array",
            items: { type: "string" },
            maxItems: `*/ }; structuredContent: unknown } }; ${ran("maxItems")} interface S { t: { a: { /*`,
          },
        },
      }),
    ],
    expected: ["      list?: string[];\n      other?: string[];"],
  },
  {
    name: "tsType on a property, in items, prefixItems, additionalProperties, allOf, anyOf, oneOf and $defs",
    tools: [
      takes("spliced", {
        type: "object",
        properties: {
          direct: { tsType: `string } } }\n${ran("tsType")}\ninterface R { t: { a: { b: string` },
          list: {
            type: "array",
            items: { type: "number", tsType: `number[] } } }\n${ran("items")}\ntype X = {` },
          },
          pair: {
            type: "array",
            prefixItems: [{ type: "string", tsType: `string] } } }\n${ran("prefixItems")}\ntype X = [` }],
          },
          map: {
            type: "object",
            additionalProperties: {
              type: "boolean",
              tsType: `boolean } } }\n${ran("additionalProperties")}\ntype X = {`,
            },
          },
          all: { allOf: [{ type: "string", tsType: `string } } }\n${ran("allOf")}\ntype X = {` }] },
          any: {
            anyOf: [
              { type: "string", tsType: `string } } }\n${ran("anyOf")}\ntype X = {` },
              { type: "null" },
            ],
          },
          one: {
            oneOf: [
              { type: "integer", tsType: `number } } }\n${ran("oneOf")}\ntype X = {` },
              { type: "null" },
            ],
          },
          defined: { $ref: "#/$defs/Thing" },
        },
        $defs: { Thing: { type: "string", tsType: `string;\n${ran("$defs")}\nexport type Also = string` } },
      }),
    ],
    expected: [
      "      direct?: unknown;",
      "      list?: number[];",
      "      pair?: [string, ...unknown[]];",
      "      map?: {\n        [k: string]: boolean;\n      };",
      "      all?: string;",
      "      any?: string | null;",
      "      one?: number | null;",
      "      defined?: string;",
    ],
  },
  {
    name: "tsEnumNames, and enum and const values that are code in a string",
    tools: [
      takes("named", {
        type: "object",
        properties: {
          level: {
            type: "string",
            enum: ['a"; } ' + ran("enum") + " //", "b\u2028*/"],
            tsEnumNames: [`A = 1 } ${ran("tsEnumNames")} enum Z { B`, "C"],
          },
          fixed: { const: `"} ${ran("const")}` },
          nested: { enum: [{ tsType: `string;\n${ran("enum object")}\nexport type Also = string` }, "x"] },
        },
      }),
    ],
    expected: [
      String.raw`      level?: 'a"; } globalThis.mcpTasksPwned.push("enum"); //' | "b\u2028*/";`,
      `      fixed?: '"} globalThis.mcpTasksPwned.push("const");';`,
      "      nested?: unknown;",
    ],
  },
  {
    name: "a $ref into an enum value, a default, examples, dependencies or not",
    tools: [
      takes("pointing", {
        type: "object",
        properties: {
          intoEnum: { $ref: "#/properties/carrier/enum/0" },
          intoDefault: { $ref: "#/default" },
          intoExamples: { $ref: "#/examples/0" },
          intoDependencies: { $ref: "#/dependencies/a" },
          intoNot: { $ref: "#/not" },
          intoRequired: { $ref: "#/required" },
          intoProperties: { $ref: "#/properties" },
          carrier: {
            enum: [{ title: "E", tsType: `string;\n${ran("$ref to enum")}\nexport type Also = string` }],
          },
        },
        default: { title: "D", tsType: `string;\n${ran("$ref to default")}\nexport type Also = string` },
        examples: [{ title: "X", tsType: `string;\n${ran("$ref to examples")}\nexport type Also = string` }],
        dependencies: {
          a: { title: "P", tsType: `string;\n${ran("$ref to dependencies")}\nexport type Also = string` },
        },
        not: { title: "N", tsType: `string;\n${ran("$ref to not")}\nexport type Also = string` },
        required: ["tsType"],
      }),
    ],
    expected: [
      "      intoEnum?: unknown;",
      "      intoDefault?: unknown;",
      "      intoExamples?: unknown;",
      "      intoDependencies?: unknown;",
      "      intoNot?: unknown;",
      "      intoRequired?: unknown;",
      "      intoProperties?: unknown;",
      "      carrier?: unknown;",
    ],
  },
  {
    // Not code, but a module that is not generated at all: the resolver stops on these.
    name: "references that loop, or that pass through a schema that is itself a reference",
    tools: [
      takes("looping", {
        type: "object",
        properties: { self: { $ref: "#/$defs/A" }, mutual: { $ref: "#/$defs/B" }, whole: { $ref: "#" } },
        $defs: {
          A: { $ref: "#/$defs/A", type: "string" },
          B: { $ref: "#/$defs/C" },
          C: { $ref: "#/$defs/B" },
        },
      }),
      takes("rooted", {
        $ref: "#/$defs/R",
        $defs: { R: { type: "object", properties: { x: { type: "string" } } } },
      }),
    ],
    expected: [
      "  looping: {\n    arguments: Arguments;",
      "  rooted: {\n    arguments: R;",
      "export interface Arguments {\n  self?: string;\n  mutual?: unknown;\n  whole?: Arguments;\n}",
      "export interface R {\n  x?: string;\n}",
    ],
  },
  {
    name: "descriptions, titles, $id, format and deprecated with comment ends and line terminators",
    tools: [
      {
        name: "described",
        title: `T */ ${ran("tool title")} /*`,
        description: `D */ ${ran("tool description")} /*\r// after a CR\u2028// after LS\u2029// after PS`,
        inputSchema: {
          type: "object",
          title: `*/ ${ran("title")} /*`,
          $id: `*/ ${ran("$id")} /*`,
          properties: {
            text: {
              type: "string",
              description: `a */ ${ran("description")} /* b\r\n*/ ${ran("description CRLF")} /*`,
              format: `*/ ${ran("format")} /*`,
              deprecated: `*/ ${ran("deprecated")} /*`,
              default: `*/ ${ran("default")} /*`,
              examples: [`*/ ${ran("examples")} /*`],
              $comment: `*/ ${ran("$comment")} /*`,
            },
          },
        },
      },
    ],
    expected: [
      '   * T * / globalThis.mcpTasksPwned.push("tool title"); /*\n   *\n   * D * / globalThis.mcpTasksPwned.push("tool description"); /*\n   * // after a CR\\u2028// after LS\\u2029// after PS\n',
      "export interface GlobalThisMcpTasksPwnedPushTitle {",
      '  /**\n   * a * / globalThis.mcpTasksPwned.push("description"); /* b\n   * * / globalThis.mcpTasksPwned.push("description CRLF"); /*\n   */\n  text?: string;',
    ],
  },
  {
    name: "property, definition and tool names with quotes, backslashes, comment ends and line terminators",
    tools: [
      takes("__proto__", { type: "object", properties: { inherited: { type: "string" } } }),
      {
        name: `tool"\\*/\n${ran("tool name")}\u2028`,
        inputSchema: {
          type: "object",
          required: ["__proto__"],
          properties: {
            // As JSON.parse makes them: own properties named `__proto__` and `constructor`.
            ...(JSON.parse('{"__proto__": {"type": "string"}, "constructor": {"type": "number"}}') as object),
            [`a"b\\c\nd\u2028e*/f ${ran("property name")}`]: { type: "string" },
            self: { $ref: "#" },
            defined: { $ref: `#/$defs/${encodeURIComponent("*/ x~1y")}` },
          },
          $defs: { [`*/ x/y`]: { type: "object", properties: { ok: { type: "boolean" } } } },
        },
      },
    ],
    expected: [
      "  __proto__: {\n    arguments: {\n      inherited?: string;\n    };",
      String.raw`  'tool"\\*/\nglobalThis.mcpTasksPwned.push("tool name");\u2028': {`,
      "    arguments: Arguments;",
      "export interface Arguments {\n  __proto__: string;\n  constructor?: number;",
      String.raw`  'a"b\\c\nd\u2028e*/f globalThis.mcpTasksPwned.push("property name");'?: string;`,
      "  self?: Arguments;\n  defined?: X1Y;\n}\nexport interface X1Y {\n  ok?: boolean;\n}",
    ],
  },
];

/** Each case's module, written to a private directory, or why it could not be generated. */
const generated = new Map<string, { file: string; source: string } | { error: unknown }>();
let dir: string;

beforeAll(async () => {
  const compile = await loadCompiler();
  dir = mkdtempSync(join(tmpdir(), "mcp-tasks-types-"));
  chmodSync(dir, 0o700);
  for (const [index, hostile] of cases.entries()) {
    try {
      const source = await typesModule(hostile.tools, compile, hostile.origin ?? {});
      const file = join(dir, `tools-${index}.ts`);
      writeFileSync(file, source, { mode: 0o600 });
      generated.set(hostile.name, { file, source });
    } catch (error) {
      generated.set(hostile.name, { error });
    }
  }
}, 60_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  delete globalThis.mcpTasksPwned;
});

/** A case's module; its generation's failure fails the test. */
function moduleOf(name: string): { file: string; source: string } {
  const result = generated.get(name);
  if (result === undefined) throw new Error(`no module for ${name}`);
  if ("error" in result) throw result.error;
  return result;
}

/** The module's top-level statements, as `kind name`. */
function declarations(source: string): string[] {
  const file = ts.createSourceFile("tools.ts", source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  return file.statements.map((statement) => {
    const name = (statement as { name?: ts.Identifier }).name?.text ?? "?";
    return `${ts.SyntaxKind[statement.kind]} ${name}`;
  });
}

describe("mcp-tasks types emits only what it generated", () => {
  it.each(cases.map((hostile) => [hostile.name, hostile] as const))(
    "%s: nothing of the server runs when the module is imported",
    async (name, hostile) => {
      const { file, source } = moduleOf(name);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const javascript = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const compiled = file.replace(/\.ts$/, ".mjs");
      writeFileSync(compiled, javascript, { mode: 0o600 });
      globalThis.mcpTasksPwned = [];
      await import(pathToFileURL(compiled).href);
      expect(globalThis.mcpTasksPwned).toEqual([]);

      // Types only: no statement survives transpiling, and every declaration is an exported type.
      expect(javascript.replace(/\/\*[\s\S]*?\*\//g, "").trim()).toBe("export {};");
      for (const declaration of declarations(source)) {
        expect(declaration).toMatch(/^(InterfaceDeclaration|TypeAliasDeclaration) [A-Za-z_$][\w$]*$/);
      }
      expect(source).not.toMatch(/[\r\u2028\u2029\u202a-\u202e\u2066-\u2069]/u);
      for (const line of hostile.expected) expect(source).toContain(line);
    },
  );

  it("every module type-checks under strict", () => {
    const files = cases.map((hostile) => moduleOf(hostile.name).file);
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      types: [],
    };
    const program = ts.createProgram(files, options);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (diagnostic) =>
          `${diagnostic.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`,
      );
    expect(problems).toEqual([]);
  }, 60_000);
});
