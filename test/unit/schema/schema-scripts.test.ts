/**
 * The schema scripts as a maintainer runs them, each in its own temporary copy of the repository (only
 * the files the scripts read, with node_modules symlinked): check:schema catches a stale draft and an
 * edited release, snapshot:schema creates a release and refuses to overwrite one or take a bad date.
 * (check:schema passing on an untouched tree is shown after the snapshot below, and by `npm test` itself.)
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isReleaseDate } from "../../../scripts/schema-lib/layout.js";
import { repoPath } from "./validators.js";

const SCRIPT_TIMEOUT_MS = 60_000;
const COPIED = [
  "schema",
  "scripts/schema-lib",
  "scripts/generate-schemas.ts",
  "scripts/check-schemas.ts",
  "scripts/snapshot-schema.ts",
  "src/schema/generated",
  "package.json",
  "tsconfig.json",
  ".prettierrc.json",
];
const copies: string[] = [];

function copyRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-schema-"));
  copies.push(dir);
  for (const path of COPIED) cpSync(repoPath(path), join(dir, path), { recursive: true });
  symlinkSync(repoPath("node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(dir: string, script: string, ...args: string[]): Promise<ScriptRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      join(dir, "node_modules", ".bin", "tsx"),
      [`scripts/${script}`, ...args],
      { cwd: dir, timeout: SCRIPT_TIMEOUT_MS },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : -1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? "",
    };
  }
}

function read(dir: string, path: string): string {
  return readFileSync(join(dir, path), "utf8");
}

function edit(dir: string, path: string, change: (content: string) => string): void {
  const content = read(dir, path);
  const changed = change(content);
  expect(changed).not.toBe(content);
  writeFileSync(join(dir, path), changed);
}

describe("release dates accepted by snapshot:schema", () => {
  it.each(["2026-07-28", "2030-01-15", "2028-02-29"])("accepts %s", (date) => {
    expect(isReleaseDate(date)).toBe(true);
  });

  it.each([
    "2030-1-15",
    "2030-02-30",
    "2027-02-29",
    "2030-13-01",
    "latest",
    "draft",
    " 2030-01-15",
    "20300115",
  ])("rejects %j", (date) => {
    expect(isReleaseDate(date)).toBe(false);
  });
});

describe.concurrent("npm run check:schema", { timeout: SCRIPT_TIMEOUT_MS }, () => {
  it("fails naming both generated files when the draft's schema.ts changed without regenerating", async () => {
    const dir = copyRepository();
    edit(dir, "schema/draft/schema.ts", (content) =>
      content.replace("  statusMessage?: string;\n", "  statusMessage?: string;\n  progressNote?: string;\n"),
    );
    const result = await run(dir, "check-schemas.ts");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("schema/draft/generated/schema.ts is stale");
    expect(result.stderr).toContain("schema/draft/schema.json is stale");
  });

  it("fails naming a hand-edited released file, and only that file", async () => {
    const dir = copyRepository();
    edit(dir, "schema/2026-07-28/schema.json", (content) => content.replace('"ttlMs"', '"ttlMS"'));
    const result = await run(dir, "check-schemas.ts");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("schema/2026-07-28/schema.json differs from the released version");
    expect(result.stderr).not.toContain("schema/2026-07-28/schema.ts");
    expect(result.stderr).not.toContain("stale");
  });
});

describe("npm run snapshot:schema 2030-01-15, then npm run check:schema on the result", () => {
  // One script per hook or test, so no single timeout covers two TypeScript runs.
  let dir: string;
  let created: ScriptRun;
  beforeAll(async () => {
    dir = copyRepository();
    created = await run(dir, "snapshot-schema.ts", "2030-01-15");
  }, SCRIPT_TIMEOUT_MS);

  it("releases the draft under the date, rewrites its $id and records it", () => {
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);

    const document = JSON.parse(read(dir, "schema/2030-01-15/schema.json")) as { $id: string; $defs: object };
    expect(document.$id).toBe("https://modelcontextprotocol.io/ext-tasks/2030-01-15/schema.json");
    expect(document.$defs).toEqual(JSON.parse(read(dir, "schema/draft/schema.json")).$defs);
    expect(read(dir, "schema/2030-01-15/schema.ts")).toContain(" * Extension revision: 2030-01-15\n");
    expect(read(dir, "schema/2030-01-15/generated/schema.ts")).toContain("revision 2030-01-15");
    expect(read(dir, "schema/2030-01-15/generated/schema.ts")).not.toContain("revision draft");
    const manifest = JSON.parse(read(dir, "schema/manifest.json")) as { released: Record<string, object> };
    expect(Object.keys(manifest.released)).toEqual(["2026-07-28", "2030-01-15"]);
  });

  it(
    "leaves a tree that check:schema passes",
    async () => {
      expect(created.code).toBe(0);
      const checked = await run(dir, "check-schemas.ts");
      expect(checked.stderr).toBe("");
      expect(checked.code).toBe(0);
    },
    SCRIPT_TIMEOUT_MS,
  );
});

describe.concurrent("npm run snapshot:schema refuses", { timeout: SCRIPT_TIMEOUT_MS }, () => {
  it("refuses to overwrite a released version", async () => {
    const dir = copyRepository();
    const before = read(dir, "schema/2026-07-28/schema.json");
    const result = await run(dir, "snapshot-schema.ts", "2026-07-28");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("schema/2026-07-28/ already exists");
    expect(read(dir, "schema/2026-07-28/schema.json")).toBe(before);
  });

  it("refuses a malformed date and creates nothing", async () => {
    const dir = copyRepository();
    const result = await run(dir, "snapshot-schema.ts", "2030-02-30");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('"2030-02-30" is not a release date');
    expect(existsSync(join(dir, "schema", "2030-02-30"))).toBe(false);
    expect(read(dir, "schema/manifest.json")).toBe(readFileSync(repoPath("schema/manifest.json"), "utf8"));
  });

  it("refuses to run without a date", async () => {
    const result = await run(copyRepository(), "snapshot-schema.ts");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("usage: npm run snapshot:schema -- YYYY-MM-DD");
  });
});
