/**
 * The agent framework bridges as a consumer gets them: each built entry (ESM and CJS) imports its own framework
 * and the bridges' shared module (which imports the core by the package's name), and nothing else; in a packed
 * install where only one framework is present, its bridge loads (the others' frameworks are never needed) and
 * the others fail naming what is missing; with all of them, the bridges share one book of handed-off tasks.
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

const BRIDGES = {
  "ai-sdk": { framework: "ai", imports: ["ai"], entry: "aiSdkTools" },
  langchain: {
    framework: "@langchain/core",
    imports: ["@langchain/core/callbacks/dispatch/web", "@langchain/core/messages", "@langchain/core/tools"],
    entry: "langchainTools",
  },
  "openai-agents": { framework: "@openai/agents", imports: ["@openai/agents"], entry: "openaiAgentsTools" },
} as const;
type Bridge = keyof typeof BRIDGES;
const NAMES = Object.keys(BRIDGES) as Bridge[];

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;

describe("the built bridge entries", () => {
  const importsOf = (file: string) => {
    const source = readFileSync(join(ROOT, "dist", "bridges", file), "utf8");
    return [...new Set([...source.matchAll(SPECIFIER)].map((match) => match[1]))].sort();
  };

  it.each(NAMES.flatMap((name) => [`${name}.js`, `${name}.cjs`]))(
    "dist/bridges/%s imports its framework and the shared module, nothing else",
    (file) => {
      assertFreshBuild();
      const shared = file.endsWith(".cjs") ? "./shared.cjs" : "./shared.js";
      expect(importsOf(file)).toEqual([shared, ...BRIDGES[file.replace(/\.c?js$/, "") as Bridge].imports]);
    },
  );

  it.each(["shared.js", "shared.cjs"])("dist/bridges/%s imports only mcp-tasks", (file) => {
    expect(importsOf(file)).toEqual(["mcp-tasks"]);
  });

  it("are wired in package.json exports and typesVersions, with their frameworks as optional peers", () => {
    for (const name of NAMES) {
      const { framework } = BRIDGES[name];
      expect(entryWiring(name, [framework])).toEqual(optionalPeerEntry(`bridges/${name}`, [framework]));
    }
  });
});

describe("a packed install with one framework", () => {
  let consumer: Consumer;
  beforeAll(async () => {
    consumer = await packedConsumer();
  }, 60_000);
  afterAll(() => consumer?.remove());

  /** Links one package of ours into the consumer; returns how to remove the link. */
  function link(name: string): () => void {
    const path = join(consumer.dir, "node_modules", name);
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", name), path, "dir");
    return () => rmSync(path);
  }

  /** Loads every bridge by ESM import and CJS require; `ok` or the first line of the error, per bridge. */
  const loadAll = () =>
    loadEntries(
      consumer,
      NAMES.map((name) => [name, BRIDGES[name].entry]),
    );

  it.each(NAMES)(
    "with only the framework of %s, that bridge loads and the others name their package",
    async (only) => {
      const unlink = link(BRIDGES[only].framework);
      try {
        const seen = await loadAll();
        for (const name of NAMES) {
          for (const kind of ["esm", "cjs"]) {
            const result = seen[`${name} ${kind}`];
            if (name === only) expect(result).toBe("ok");
            else expect(result).toContain(`'${BRIDGES[name].framework}`);
          }
        }
      } finally {
        unlink();
      }
    },
  );
});
