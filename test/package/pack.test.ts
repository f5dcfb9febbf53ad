/**
 * What `npm pack` / `npm publish` ship: the build, the server launcher, the README and the licence, and
 * nothing a consumer does not need (sources, tests, benchmarks, sourcemaps, the schema sources that
 * `dist/schema` already declares). Prints the tarball's size; the budget is 510 KB packed.
 *
 * The budget was 250 KB for the library alone; the `mcp-tasks` command (about 9 KB packed), the 2025-11-25
 * generation in the client and in the test server (about 15 KB) and their README sections took it to about
 * 280 KB. Minifying identifiers would win back about 20 KB, but a readable `dist/` is worth more to people
 * debugging into it, since no sourcemaps ship. The agent framework bridges (three entries and their shared
 * module, ESM, CJS and declarations: about 10 KB) and their README section (about 4 KB) took it to about 304 KB.
 *
 * Authorization added about 17 KB: `headers`/`authProvider` glue and `AuthError` in both builds of
 * the main entry (about 8 KB packed), the reference server's authorization server (about 6 KB, in the ESM build
 * only: the CommonJS build gets it from there), the command's `login`/`logout`/`--header` (about 4 KB) and the
 * README sections (about 5 KB).
 *
 * Then, together 416 KB (measured with `npm pack --dry-run` at each merge): the seams work (store contract,
 * cadence owner, their README sections; main went to 327 KB), telemetry (its own `#telemetry` file in both
 * formats and the reference server's spans, about 10 KB, and the Observability section), and the start-up work,
 * which bundles zod/mini (since replaced by the client's own kit), p-retry, p-limit, dequal and eventemitter3 into the main entry's ESM and CJS files so
 * that Node loads one file (`dist/index.js` 169 -> 250 KB unpacked, about 40 KB packed for both formats; p-retry,
 * p-limit and dequal are no longer installed beside it).
 *
 * The guides moved out of the README into docs/, which is not packed: the README went from 143 KB to
 * 9 KB, and the tarball from 410 to 370 KB packed.
 *
 * By then the tarball had grown back to 430 KB. The `mcp-tasks/host` entry (`TaskHost`: ESM, CJS and both
 * declaration flavours, about 17 KB packed) took it to 447 KB. The Node HTTP path over undici (two files behind
 * `#http` in both formats, about 5 KB packed) took it to about 452 KB. Fencing (a ref update that checks its
 * lease, input answers fenced) and the transport's per-request controllers took it to 455.6 KB. The host's
 * fair scheduler across servers, its shared store, `resume()` and reconnecting (the `mcp-tasks/host` entry went
 * from about 4.4 to 9.2 KB gzip per format, plus its declarations) took it to about 471 KB; the budget is 480 KB,
 * room for the next entries without hiding a file that should not ship (the other tests here do that).
 * `mcp-tasks/cloudflare` (a Durable Object store and its alarm follower, about 9 KB packed) and
 * `mcp-tasks/transport` (the transport shape and fetch wrappers moved off the main entry: new files in both formats
 * and their declarations, about 3 KB) took it to about 489 KB; with `mcp-tasks/temporal` next, the budget is 510 KB.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { packDryRun, ROOT, type PackResult } from "./packed.js";

const BUDGET_BYTES = 510 * 1024;
let pack: PackResult;
let paths: string[];

beforeAll(async () => {
  pack = await packDryRun();
  paths = pack.files.map((file) => file.path).sort();
  console.log(
    `npm pack: ${(pack.size / 1024).toFixed(1)} KB packed, ${(pack.unpackedSize / 1024).toFixed(1)} KB unpacked, ${paths.length} files`,
  );
}, 60_000);

describe("the packed package", () => {
  it(`stays within ${BUDGET_BYTES / 1024} KB packed`, () => {
    expect(pack.size).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it("has every entry point of package.json in ESM, CJS and both declaration flavours", () => {
    for (const entry of ["index", "schema/index", "testing/index"]) {
      for (const extension of [".js", ".cjs", ".d.ts", ".d.cts"])
        expect(paths).toContain(`dist/${entry}${extension}`);
    }
    for (const variant of ["node", "unavailable"]) {
      expect(paths).toContain(`dist/stdio/${variant}.js`);
      expect(paths).toContain(`dist/stdio/${variant}.cjs`);
      expect(paths).toContain(`dist/http/${variant}.js`);
      expect(paths).toContain(`dist/http/${variant}.cjs`);
    }
    expect(paths).toContain("bin/mcp-tasks-server.js");
    expect(paths).toEqual(expect.arrayContaining(["bin/mcp-tasks.js", "dist/cli.js"]));
    expect(paths).toEqual(expect.arrayContaining(["package.json", "README.md", "LICENSE"]));
  });

  it("has no sources, tests, benchmarks, examples, scripts, guides, sourcemaps or schema sources", () => {
    const allowed =
      /^(dist\/.+\.(c?js|d\.c?ts)|bin\/mcp-tasks(-server)?\.js|package\.json|README\.md|LICENSE)$/;
    expect(paths.filter((path) => !allowed.test(path))).toEqual([]);
    expect(
      paths.filter(
        (path) =>
          /(^|\/)(src|test|tests|bench|examples|scripts|schema|conformance|docs)\//.test(path) &&
          !path.startsWith("dist/"),
      ),
    ).toEqual([]);
    expect(paths.filter((path) => /\.(test|bench|spec)\.|\.map$/.test(path))).toEqual([]);
  });

  it("has no duplicate files: identical contents only as a .d.ts / .d.cts pair", () => {
    const byHash = new Map<string, string[]>();
    for (const path of paths) {
      const text = readFileSync(join(ROOT, path), "utf8").replaceAll(".cjs", ".js");
      const hash = createHash("sha256").update(text).digest("hex");
      byHash.set(hash, [...(byHash.get(hash) ?? []), path]);
    }
    const duplicates = [...byHash.values()].filter((group) => group.length > 1);
    for (const group of duplicates) {
      expect(group).toHaveLength(2);
      const [first, second] = group as [string, string];
      // tsup names a shared declaration chunk with a different hash per format (types-AbC.d.ts, types-XyZ.d.cts).
      const base = (path: string) => path.replace(/\.d\.c?ts$/, "").replace(/-[\w-]{8}$/, "");
      expect(base(first)).toBe(base(second));
    }
  });
});
