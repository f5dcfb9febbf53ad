import { join } from "node:path";
import { defineConfig, type Options } from "tsup";

// The public entry points (ESM + CJS + .d.ts); add new ones here and to package.json "exports".
const publicEntries = {
  index: "src/index.ts",
  "schema/index": "src/schema/index.ts",
  "testing/index": "src/testing/index.ts",
  "store/index": "src/store/index.ts",
  "store/redis": "src/store/redis.ts",
  // OAuth (the SDK's transport and flows), imported by the app that wants it: never reached from the main entry.
  "auth/oauth/index": "src/auth/oauth/index.ts",
  // OpenTelemetry, likewise: the app that passes `telemetry: telemetry()` imports it.
  "telemetry/index": "src/telemetry/index.ts",
  // The validator `validateOutput` otherwise imports on first need, for bundles made into one file.
  "json-schema": "src/tools/json-schema-validator.ts",
  // Agent framework bridges: each imports its framework (an optional peer) and the core by the package's name.
  "bridges/ai-sdk": "src/bridges/ai-sdk.ts",
  "bridges/langchain": "src/bridges/langchain.ts",
  "bridges/openai-agents": "src/bridges/openai-agents.ts",
  // Many servers behind one object: imports the core by the package's name, like the bridges, and stays out of
  // the main entry's browser budget.
  "host/index": "src/host/index.ts",
  // Durable engines: each imports its engine's SDK (optional peers) and the core by the package's name.
  "engines/temporal": "src/engines/temporal.ts",
  "engines/restate": "src/engines/restate.ts",
  // Durable Objects: the core by the package's name, Cloudflare's API by its shape (no package at run time).
  "engines/cloudflare": "src/engines/cloudflare.ts",
  // For whoever brings a transport: its shape, the fetch wrappers for the v1 SDK's transport, the wire's names.
  "transport/index": "src/session/index.ts",
};

