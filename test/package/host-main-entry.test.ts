/**
 * `TaskHost` from the main entry, as a consumer gets it: `import { TaskHost } from "mcp-tasks"` (ESM) and
 * `require("mcp-tasks")` (CJS) connect to a real reference server and call a tool; the class is the one
 * `mcp-tasks/host` exports, `instanceof` holds across both, and the host's clients are the main entry's
 * `TaskClient`. The host's code is loaded on first use from a file that never imports the main entry back (an
 * import cycle would make a bundler wrap the whole core in lazy-init code).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, assertFreshBuild, packedConsumer, run, type Consumer } from "./packed.js";

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;

function importsOf(file: string): string[] {
  const source = readFileSync(join(ROOT, "dist", file), "utf8");
  return [...new Set([...source.matchAll(SPECIFIER)].map((match) => match[1] as string))].sort();
}

describe("the built host code", () => {
  it.each([
    ["host/loaded.js", "index.js", "./host/loaded.js"],
    ["host/loaded.cjs", "index.cjs", "./host/loaded.cjs"],
  ])("dist/%s never imports the main entry back; dist/%s loads it by %s", (loaded, main, specifier) => {
    assertFreshBuild();
    expect(importsOf(loaded).filter((name) => name.startsWith("mcp-tasks") || name.startsWith("."))).toEqual(
      [],
    );
    expect(importsOf(main)).toContain(specifier);
  });
});

describe("TaskHost from the packed main entry", () => {
  let consumer: Consumer;
  beforeAll(async () => {
    consumer = await packedConsumer(["@modelcontextprotocol/server"]);
  }, 60_000);
  afterAll(() => consumer?.remove());

  const body = `
    const server = await startTaskServer();
    try {
      const before = [Object.keys(HostEntry), typeof TaskHost.connect, typeof TaskHost.fromConfig];
      const host = await TaskHost.connect({ servers: { alpha: server.url } });
      const result = await host.callTool("alpha__greet", { name: "host" });
      console.log(JSON.stringify({
        before,
        same: TaskHost === HostEntry,
        instance: [host instanceof TaskHost, host instanceof HostEntry, {} instanceof TaskHost, null instanceof HostEntry],
        client: host.client("alpha") instanceof TaskClient,
        servers: host.servers,
        text: result.content[0].text,
      }));
      await host.close();
    } finally {
      await server.close();
    }`;
  const expected = {
    before: [[], "function", "function"],
    same: true,
    instance: [true, true, false, false],
    client: true,
    servers: [{ name: "alpha", state: "ready", supportsTasks: true }],
    text: "Hello, host!",
  };

  it.each([
    [
      "ESM",
      "host.mjs",
      `import { TaskClient, TaskHost } from "mcp-tasks";
       import { TaskHost as HostEntry } from "mcp-tasks/host";
       import { startTaskServer } from "mcp-tasks/testing";
       ${body}`,
    ],
    [
      "CJS",
      "host.cjs",
      `const { TaskClient, TaskHost } = require("mcp-tasks");
       const { TaskHost: HostEntry } = require("mcp-tasks/host");
       const { startTaskServer } = require("mcp-tasks/testing");
       (async () => { ${body} })();`,
    ],
  ])(
    "%s: connects to a reference server, calls a tool, and is the class of mcp-tasks/host",
    async (_, file, source) => {
      writeFileSync(join(consumer.dir, file), source);
      const { stdout } = await run(process.execPath, [file], { cwd: consumer.dir, timeout: 30_000 });
      expect(JSON.parse(stdout)).toEqual(expected);
    },
  );
});
