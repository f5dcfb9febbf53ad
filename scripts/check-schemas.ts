/**
 * `npm run check:schema`: fails unless the schema sources type-check, the draft's generated files and the
 * client's validators match a fresh generation, and every released version is byte-identical to what `schema/manifest.json` recorded.
 * Every problem is listed, not just the first.
 */
import { regenerateDraft, staleFiles } from "./schema-lib/draft.js";
import { REPO_ROOT } from "./schema-lib/layout.js";
import { CLIENT_VALIDATORS, clientValidatorsStale, generateClientValidators } from "./schema-lib/mini.js";
import { readManifest, verifyReleases } from "./schema-lib/manifest.js";
import { elapsedMs, runScript } from "./schema-lib/run.js";
import { typecheckSchemaSources } from "./schema-lib/typecheck.js";

runScript(async () => {
  const start = performance.now();
  const typeErrors = typecheckSchemaSources(REPO_ROOT);
  const stale = staleFiles(REPO_ROOT, await regenerateDraft(REPO_ROOT, false));
  if (clientValidatorsStale(REPO_ROOT, await generateClientValidators(REPO_ROOT)))
    stale.push(CLIENT_VALIDATORS);
  const releaseProblems = verifyReleases(REPO_ROOT);

  const problems = [
    ...typeErrors.map((error) => `type error: ${error}`),
    ...stale.map(
      (path) => `${path} is stale: run npm run generate:schemas (generated files are never edited by hand).`,
    ),
    ...releaseProblems,
  ];
  if (problems.length > 0) {
    console.error(`check:schema failed (${problems.length} problem${problems.length === 1 ? "" : "s"}):`);
    for (const problem of problems) console.error(`  - ${problem}`);
    process.exitCode = 1;
    return;
  }
  const releases = Object.keys(readManifest(REPO_ROOT).released);
  console.log(
    `check:schema: ok — draft up to date, released ${releases.join(", ") || "(none)"} unchanged (${elapsedMs(start)} ms)`,
  );
});
