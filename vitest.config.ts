import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Examples and tests import the package by its public name, exactly as users do; these aliases point the
// names at the sources so no build is needed.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^mcp-tasks$/, replacement: source("./src/index.ts") },
      { find: /^mcp-tasks\/schema$/, replacement: source("./src/schema/index.ts") },
      { find: /^mcp-tasks\/testing$/, replacement: source("./src/testing/index.ts") },
      // package.json "imports" maps `#stdio` to the build; on Node the sources use the stdio transport.
      { find: /^#stdio$/, replacement: source("./src/session/stdio-node.ts") },
      // Likewise `#http`: on Node the sources take the undici path (MCP_TASKS_HTTP=fetch forces `fetch`).
      { find: /^#http$/, replacement: source("./src/session/http-undici.ts") },
      { find: /^mcp-tasks\/store$/, replacement: source("./src/store/index.ts") },
      { find: /^mcp-tasks\/store\/redis$/, replacement: source("./src/store/redis.ts") },
      { find: /^mcp-tasks\/oauth$/, replacement: source("./src/auth/oauth/index.ts") },
      { find: /^mcp-tasks\/telemetry$/, replacement: source("./src/telemetry/index.ts") },
      { find: /^mcp-tasks\/cloudflare$/, replacement: source("./src/engines/cloudflare.ts") },
      { find: /^mcp-tasks\/json-schema$/, replacement: source("./src/tools/json-schema-validator.ts") },
      { find: /^mcp-tasks\/ai-sdk$/, replacement: source("./src/bridges/ai-sdk.ts") },
      { find: /^mcp-tasks\/langchain$/, replacement: source("./src/bridges/langchain.ts") },
      { find: /^mcp-tasks\/openai-agents$/, replacement: source("./src/bridges/openai-agents.ts") },
      { find: /^mcp-tasks\/host$/, replacement: source("./src/host/index.ts") },
      { find: /^mcp-tasks\/temporal$/, replacement: source("./src/engines/temporal.ts") },
      { find: /^mcp-tasks\/restate$/, replacement: source("./src/engines/restate.ts") },
      { find: /^mcp-tasks\/transport$/, replacement: source("./src/session/index.ts") },
    ],
  },
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // Fails the test during which a promise rejection went unhandled (see the file for why).
    setupFiles: ["./test/setup/unhandled-rejections.ts"],
    // Vitest's default on 2 cores is one worker; most files here wait on sockets, timers and child processes.
    maxWorkers: 2,
    projects: [
      // Everything, on Node's default HTTP path (undici's dispatcher API, src/session/http-undici.ts).
      {
        extends: true,
        test: { name: "node", include: ["test/**/*.test.ts", "src/**/*.test.ts", "scripts/**/*.test.ts"] },
      },
      // (Each project names its own files: `extends` would add the root's to them.)
      // The tests of HTTP behaviour once more on the `fetch` path (what Bun, Deno, browsers and Workers take), so
      // that nothing holds on one path and not the other.
      {
        extends: true,
        test: {
          name: "fetch-path",
          include: [
            "test/integration/transport/**/*.test.ts",
            "test/integration/auth/oauth.test.ts",
            "test/integration/auth/headers.test.ts",
            "test/integration/notifications/listen-http.test.ts",
            "test/integration/eras/agent.test.ts",
            "test/integration/input/server-requests.test.ts",
          ],
          // The undici path's own tests.
          exclude: ["test/integration/transport/http-paths.test.ts"],
          env: { MCP_TASKS_HTTP: "fetch" },
        },
      },
    ],
  },
});
