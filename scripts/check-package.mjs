// `npm run check:package`: build, then lint the package as npm would publish it. publint --strict checks
// package.json against the packed files; attw (Are The Types Wrong) resolves every entry point under node10,
// node16 (ESM and CJS) and bundler. The tarball is packed the way `npm publish` packs, lifecycle scripts included
// (prepack's build is skipped: it just ran), and its package.json must carry no install-time script while the
// working package.json comes back byte for byte.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INSTALL_TIME_SCRIPTS } from "./pack-manifest.mjs";

const bin = (name) => join("node_modules", ".bin", name);
const step = (command, args) => execFileSync(command, args, { stdio: "inherit" });

step("npm", ["run", "build", "--silent"]);
step(bin("publint"), ["--strict"]);
const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-pack-"));
try {
  const before = readFileSync("package.json", "utf8");
  execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], {
    stdio: "ignore",
    env: { ...process.env, MCP_TASKS_PACK_PREBUILT: "1" },
  });
  const [tarball] = readdirSync(dir).filter((name) => name.endsWith(".tgz"));
  const packed = JSON.parse(
    execFileSync("tar", ["-xzOf", join(dir, tarball), "package/package.json"], { encoding: "utf8" }),
  );
  const shipped = INSTALL_TIME_SCRIPTS.filter((name) => name in (packed.scripts ?? {}));
  if (shipped.length > 0) throw new Error(`the packed package.json carries install-time scripts: ${shipped}`);
  if (readFileSync("package.json", "utf8") !== before) {
    throw new Error("npm pack left package.json changed (postpack did not restore it)");
  }
  step(bin("attw"), [join(dir, tarball), "--format", "table-flipped"]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
