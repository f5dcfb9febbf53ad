/**
 * The durable engine entries as a consumer gets them: each built entry (ESM and CJS) imports its engine's SDK and
 * the core by the package's name, and nothing else; the SDK is an optional peer, never a dependency; in a packed
 * install without the SDK the entry fails naming the missing package, and with it, loads.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ROOT,
  assertFreshBuild,
  entryWiring,
  loadEntries,
  optionalPeerEntry,
  packedConsumer,
  type Consumer,
} from "./packed.js";

const ENGINES = {
  temporal: {
    file: "engines/temporal",
    peers: ["@temporalio/activity", "@temporalio/common"],
    entry: "callToolInActivity",
  },
  restate: { file: "engines/restate", peers: ["@restatedev/restate-sdk"], entry: "callToolInHandler" },
} as const;
type Engine = keyof typeof ENGINES;
const NAMES = Object.keys(ENGINES) as Engine[];

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;

describe("the built engine entries", () => {
  it.each(NAMES.flatMap((name) => [`${name} js`, `${name} cjs`]))(
    "%s imports its engine's SDK and mcp-tasks, nothing else",
    (which) => {
      assertFreshBuild();
      const [name, format] = which.split(" ") as [Engine, string];
      const source = readFileSync(join(ROOT, "dist", `${ENGINES[name].file}.${format}`), "utf8");
      const imports = [...new Set([...source.matchAll(SPECIFIER)].map((match) => match[1]))].sort();
      expect(imports).toEqual([...ENGINES[name].peers, "mcp-tasks"].sort());
    },
  );

  it("are wired in package.json exports and typesVersions, with their SDKs as optional peers", () => {
    for (const name of NAMES) {
      const { file, peers } = ENGINES[name];
      expect(entryWiring(name, peers)).toEqual(optionalPeerEntry(file, peers));
    }
  });
});

describe("a packed install", () => {
  let consumer: Consumer;
  beforeAll(async () => {
    consumer = await packedConsumer();
  }, 60_000);
  afterAll(() => consumer?.remove());

  /** Loads every engine entry by ESM import and CJS require; `ok` or the first line of the error, per entry. */
  const loadAll = () =>
    loadEntries(
      consumer,
      NAMES.map((name) => [name, ENGINES[name].entry]),
    );

  it.each(NAMES)("without its SDK, mcp-tasks/%s fails naming it; with it, loads", async (name) => {
    const without = await loadAll();
    for (const kind of ["esm", "cjs"])
      expect(without[`${name} ${kind}`]).toContain(`'${ENGINES[name].peers[0]}`);
    const links = ENGINES[name].peers.map((peer) => {
      const path = join(consumer.dir, "node_modules", peer);
      mkdirSync(dirname(path), { recursive: true });
      symlinkSync(join(ROOT, "node_modules", peer), path, "dir");
      return path;
    });
    try {
      const withSdk = await loadAll();
      for (const kind of ["esm", "cjs"]) expect(withSdk[`${name} ${kind}`]).toBe("ok");
    } finally {
      for (const path of links) rmSync(path);
    }
  });
});
