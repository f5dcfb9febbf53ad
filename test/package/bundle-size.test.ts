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
 * Budgets in gzip bytes (level 9). The issue's target is 60 KB for the one-file bundle (the main entry was 152.6 KB
 * gzip whole before the library had its own HTTP transport and zod/mini validators; 47.2 KB after; the client's
 * defences against hostile servers and typed tools took it to 66.5 KB, and to 175.7 KB while OAuth was reached
 * through a lazy `import()` that a one-file bundle inlines). OAuth (the SDK's transport, and the bounds only its path
 * uses) and OpenTelemetry (4.3 KB gzip of the client's own code) moved to entries of their own: 59.5 KB. There is
 * little room. Today's merges (ref-life, output checks, transport bounds) took it to 62.0 KB; retries and the input
 * handlers' limit written in a few lines instead of p-retry and p-limit (1.8 KB gzip with is-network-error and
 * yocto-queue) brought it back to about 60.2 KB. A lazy `import()` does not leave
 * a one-file bundle, so code loaded only when used must stay out of the main entry's module graph, not merely
 * behind an `await import()`; there is no exception for any package. Then the client split into parts with every
 * option checked in one place, `close()` waiting for calls in flight, the Redis lease confirmation and the error
 * families (with `kind`) took it to 60.7 KB whole (60.5 KB first load), over the 60 KB; the client's and the
 * handles' events through a few lines of our own instead of eventemitter3 (a CommonJS module, 0.9 KB gzip with its
 * interop), the option checks in one wording and the error classes' fields declared without a definition each won it
 * back: 59.5 KB whole (59.3 KB first load). Reopening a dropped connection, the per-request abort and the
 * `toolsListChanged` listen took it to 60.0 KB, 1 byte under. The client's validators on a kit of its own
 * (src/schema/kit.ts, zod/mini's API for the constructors the generated validators use) instead of zod/mini, which
 * was 8.7 KB gzip of the entry, brought it to 52.8 KB whole (52.6 KB first load), and the budget down to 56 KB:
 * room for the poll path's work and the fixes that waited for bytes, not for a package to come back unnoticed.
 * The shared timeout timer put back and `cancel()` keeping a late acknowledgement: 53.2 KB whole (53.0 KB first load).
 */
const BUDGET = {
  /** The entry chunk and its static imports: what loads before the first request. */
  firstLoad: 56 * 1024,
  /** Everything the import can load, lazy parts included, in one file: exactly `esbuild --bundle --minify --platform=browser`. */
  whole: 56 * 1024,
};

let consumer: Consumer;
let main: SizedEntry;
/** `import { TaskHost } from "mcp-tasks"`: the small class whose `connect` loads the host's code. */
let host: SizedEntry;

beforeAll(async () => {
  consumer = await packedConsumer();
  const spec = entrySpecs().find((candidate) => candidate.entry === "mcp-tasks");
  if (spec === undefined) throw new Error("no main entry spec");
  main = await measureEntry(consumer.dir, spec);
  host = await measureEntry(consumer.dir, {
    ...spec,
    source: 'import { TaskHost } from "mcp-tasks";\nglobalThis.TaskHost = TaskHost;',
  });
}, 60_000);

afterAll(() => consumer?.remove());

describe("the main entry's browser bundle", () => {
  it(`loads at most ${BUDGET.firstLoad / 1024} KB gzip before the first request`, () => {
    expect(main.firstLoad.gzip).toBeGreaterThan(0);
    expect(main.firstLoad.gzip).toBeLessThanOrEqual(BUDGET.firstLoad);
  });

  it(`is at most ${BUDGET.whole / 1024} KB gzip in one file, with nothing left out`, () => {
    expect(main.whole.gzip).toBeLessThanOrEqual(BUDGET.whole);
  });

  it("loads the host's code only when TaskHost connects: its first load is the client's and a few hundred bytes", () => {
    // Measured: 54,253 B first load with TaskClient, 54,405 B with TaskHost (61,616 B whole, the host included).
    expect(host.firstLoad.gzip).toBeLessThanOrEqual(BUDGET.firstLoad);
    expect(host.firstLoad.gzip - main.firstLoad.gzip).toBeLessThan(512);
    expect(host.whole.gzip - host.firstLoad.gzip).toBeGreaterThan(5 * 1024);
  });

  it("carries nothing of the SDK's client package: its transport comes with mcp-tasks/oauth", () => {
    const packages = main.byPackage.map(([name]) => name);
    expect(packages).toContain("mcp-tasks"); // the measure sees packages at all
    expect(
      packages.filter(
        (name) => name.startsWith("@modelcontextprotocol/") || name.startsWith("@opentelemetry/"),
      ),
    ).toEqual([]);
  });
});
