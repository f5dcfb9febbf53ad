/**
 * `npm run snapshot:schema -- YYYY-MM-DD`: releases the current draft as `schema/YYYY-MM-DD/` and records
 * its hashes in `schema/manifest.json`. Refuses a malformed date and an existing release.
 */
import { REPO_ROOT, SchemaScriptError } from "./schema-lib/layout.js";
import { elapsedMs, runScript } from "./schema-lib/run.js";
import { createSnapshot } from "./schema-lib/snapshot.js";

runScript(async () => {
  const start = performance.now();
  const args = process.argv.slice(2);
  if (args.length !== 1 || args[0] === undefined) {
    throw new SchemaScriptError("usage: npm run snapshot:schema -- YYYY-MM-DD (exactly one release date).");
  }
  await createSnapshot(REPO_ROOT, args[0]);
  console.log(`snapshot:schema: released the draft as schema/${args[0]}/ (${elapsedMs(start)} ms)`);
});
