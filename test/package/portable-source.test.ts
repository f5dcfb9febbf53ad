/**
 * The core runs in browsers, Deno, Bun and workers: `src/` outside `testing/` and `cli/` imports no
 * `node:` module (nor a bare Node built-in) but for the undici HTTP path behind `#http`, and only `session/stdio-node.ts`, reached through `#stdio`,
 * loads the SDK's stdio transport.
 */
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./packed.js";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ["testing", "cli"].includes(entry.name) && dir.endsWith("src") ? [] : sourceFiles(path);
    // The file and Redis stores are Node-only back-ends behind their own entries (mcp-tasks/store, …/redis).
    const nodeOnly = ["file.ts", "file-io.ts", "file-lock.ts", "redis.ts"];
    if (dir.endsWith("store") && nodeOnly.includes(entry.name)) return [];
    // The undici HTTP path is Node's, behind `#http` (package.json "imports"); other runtimes get `fetch`.
    const nodeHttp = ["http-undici.ts", "http-undici-response.ts"];
    if (dir.endsWith("session") && nodeHttp.includes(entry.name)) return [];
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g;
const files = sourceFiles(join(ROOT, "src")).map((path) => ({
  path: relative(ROOT, path),
  specifiers: [...readFileSync(path, "utf8").matchAll(IMPORT)].map((match) => match[1] as string),
}));

describe("the portable core", () => {
  it("is what the scan covers", () => {
    expect(files.map((file) => file.path)).toContain("src/session/targets.ts");
    expect(files.some((file) => file.path.startsWith("src/testing/"))).toBe(false);
  });

  it("imports no Node built-in", () => {
    const builtins = new Set(builtinModules);
    const offending = files.flatMap(({ path, specifiers }) =>
      specifiers.filter((s) => s.startsWith("node:") || builtins.has(s)).map((s) => `${path}: ${s}`),
    );
    expect(offending).toEqual([]);
  });

  it("loads the SDK's stdio transport only in session/stdio-node.ts", () => {
    const offending = files
      .filter(({ specifiers }) => specifiers.some((s) => s.includes("/stdio")))
      .map((file) => file.path);
    expect(offending).toEqual(["src/session/stdio-node.ts"]);
  });
});
