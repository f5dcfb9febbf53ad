// Keeps install-time scripts out of the package.json that ships in the tarball. `prepare` builds the package for
// git installs (for a git dependency npm runs `prepare` and nothing else before it packs), but in a registry
// tarball npm 11 lists it among the install scripts every consumer is asked to approve. So `prepack` builds and
// takes `prepare` out of package.json, and package.json is put back once the tarball is made: by `postpack` for
// `npm pack`, by `postpublish` for `npm publish` (which reads package.json again after packing, for the registry).
//
//   node scripts/pack-manifest.mjs build-and-strip-prepare      build (unless MCP_TASKS_PACK_PREBUILT=1), strip
//   node scripts/pack-manifest.mjs restore [--unless-publishing]
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = join(import.meta.dirname, "..");
const MANIFEST = join(ROOT, "package.json");
const SAVED = join(ROOT, ".package.json.before-pack");
/** Scripts npm runs when the package is installed from a tarball (and `prepare`, which npm 11 lists too). */
export const INSTALL_TIME_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

function restore() {
  if (existsSync(SAVED)) renameSync(SAVED, MANIFEST);
}

function strip() {
  restore(); // a pack that failed half-way left the stripped manifest behind
  if (process.env.MCP_TASKS_PACK_PREBUILT !== "1") {
    execFileSync("npm", ["run", "build", "--silent"], { cwd: ROOT, stdio: "inherit" });
  }
  const text = readFileSync(MANIFEST, "utf8");
  const manifest = JSON.parse(text);
  const scripts = manifest.scripts ?? {};
  if (!INSTALL_TIME_SCRIPTS.some((name) => name in scripts)) return;
  writeFileSync(SAVED, text);
  for (const name of INSTALL_TIME_SCRIPTS) delete scripts[name];
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
}

function main([command, flag]) {
  if (command === "build-and-strip-prepare") strip();
  else if (command === "restore") {
    // `npm publish` runs postpack before it reads package.json for the registry: postpublish restores then.
    if (!(flag === "--unless-publishing" && process.env.npm_command === "publish")) restore();
  } else {
    console.error(
      "usage: node scripts/pack-manifest.mjs build-and-strip-prepare | restore [--unless-publishing]",
    );
    process.exit(2);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main(process.argv.slice(2));
