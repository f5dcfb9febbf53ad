// `npm run check:package`: build, then lint the package as npm would publish it. publint --strict checks
// package.json against the packed files; attw (Are The Types Wrong) resolves every entry point under node10,
// node16 (ESM and CJS) and bundler. attw gets a tarball packed with scripts off (what `attw --pack` does, minus a
// second build through the `prepare` script).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = (name) => join("node_modules", ".bin", name);
const step = (command, args) => execFileSync(command, args, { stdio: "inherit" });

step("npm", ["run", "build", "--silent"]);
step(bin("publint"), ["--strict"]);
const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-pack-"));
try {
  execFileSync("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", dir], {
    stdio: "ignore",
  });
  const [tarball] = readdirSync(dir).filter((name) => name.endsWith(".tgz"));
  step(bin("attw"), [join(dir, tarball), "--format", "table-flipped"]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
