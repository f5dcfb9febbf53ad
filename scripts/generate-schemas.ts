/**
 * `npm run generate:schemas`: regenerates `schema/draft/generated/schema.ts` and `schema/draft/schema.json`
 * from `schema/draft/schema.ts`, and the client's validators (`src/schema/generated/validators.ts`, zod/mini's API on src/schema/kit.ts)
 * from the released revision the client speaks. Released versions are snapshots and are never regenerated.
 */
import { regenerateDraft, writeDraft } from "./schema-lib/draft.js";
import { REPO_ROOT } from "./schema-lib/layout.js";
import { CLIENT_VALIDATORS, generateClientValidators, writeClientValidators } from "./schema-lib/mini.js";
import { elapsedMs, runScript } from "./schema-lib/run.js";

runScript(async () => {
  const start = performance.now();
  const changed = writeDraft(REPO_ROOT, await regenerateDraft(REPO_ROOT, true));
  if (writeClientValidators(REPO_ROOT, await generateClientValidators(REPO_ROOT)))
    changed.push(CLIENT_VALIDATORS);
  const summary = changed.length > 0 ? `updated ${changed.join(", ")}` : "already up to date";
  console.log(`generate:schemas: draft ${summary} (${elapsedMs(start)} ms)`);
});
