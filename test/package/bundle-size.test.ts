/**
 * The bundle-size budget: what `import { TaskClient } from "mcp-tasks"` costs a page or a Worker, bundled from
 * the packed package by esbuild (`--bundle --minify --platform=browser`, no externals; see
 * scripts/bundle-size.ts for the two figures). A change that makes the main entry heavier than its budget fails
 * here instead of reaching users unnoticed; a change that makes it lighter should lower the budget.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entrySpecs, measureEntry, type SizedEntry } from "../../scripts/bundle-size.js";
import { packedConsumer, type Consumer } from "./packed.js";

/**
 * Budgets in gzip bytes (level 9): 60 KB, the target (the main entry was 152.6 KB gzip whole before the
 * library had its own HTTP transport and zod/mini validators; 47.2 KB after). The whole figure may reach 64 KB since
 * issue 26: the client's defences against hostile servers took it from 57.7 to 62.4 KB (2.8 KB of that the
 * transport's bounds: redirects within the origin, size limits, one answer per response, every HeadersInit form),
 * and none of it can load lazily. Both figures count: a lazy
 * `import()` does not leave a one-file bundle, so code loaded only when used (say, an SDK transport for OAuth)
 * must stay out of the main entry's module graph, not merely behind an `await import()`. The one exception is
 * what an opt-in option needs and nothing else loads: the SDK's client package for `authProvider` (its OAuth
 * flows), which the whole figure leaves out and the size table in docs/runtimes.md shows as its own row.
 */
const BUDGET = {
  /** The entry chunk and its static imports: what loads before the first request. */
  firstLoad: 60 * 1024,
  /** Everything the import can load, lazy parts included, in one file. */
  whole: 64 * 1024,
};

let consumer: Consumer;
let main: SizedEntry;

beforeAll(async () => {
  consumer = await packedConsumer();
  const spec = entrySpecs().find((candidate) => candidate.entry === "mcp-tasks");
  if (spec === undefined) throw new Error("no main entry spec");
  main = await measureEntry(consumer.dir, spec);
}, 60_000);

afterAll(() => consumer?.remove());

describe("the main entry's browser bundle", () => {
  it(`loads at most ${BUDGET.firstLoad / 1024} KB gzip before the first request`, () => {
    expect(main.firstLoad.gzip).toBeGreaterThan(0);
    expect(main.firstLoad.gzip).toBeLessThanOrEqual(BUDGET.firstLoad);
  });

  it(`is at most ${BUDGET.whole / 1024} KB gzip with every lazy part inlined but authProvider's SDK`, () => {
    expect(main.whole.gzip).toBeLessThanOrEqual(BUDGET.whole);
  });

  it("leaves the SDK's client package to authProvider: it is in no chunk a page loads first", () => {
    // Loaded statically, it would be in the first load, which is then far over budget (the SDK alone is ~60 KB).
    expect(main.withOptIn?.gzip).toBeGreaterThan(main.whole.gzip + 20 * 1024);
    expect(main.firstLoad.gzip).toBeLessThanOrEqual(main.whole.gzip);
  });
});
