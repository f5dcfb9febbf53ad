/**
 * The docs site, `npm run docs`: README.md as the home page, the guides under docs/ and an API reference of every
 * public entry, as static HTML in docs/dist/ (not committed, not packed). Warnings fail the build, so a public
 * type with no page, a `{@link}` to nowhere or a guide's broken anchor is found when it appears.
 */
import { OptionDefaults } from "typedoc";
import { guidesInOrder, keepCodeInHeadingSlugs, publicEntries } from "./scripts/docs-site.mjs";

const entries = publicEntries();

/** @type {Partial<import("typedoc").TypeDocOptions>} */
export default {
  name: "mcp-tasks",
  entryPoints: entries.map((entry) => entry.source),
  // The sources only (tsconfig.json also takes in tests, scripts and benchmarks, which would double the time).
  tsconfig: "tsconfig.docs.json",
  // `npm test` type-checks the project already; the site need not check it again.
  skipErrorChecking: true,
  readme: "README.md",
  // The guides, then the benchmarks page that the performance guide points to.
  projectDocuments: [...guidesInOrder(), "bench/README.md"],
  plugin: ["./scripts/docs-site.mjs"],
  markdownItLoader: keepCodeInHeadingSlugs,
  out: "docs/dist",
  excludeInternal: true,
  excludePrivate: true,
  // Written for the JSON Schema generator of schema/*/schema.ts: what the wire format says, not TSDoc.
  blockTags: [...OptionDefaults.blockTags, "@format", "@discriminator"],
  navigation: { includeCategories: false, includeGroups: false, includeFolders: false },
  headings: { readme: false, document: false },
  hideGenerator: true,
  // No "Defined in" links: they would point at whatever git remote the clone has (none in a fresh local clone,
  // which TypeDoc warns about, failing the build), not at a published repository.
  disableSources: true,
  treatWarningsAsErrors: true,
  validation: { notExported: true, invalidLink: true, rewrittenLink: true, notDocumented: false },
  // Types that only spell out a signature's generics or a parameter's shape, which no caller writes by name; kept off
  // the main entry so that its exports stay what users need (test/package/surface.test.ts).
  // The main entry's `TaskHost` is a small class standing for the host its `connect` loads (src/host/task-host-class.ts):
  // that class's own name is not exported apart from it (the host's members are listed under the `TaskHost` type).
  intentionallyNotExported: [
    "CallToolRest",
    "RefResultOf",
    "UntypedTools",
    "SdkClientLike",
    "src/host/task-host-class.ts:TaskHostClass",
  ],
};
