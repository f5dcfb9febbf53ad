/**
 * `npm run generate:schemas`: regenerates `schema/draft/generated/schema.ts` and `schema/draft/schema.json`
 * from `schema/draft/schema.ts`. Released versions are snapshots and are never regenerated.
 */
import { regenerateDraft, writeDraft } from "./schema-lib/draft.js";
import { REPO_ROOT } from "./schema-lib/layout.js";
import { elapsedMs, runScript } from "./schema-lib/run.js";

runScript(async () => {
  const start = performance.now();
  const changed = writeDraft(REPO_ROOT, await regenerateDraft(REPO_ROOT, true));
  const summary = changed.length > 0 ? `updated ${changed.join(", ")}` : "already up to date";
  console.log(`generate:schemas: draft ${summary} (${elapsedMs(start)} ms)`);
});
