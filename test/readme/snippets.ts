/**
 * The TypeScript snippets of the README and the guides under docs/, as the docs test sees them: extracted from the ```ts fences, type-checked
 * together in one TypeScript program, and (for the ones marked `<!-- runs -->`) compiled to plain JavaScript
 * that the test can execute.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The marker a snippet's fence is preceded by (on the nearest non-blank line) when the test runs it. */
export const RUNS_MARKER = "<!-- runs -->";

/** A line the README says a snippet prints, and where it says so. */
export interface ShownLine {
  /** 1-based line of the markdown file. */
  line: number;
  text: string;
}

export interface Snippet {
  /** 1-based line of the opening fence in the markdown file. */
  line: number;
  code: string;
  runs: boolean;
  /**
   * The snippet's whole output, when a ```text fence follows it with only blank lines between: every line it
   * prints, in order.
   */
  output?: ShownLine[];
  /** The trailing `// ` comments of its lines that call `console.log`, `.warn` or `.error`: lines it prints. */
  inline: ShownLine[];
}

/** A statement that prints, then a comment: the comment is what it prints. */
const PRINTS_WITH_COMMENT = /\bconsole\.(?:log|warn|error)\(.*\);?\s+\/\/ (.*)$/;

/** Every ```ts (or ```typescript) block of a markdown text, in order, with the output shown beside it. */
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
    const inline = body.flatMap((text, offset) => {
      const shown = PRINTS_WITH_COMMENT.exec(text)?.[1];
      return shown === undefined ? [] : [{ line: start + 2 + offset, text: shown }];
    });
    const snippet: Snippet = {
      line: start + 1,
      code: body.join("\n"),
      runs: lines[previous]?.trim() === RUNS_MARKER,
      inline,
    };
    const output = followingTextBlock(lines, index + 1);
    if (output !== undefined) snippet.output = output;
    snippets.push(snippet);
  }
  return snippets;
}

/** The lines of a ```text fence that starts at `from` or after only blank lines, or undefined. */
function followingTextBlock(lines: readonly string[], from: number): ShownLine[] | undefined {
  let index = from;
  while (index < lines.length && lines[index]!.trim() === "") index++;
  if (!/^```text\s*$/.test(lines[index] ?? "")) return undefined;
  const shown: ShownLine[] = [];
  for (index++; index < lines.length && !/^```\s*$/.test(lines[index] ?? ""); index++)
    shown.push({ line: index + 1, text: lines[index]! });
  if (index >= lines.length) throw new Error(`the text fence at line ${from + 1} is never closed`);
  return shown;
}

/** In shown output, `…` stands for any text within a line; a line that is only `⋮` for any number of lines. */
export const ANY_TEXT = "…";
export const ANY_LINES = "⋮";

function linePattern(shown: string): RegExp {
  const parts = shown
    .trimEnd()
    .split(ANY_TEXT)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`, "s");
}

/**
 * Compares printed lines with a snippet's shown output. Trailing whitespace does not count. With an output
 * block, the printed lines must be exactly its lines; inline comments must each match a printed line, in order
 * (other lines may come between). Returns the first disagreement, or undefined when they agree.
 */
export function compareOutput(snippet: Snippet, printed: readonly string[]): string | undefined {
  const actual = printed.map((text) => text.trimEnd());
  if (snippet.output !== undefined) {
    const expected = snippet.output;
    if (
      !matchLines(
        expected.map((shown) => shown.text),
        actual,
      )
    ) {
      return (
        `the output shown at line ${expected[0]?.line ?? snippet.line} is not what the snippet printed:\n` +
        `shown:\n${expected.map((shown) => `  ${shown.text}`).join("\n")}\n` +
        `printed:\n${actual.map((text) => `  ${text}`).join("\n")}`
      );
    }
  }
  let cursor = 0;
  for (const shown of snippet.inline) {
    const pattern = linePattern(shown.text);
    while (cursor < actual.length && !pattern.test(actual[cursor]!)) cursor++;
    if (cursor === actual.length) {
      return (
        `line ${shown.line} says it prints ${JSON.stringify(shown.text)}, which is not among the lines it printed ` +
        `(in order):\n${actual.map((text) => `  ${text}`).join("\n")}`
      );
    }
    cursor++;
  }
  return undefined;
}

/** Whether `actual` is exactly `expected`, with `…` and `⋮` as wildcards. */
function matchLines(expected: readonly string[], actual: readonly string[]): boolean {
  const patterns = expected.map((text) => (text.trim() === ANY_LINES ? undefined : linePattern(text)));
  // matches[i][j]: expected[i..] matches actual[j..].
  const matches = (i: number, j: number, memo = new Map<string, boolean>()): boolean => {
    const key = `${i},${j}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === patterns.length) result = j === actual.length;
    else {
      const pattern = patterns[i];
      if (pattern === undefined)
        result = matches(i + 1, j, memo) || (j < actual.length && matches(i, j + 1, memo));
      else result = j < actual.length && pattern.test(actual[j]!) && matches(i + 1, j + 1, memo);
    }
    memo.set(key, result);
    return result;
  };
  return matches(0, 0);
}

/**
 * The documents whose snippets and links are tested, relative to the root: README.md, then every markdown page
 * under docs/ (sorted; docs/dist/, the built site, is not a source).
 */
export function documentPaths(): string[] {
  const guides = readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .map((path) => path.split(sep).join("/"))
    .filter((path) => path.endsWith(".md") && !path.startsWith("dist/"))
    .sort()
    .map((path) => `docs/${path}`);
  return ["README.md", ...guides];
}

/** The snippets of every tested document, by its path relative to the root. */
export function documentSnippets(): Record<string, Snippet[]> {
  return Object.fromEntries(
    documentPaths().map((path) => [path, extractSnippets(readFileSync(join(ROOT, path), "utf8"))]),
  );
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
    "mcp-tasks/oauth": [join(ROOT, "src/auth/oauth/index.ts")],
    "mcp-tasks/telemetry": [join(ROOT, "src/telemetry/index.ts")],
    "mcp-tasks/json-schema": [join(ROOT, "src/tools/json-schema-validator.ts")],
    "mcp-tasks/ai-sdk": [join(ROOT, "src/bridges/ai-sdk.ts")],
    "mcp-tasks/langchain": [join(ROOT, "src/bridges/langchain.ts")],
    "mcp-tasks/openai-agents": [join(ROOT, "src/bridges/openai-agents.ts")],
    "mcp-tasks/host": [join(ROOT, "src/host/index.ts")],
    "mcp-tasks/temporal": [join(ROOT, "src/engines/temporal.ts")],
    "mcp-tasks/restate": [join(ROOT, "src/engines/restate.ts")],
    "mcp-tasks/cloudflare": [join(ROOT, "src/engines/cloudflare.ts")],
    "mcp-tasks/transport": [join(ROOT, "src/session/index.ts")],
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
