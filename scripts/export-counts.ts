/**
 * The size of the public surface: every name each package entry exports (values and types together), read with
 * the TypeScript compiler over the entries' sources (package.json "exports", resolved through tsconfig.json
 * "paths", as the build does). `npm run exports` prints a table of counts per entry; `npm run exports -- --list`
 * prints every name as well. The surface test (test/package/surface.test.ts) holds the main entry to its budget.
 *
 * A name is counted once whether it is a value, a type or both (a class is both). An error class is an exported
 * class whose chain of base classes reaches `Error`.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export interface EntryExports {
  /** The import specifier, e.g. `mcp-tasks/store`. */
  entry: string;
  /** Every exported name, sorted. */
  names: string[];
  /** The names that exist at run time (functions, classes, constants). */
  values: string[];
  /** The names that are types only (interfaces, type aliases, `export type`). */
  types: string[];
  /** The exported classes that extend `Error`. */
  errorClasses: string[];
}

/** The package's entries as import specifiers, in package.json order, each with its source file. */
export function publicEntries(): Array<{ entry: string; source: string }> {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
  };
  const tsconfig = ts.readConfigFile(join(ROOT, "tsconfig.json"), ts.sys.readFile).config as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  const paths = tsconfig.compilerOptions.paths;
  return Object.keys(pkg.exports)
    .filter((key) => key !== "./package.json")
    .map((key) => {
      const entry = key === "." ? "mcp-tasks" : `mcp-tasks/${key.slice(2)}`;
      const source = paths[entry]?.[0];
      if (source === undefined) throw new Error(`tsconfig.json "paths" does not map ${entry}`);
      return { entry, source: join(ROOT, source) };
    });
}

function extendsError(type: ts.Type, checker: ts.TypeChecker): boolean {
  for (let current: ts.Type | undefined = type; current !== undefined;) {
    if (current.getSymbol()?.getName() === "Error") return true;
    const bases: ts.BaseType[] = current.isClassOrInterface() ? checker.getBaseTypes(current) : [];
    current = bases[0];
  }
  return false;
}

/** The exports of every public entry, read from its source. */
export function entryExports(): EntryExports[] {
  const entries = publicEntries();
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (parsed === undefined) throw new Error("tsconfig.json could not be read");
  const program = ts.createProgram({
    rootNames: entries.map(({ source }) => source),
    options: { ...parsed.options, noEmit: true },
  });
  const checker = program.getTypeChecker();
  return entries.map(({ entry, source }) => {
    const file = program.getSourceFile(source);
    const moduleSymbol = file === undefined ? undefined : checker.getSymbolAtLocation(file);
    if (moduleSymbol === undefined) throw new Error(`${entry}: ${source} has no exports`);
    const values: string[] = [];
    const types: string[] = [];
    const errorClasses: string[] = [];
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const name = exported.getName();
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const typeOnly =
        (target.flags & ts.SymbolFlags.Value) === 0 ||
        (exported.declarations ?? []).some((declaration) => ts.isTypeOnlyExportDeclaration(declaration));
      (typeOnly ? types : values).push(name);
      if (!typeOnly && target.flags & ts.SymbolFlags.Class) {
        if (extendsError(checker.getDeclaredTypeOfSymbol(target), checker)) errorClasses.push(name);
      }
    }
    const sorted = (names: string[]) => names.sort((a, b) => a.localeCompare(b));
    return {
      entry,
      names: sorted([...values, ...types]),
      values: sorted(values),
      types: sorted(types),
      errorClasses: sorted(errorClasses),
    };
  });
}

function main(): void {
  const list = process.argv.includes("--list");
  const rows = entryExports();
  const width = Math.max(...rows.map((row) => row.entry.length));
  console.log(`${"entry".padEnd(width)}  names  values  types  error classes`);
  for (const row of rows) {
    console.log(
      `${row.entry.padEnd(width)}  ${String(row.names.length).padStart(5)}  ${String(row.values.length).padStart(6)}  ${String(row.types.length).padStart(5)}  ${String(row.errorClasses.length).padStart(13)}`,
    );
  }
  const total = rows.reduce((sum, row) => sum + row.names.length, 0);
  console.log(`${"(all)".padEnd(width)}  ${String(total).padStart(5)}`);
  if (!list) return;
  for (const row of rows) {
    console.log(`\n${row.entry}`);
    console.log(`  values: ${row.values.join(", ")}`);
    console.log(`  types: ${row.types.join(", ")}`);
    console.log(`  error classes: ${row.errorClasses.join(", ")}`);
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
