/**
 * The README's TypeScript snippets, as the README test sees them: extracted from the ```ts fences, type-checked
 * together in one TypeScript program, and (for the ones marked `<!-- runs -->`) compiled to plain JavaScript
 * that the test can execute.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The marker a snippet's fence is preceded by (on the nearest non-blank line) when the test runs it. */
export const RUNS_MARKER = "<!-- runs -->";

export interface Snippet {
  /** 1-based line of the opening fence in the markdown file. */
  line: number;
  code: string;
  runs: boolean;
}

/** Every ```ts (or ```typescript) block of a markdown text, in order. */
export function extractSnippets(markdown: string): Snippet[] {
  const lines = markdown.split("\n");
  const snippets: Snippet[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[index] ?? "")) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^```\s*$/.test(lines[index] ?? ""); index++)
      body.push(lines[index]!);
    if (index >= lines.length) throw new Error(`the ts fence at line ${start + 1} is never closed`);
    let previous = start - 1;
    while (previous >= 0 && lines[previous]!.trim() === "") previous--;
    snippets.push({ line: start + 1, code: body.join("\n"), runs: lines[previous]?.trim() === RUNS_MARKER });
  }
  return snippets;
}

export function readmeSnippets(): Snippet[] {
  return extractSnippets(readFileSync(join(ROOT, "README.md"), "utf8"));
}

/**
 * The options a strict user project would use: `strict`, `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`,
 * and the package names mapped to the sources, as `package.json` "exports" maps them to the build.
 */
export const SNIPPET_COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts", "lib.esnext.disposable.d.ts"],
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  esModuleInterop: true,
  skipLibCheck: true,
  types: ["node"],
  noEmit: true,
  paths: {
    "mcp-tasks": [join(ROOT, "src/index.ts")],
    "mcp-tasks/schema": [join(ROOT, "src/schema/index.ts")],
    "mcp-tasks/testing": [join(ROOT, "src/testing/index.ts")],
    "mcp-tasks/store": [join(ROOT, "src/store/index.ts")],
    "mcp-tasks/store/redis": [join(ROOT, "src/store/redis.ts")],
    "mcp-tasks/ai-sdk": [join(ROOT, "src/bridges/ai-sdk.ts")],
    "mcp-tasks/langchain": [join(ROOT, "src/bridges/langchain.ts")],
    "mcp-tasks/openai-agents": [join(ROOT, "src/bridges/openai-agents.ts")],
  },
};

/** Each snippet is its own module (top-level `await`, no names shared between snippets). */
function asModule(code: string): string {
  return `${code}\nexport {};\n`;
}

/**
 * Type-checks snippets of several documents in one TypeScript program (the snippets are served from memory,
 * as files next to the README; everything else comes from disk). Returns, per document label, one readable
 * line per error found in its snippets, `<label>:<line>: <message>`, with `<line>` the document line of the
 * error. Errors inside the library sources are not the README's business: `npm run typecheck` covers them.
 */
export function typeCheckSnippets(
  documents: Readonly<Record<string, readonly Snippet[]>>,
): Record<string, string[]> {
  const files = new Map<string, { label: string; snippet: Snippet }>();
  for (const [label, snippets] of Object.entries(documents)) {
    for (const snippet of snippets)
      files.set(join(ROOT, `${label}.line-${snippet.line}.ts`), { label, snippet });
  }
  const host = ts.createCompilerHost(SNIPPET_COMPILER_OPTIONS, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.readFile = (name) => {
    const file = files.get(name);
    return file ? asModule(file.snippet.code) : readFile.call(host, name);
  };
  host.getSourceFile = (name, languageVersion, ...rest) => {
    const file = files.get(name);
    if (file) return ts.createSourceFile(name, asModule(file.snippet.code), languageVersion, true);
    return getSourceFile.call(host, name, languageVersion, ...rest);
  };
  const program = ts.createProgram([...files.keys()], SNIPPET_COMPILER_OPTIONS, host);
  const problems: Record<string, string[]> = Object.fromEntries(
    Object.keys(documents).map((label) => [label, []]),
  );
  for (const [name, { label, snippet }] of files) {
    const sourceFile = program.getSourceFile(name);
    if (!sourceFile)
      throw new Error(`the snippet at ${label}:${snippet.line} did not make it into the program`);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(sourceFile),
      ...program.getSemanticDiagnostics(sourceFile),
    ];
    for (const diagnostic of diagnostics) {
      const { line } = sourceFile.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
      problems[label]!.push(`${label}:${snippet.line + 1 + line}: ${message}`);
    }
  }
  return problems;
}

/** The modules a runnable snippet may import; anything else is an error. */
export type SnippetModules = Readonly<Record<string, unknown>>;

/**
 * Runs one snippet: TypeScript's `transpileModule` turns it into CommonJS (types and `declare` lines erased,
 * `await using` lowered), and the result runs as the body of an async function whose `require` serves only
 * `modules` and whose `console` is `output`. Resolves when the snippet's last statement has finished.
 */
export async function runSnippet(
  code: string,
  modules: SnippetModules,
  output: Pick<Console, "log" | "warn" | "error">,
): Promise<void> {
  const { outputText } = ts.transpileModule(code, {
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      esModuleInterop: true,
    },
    reportDiagnostics: false,
  });
  const require = (name: string): unknown => {
    if (!(name in modules))
      throw new Error(`a runnable README snippet imports "${name}", which the test does not serve`);
    return modules[name];
  };
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
    ...args: string[]
  ) => (...values: unknown[]) => Promise<void>;
  const body = new AsyncFunction("require", "exports", "console", outputText);
  await body(require, {}, output);
}