const library: Options = {
  entry: {
    ...publicEntries,
    // Behind the package import `#stdio` (package.json "imports"): Node gets the SDK's stdio transport, every
    // other runtime an explanatory error, so `dist/index.js` bundles for browsers and workers.
    "stdio/node": "src/session/stdio-node.ts",
    "stdio/unavailable": "src/session/stdio-unavailable.ts",
    // Behind `#http`, likewise: Node requests over undici's dispatcher API, every other runtime over `fetch`.
    "http/node": "src/session/http-undici.ts",
    "http/unavailable": "src/session/http-undici-unavailable.ts",
    // What the bridges share, built once: each bridge entry imports it (see the plugin below).
    "bridges/shared": "src/bridges/shared/index.ts",
    // The host's code, loaded by the main entry's `TaskHost` on first use (see the plugin below).
    "host/loaded": "src/host/loaded.ts",
  },
  // "mcp-tasks": the CJS build of mcp-tasks/testing imports its ESM twin by the package's own name, and the
  // declarations of every entry refer to the main entry's. (In JavaScript the plugin "host-loads-lazily" decides,
  // see `noExternal`.)
  external: ["#stdio", "#http", "mcp-tasks"],
  // Bundled in, tree-shaken as a bundler would, so that `import("mcp-tasks")` in Node loads one file instead of
  // resolving and compiling a few dozen: dequal and eventemitter3 (`npm run bench -- --startup-only`). The client's
  // validators need no package at all (src/schema/kit.ts; zod/mini was bundled here before). dequal is therefore a
  // devDependency; eventemitter3 stays a dependency for its listener types only (the client, the handles and
  // the host emit through src/task/emitter.ts). `mcp-tasks/schema` keeps importing `zod/v4`.
  // (Retries and the input handlers' limit are our own code: p-retry and p-limit weighed 1.8 KB gzip.)
  // "mcp-tasks" is listed so that tsup's own external rule passes it on to the plugin "host-loads-lazily" (which
  // leaves it external everywhere but in the host's lazily loaded code); the declarations' build ignores the list.
  noExternal: ["dequal", "eventemitter3", /^mcp-tasks$/],
  format: ["esm", "cjs"],
  // Members marked `@internal` (the client's own seams on public classes and plug-ins) stay out of the declarations.
  dts: { entry: publicEntries, compilerOptions: { stripInternal: true } },
  // No sourcemaps in the package: they would double its size and point at sources it does not ship.
  sourcemap: false,
  // dist/cli.js comes from the second build below, which may finish first.
  clean: ["!cli.js"],
  // ES2022 runs on Node 20 and every current browser; the main entry must bundle for both.
  target: "es2022",
  // Compact syntax and whitespace, names kept: stack traces stay readable and the tarball stays small.
  minifyWhitespace: true,
  minifySyntax: true,
  splitting: false,
  // Keep `node:fs` and friends as written: Deno and Workers (nodejs_compat) know built-ins by that prefix, and a
  // bundler targeting browsers can tell them from packages.
  removeNodeProtocol: false,
  esbuildPlugins: [
    {
      // CommonJS has no top-level await: its build of mcp-tasks/testing loads the server SDK with require().
      name: "server-sdk-for-cjs",
      setup(build) {
        if (build.initialOptions.format !== "cjs") return;
        build.onResolve({ filter: /^(\.\.?\/)+load-server-sdk\.js$/ }, (args) => ({
          path: join(args.resolveDir, args.path.replace(/load-server-sdk\.js$/, "load-server-sdk.cjs.ts")),
        }));
        // The 2025-11-25 mode of mcp-tasks/testing ships once, in ESM; the CJS build imports it from there.
        build.onResolve({ filter: /^\.\/legacy\/index\.js$/ }, (args) => ({
          path: join(args.resolveDir, "legacy", "index.cjs.ts"),
        }));
        // So does its authorization server (startTaskServer({ auth })).
        build.onResolve({ filter: /^\.\/auth\/index\.js$/ }, (args) =>
          args.resolveDir.endsWith(join("src", "testing"))
            ? { path: join(args.resolveDir, "auth", "index.cjs.ts") }
            : undefined,
        );
      },
    },
    {
      // The bridges import their shared part from its own build, in their format, instead of each bundling a copy
      // (one copy also means one book of handed-off tasks per client for all of them).
      name: "bridges-share-one-module",
      setup(build) {
        const shared = build.initialOptions.format === "cjs" ? "./shared.cjs" : "./shared.js";
        build.onResolve({ filter: /^\.\/shared\/index\.js$/ }, (args) =>
          args.resolveDir.endsWith(join("src", "bridges")) ? { path: shared, external: true } : undefined,
        );
      },
    },
    {
      // The main entry's `TaskHost` loads dist/host/loaded.js on first use, and that file never imports the main
      // entry back: the host's core classes are handed in (src/host/core.ts). An import cycle would make a
      // bundler wrap the whole core in lazy-init code (docs/architecture.md, Decision 19).
      name: "host-loads-lazily",
      setup(build) {
        const loaded = build.initialOptions.format === "cjs" ? "./host/loaded.cjs" : "./host/loaded.js";
        const hostDir = join("src", "host");
        build.onResolve({ filter: /^\.\/loaded\.js$/ }, (args) =>
          args.resolveDir.endsWith(hostDir) ? { path: loaded, external: true } : undefined,
        );
        build.onResolve({ filter: /^mcp-tasks$/ }, (args) =>
          args.resolveDir.endsWith(hostDir) && !args.importer.endsWith(join(hostDir, "index.ts"))
            ? { path: join(args.resolveDir, "core.ts") }
            : { path: "mcp-tasks", external: true },
        );
      },
    },
  ],
};

/**
 * The `mcp-tasks` command (bin/mcp-tasks.js): ESM only, no types. It imports the library through the built
 * entries (dist/index.js, dist/store/index.js, dist/auth/oauth/index.js, dist/host/index.js) instead of bundling
 * a second copy.
 */
const cli: Options = {
  entry: { cli: "src/cli/main.ts" },
  format: ["esm"],
  sourcemap: false,
  clean: false,
  target: "es2022",
  platform: "node",
  removeNodeProtocol: false,
  minifyWhitespace: true,
  minifySyntax: true,
  esbuildPlugins: [
    {
      name: "cli-uses-the-built-library",
      setup(build) {
        build.onResolve(
          { filter: /^\.\.\/(index|store\/index|auth\/oauth\/index|host\/index)\.js$/ },
          (args) =>
            args.importer.includes(join("src", "cli"))
              ? { path: args.path.slice(1), external: true }
              : undefined,
        );
      },
    },
  ],
};

export default defineConfig([library, cli]);
